#pragma once
// A process group of one rank, in this process, standing in for NCCL where the CPU cannot:
// its collectives are copies (as a group of one's are) that finish at once, and it counts
// how each was waited -- with a bound (on the host: wait_collective) or without (NCCL's
// wait(), which only makes the current stream wait: it returns at once here too). It can
// report a time on the device for each (as NCCL's Works do once the group's timing is on),
// and stall: from the first reduce-scatter on, nothing finishes (NCCL runs a group's
// collectives in order), as when a peer died in backward.
#include <chrono>

#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>

namespace gpubench::test_support {

class CopyingGroup final : public c10d::Backend {
 public:
  class Copied final : public c10d::Work {
   public:
    Copied(CopyingGroup& group, bool done) : group_(group) {
      if (done) finish();
    }
    bool wait(std::chrono::milliseconds timeout) override {
      if (timeout == kNoTimeout) {  // Work.hpp declares it outside c10d
        ++group_.stream_waits;
        return true;
      }
      ++group_.host_waits;
      return c10d::Work::wait(timeout);  // "Operation timed out!" if it never finished
    }
    float getDuration() const override {
      if (group_.device_ms < 0) return c10d::Work::getDuration();  // throws: not timed
      return group_.device_ms;
    }

   private:
    CopyingGroup& group_;
  };

  CopyingGroup() : c10d::Backend(/*rank=*/0, /*size=*/1) {}
  const std::string getBackendName() const override { return "copying"; }
  c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor& output, at::Tensor& input,
                                                 const c10d::AllgatherOptions&) override {
    output.copy_(input);
    return c10::make_intrusive<Copied>(*this, !stalled_);
  }
  c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                                                      const c10d::ReduceScatterOptions&) override {
    output.copy_(input);
    stalled_ = stalled_ || stall_from_reduce_scatter;
    return c10::make_intrusive<Copied>(*this, !stalled_);
  }
  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>&, const c10d::AllreduceOptions&) override {
    return c10::make_intrusive<Copied>(*this, !stalled_);  // the sum over one rank: unchanged
  }

  int host_waits = 0, stream_waits = 0;
  float device_ms = -1;  // each collective's time on the device; -1: not timed
  bool stall_from_reduce_scatter = false;

 private:
  bool stalled_ = false;
};

}  // namespace gpubench::test_support
