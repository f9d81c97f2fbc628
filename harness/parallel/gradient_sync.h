#pragma once

namespace gpubench {

// What the Trainer tells a data-parallel gradient synchronisation (DDP) around each
// backward pass. Both calls run inside the Backward phase: begin before autograd starts,
// finish after it returns. finish returns only when every parameter's .grad holds the
// average over all ranks, so the Optimizer phase stays the optimizer alone and whatever
// communication backward did not hide shows up as Backward time.
class GradientSync {
 public:
  virtual ~GradientSync() = default;
  virtual void begin_backward() = 0;
  virtual void finish_backward() = 0;
};

}  // namespace gpubench
