#include "harness/run/cuda_event_clock.h"

#include <vector>

#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAStream.h>

namespace gpubench {
namespace {

class CudaEventClock final : public EventClock {
 public:
  explicit CudaEventClock(int device) : device_(static_cast<c10::DeviceIndex>(device)) {}
  Mark record() override {
    Mark mark;
    if (!free_.empty()) {
      mark = free_.back();
      free_.pop_back();
    } else {
      mark = events_.size();
      events_.push_back(std::make_unique<at::cuda::CUDAEvent>(cudaEventDefault));
    }
    events_[mark]->record(c10::cuda::getCurrentCUDAStream(device_));
    return mark;
  }
  bool passed(Mark mark) override { return events_.at(mark)->query(); }
  void wait(Mark mark) override { events_.at(mark)->synchronize(); }
  double elapsed_ms(Mark from, Mark to) override {
    return static_cast<double>(events_.at(from)->elapsed_time(*events_.at(to)));
  }
  void release(Mark mark) override { free_.push_back(mark); }

 private:
  c10::DeviceIndex device_;
  std::vector<std::unique_ptr<at::cuda::CUDAEvent>> events_;
  std::vector<Mark> free_;
};

}  // namespace

std::unique_ptr<EventClock> make_cuda_event_clock(int device) { return std::make_unique<CudaEventClock>(device); }

}  // namespace gpubench
