#pragma once

namespace gpubench {

// What the Trainer tells a data-parallel run (DDP, the sharded modes) around each step.
// begin_backward/finish_backward run inside the Backward phase: begin before autograd
// starts, finish after it returns. finish returns only when the gradients the optimizer
// steps hold the average over all ranks (DDP: every parameter's .grad; the sharded modes:
// this rank's gradient shards), so the Optimizer phase stays the optimizer alone and
// whatever communication backward did not hide shows up as Backward time.
// With gradient accumulation DDP announces only the last micro-batch's backward (PyTorch's
// no_sync for the others), with `accumulated` true: .grad then already holds the earlier
// micro-batches' sum, which the average must include. A sync that keeps no whole gradient
// (zero2, fsdp) reduces every micro-batch instead (reduces_every_micro_batch), and
// `accumulated` then says whether its shards already hold earlier micro-batches' share.
class GradientSync {
 public:
  virtual ~GradientSync() = default;
  // Inside the Forward phase, before each micro-batch's forward (`first`: the step's first):
  // fsdp gathers its root unit here.
  virtual void begin_forward(bool first) {}
  virtual void begin_backward(bool accumulated) = 0;
  virtual void finish_backward() = 0;
  // Between begin_backward and finish_backward when no autograd backward ran: the compiled
  // step (harness/run/compiled_step.h) set every parameter's .grad at once, and the sync
  // takes them as if each had arrived. The sharded modes read the members' .grad when they
  // reduce anyway; DDP's buckets copy them here.
  virtual void take_gradients() {}
  // Whether every micro-batch's backward is announced, not only the last.
  virtual bool reduces_every_micro_batch() const { return false; }
  // Inside the Optimizer phase, after the optimizer stepped: zero1 and zero2 all-gather
  // the updated shards into every rank's parameters here.
  virtual void after_optimizer_step() {}
};

}  // namespace gpubench
