#pragma once
#include <functional>

namespace gpubench {

// What the Trainer asks of a recorded training step: CudaGraphStep on CUDA. Behind an
// interface so the Trainer's graph path (capture after warm-up, replays after, what runs
// inside the recorded body) is exercised on the CPU by a stand-in that runs the body on
// each replay.
class StepGraph {
 public:
  virtual ~StepGraph() = default;
  virtual bool captured() const = 0;
  // Records `body` (one whole step) without running it.
  virtual void capture(const std::function<void()>& body) = 0;
  // Runs the recorded step once more.
  virtual void replay() = 0;
};

}  // namespace gpubench
