#pragma once

namespace gpubench {

// What the Trainer tells a data-parallel gradient synchronisation (DDP) around each
// backward pass. Both calls run inside the Backward phase: begin before autograd starts,
// finish after it returns. finish returns only when every parameter's .grad holds the
// average over all ranks, so the Optimizer phase stays the optimizer alone and whatever
// communication backward did not hide shows up as Backward time.
// With gradient accumulation only the last micro-batch's backward is announced (PyTorch's
// no_sync for the others), with `accumulated` true: .grad then already holds the earlier
// micro-batches' sum, which the average must include.
class GradientSync {
 public:
  virtual ~GradientSync() = default;
  virtual void begin_backward(bool accumulated) = 0;
  virtual void finish_backward() = 0;
};

}  // namespace gpubench
