#pragma once
#include <cstdint>
#include <functional>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

namespace gpubench {

// The sharded modes' max of the inf/NaN flag over the ranks; `read_on_host`: whether the
// host reads the flag right after (LossScaler::agree_across_ranks).
using InfAgreement = std::function<void(torch::Tensor& found_inf, bool read_on_host)>;

// Loss scaling around backward and the optimizer step. fp32 and bf16 need none
// (PassThroughScaler); fp16 autocast needs a GradScaler so small gradients survive.
class LossScaler {
 public:
  virtual ~LossScaler() = default;
  virtual torch::Tensor scale(const torch::Tensor& loss) { return loss; }
  // Unscales gradients and steps unless they hold inf/NaN. Returns false when it skipped
  // the step on the host; a skip decided on the device (a fused kernel) returns true and
  // counts only in skipped_steps().
  virtual bool step(torch::optim::Optimizer& optimizer) {
    optimizer.step();
    return true;
  }
  virtual void update() {}
  // Every step skipped so far, host- and device-decided (may read the device: at run end).
  virtual std::int64_t skipped_steps() const { return 0; }
  virtual void write_result(nlohmann::json& result) const {}
  // A CUDA Graph is about to capture scale/step/update: every tensor that must outlive a
  // replay, and keep its value across replays, is made now, outside the capture.
  virtual void prepare_for_capture() {}
  // The capture recorded one scale/step/update without running it: counters take it back.
  virtual void end_capture() {}
  // A replay ran the captured scale/step/update once more: the host's counters follow.
  virtual void count_replayed_step() {}
  // Ranks that each hold a shard of the gradients (the sharded modes): `max_over_ranks`
  // makes the inf/NaN flag every rank's, before the step is taken or skipped. It is told
  // whether the host reads the flag next (step() deciding on the host) or only a kernel
  // does (a fused optimizer's step): a wait on the host then costs nothing, else it would
  // add a sync the step does not have.
  virtual void agree_across_ranks(InfAgreement max_over_ranks) {}
};

using PassThroughScaler = LossScaler;

}  // namespace gpubench
