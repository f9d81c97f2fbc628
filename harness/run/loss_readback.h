#pragma once
#include <deque>
#include <memory>

#include <torch/torch.h>

namespace gpubench {

// The loss read one step late (DESIGN.md, "Measuring on a GPU as a real loop runs"): a
// Python loop does not read its loss every step, so the CPU queues step N+1 while the GPU
// still runs step N. `start` begins copying a step's loss to the host without waiting
// (stream-ordered after the work that computes it: a CUDA Graph's replay that rewrites its
// static loss next step cannot overwrite the copy); `wait_oldest` waits for the oldest copy
// still pending and returns its value. The Trainer waits for step N-1's loss after
// queueing step N, so the device always has the next step queued while the host reads.
class LossReadback {
 public:
  virtual ~LossReadback() = default;
  virtual void start(const torch::Tensor& loss) = 0;
  virtual double wait_oldest() = 0;
  virtual std::size_t pending() const = 0;
};

// On the CPU the loss is computed by the time `start` is called: the value is read there.
class HostLossReadback final : public LossReadback {
 public:
  void start(const torch::Tensor& loss) override { values_.push_back(loss.item<double>()); }
  double wait_oldest() override;
  std::size_t pending() const override { return values_.size(); }

 private:
  std::deque<double> values_;
};

}  // namespace gpubench
