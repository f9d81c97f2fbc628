#pragma once
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include <torch/torch.h>

#include "harness/parallel/bucket_plan.h"
#include "harness/parallel/comm_stats.h"
#include "harness/parallel/gradient_sync.h"
#include "harness/parallel/process_group.h"

namespace gpubench {

// Thrown when a gradient all-reduce fails or does not finish within the timeout: a peer
// rank died or stalled. The config fails with this message; never a hang.
class CommFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ReducerOptions {
  int rank = 0;
  int world_size = 1;
  std::chrono::milliseconds timeout{60000};  // bound on each bucket's wait
  // Gloo completes a Work's future when the all-reduce is done, so its callback times
  // the completion. NCCL's future completes at enqueue; there the completion is taken
  // when the bounded wait sees the work completed (no device sync): an upper bound.
  bool completion_callback_is_exact = true;
  // NCCL: each bucket's all-reduce also timed on the device (NCCL's own events), which is
  // what the row's comm_ms then counts.
  bool device_timing = false;
  // NCCL: the buckets' waits only make the current stream wait (the host goes on into the
  // optimizer, as PyTorch's DDP does); the next backward's start checks the step's last
  // all-reduce on the host, bounded, and only then records the step.
  bool stream_waits = false;
  std::function<void()> on_failure;  // lets the owner of the process group abandon it
};

// DDP's gradient averaging without c10d's Reducer (its constructor changes between
// releases): a hook on every parameter copies the gradient autograd just produced into
// its bucket's flat buffer; when a bucket's last gradient arrives, the bucket is divided
// by the world size and its all-reduce launched asynchronously, in bucket order (every
// rank must issue collectives in the same order), while autograd goes on with the
// earlier layers. finish_backward() launches any bucket still waiting (a parameter that
// got no gradient counts as zero), waits for each with a bounded wait and copies the
// averages back into .grad -- PyTorch's default, gradient_as_bucket_view=False. On NCCL
// (stream_waits) those waits are the stream's and the bound is kept by settle() at the
// next backward's start.
class GradientReducer final : public GradientSync {
 public:
  GradientReducer(std::vector<torch::Tensor> parameters, BucketPlan plan, CollectiveGroup& group,
                  ReducerOptions options, std::shared_ptr<CommRecorder> recorder);
  ~GradientReducer() override;
  GradientReducer(const GradientReducer&) = delete;
  GradientReducer& operator=(const GradientReducer&) = delete;

  void begin_backward(bool accumulated) override;
  void finish_backward() override;
  void take_gradients() override;
  // stream_waits: waits, bounded, for the last step's last all-reduce and records that step
  // (the next backward's start does it; call before reading the recorder). Else nothing.
  void settle();
  const BucketPlan& plan() const { return plan_; }
  const std::vector<torch::Tensor>& parameters() const { return parameters_; }  // what it averages

 private:
  using Clock = std::chrono::steady_clock;
  struct Bucket {
    torch::Tensor flat;
    std::vector<bool> filled;  // per parameter of the bucket, this step
    std::size_t pending = 0;   // gradients still to arrive this step
    bool ready = false;
    bool launched = false;
    c10::intrusive_ptr<c10d::Work> work;
    Clock::time_point launch_time{};
    // Written by the collective's completion callback, on a backend thread; shared so a
    // late callback after a failure never touches a destroyed reducer.
    std::shared_ptr<std::atomic<std::int64_t>> completed_ns = std::make_shared<std::atomic<std::int64_t>>(0);
  };

  void on_gradient(std::size_t parameter, const torch::Tensor& grad);
  void launch_ready_buckets();  // with mutex_ held
  void launch(Bucket& bucket);
  void wait(std::size_t index);
  double ms_since_begin(Clock::time_point when) const;

  std::vector<torch::Tensor> parameters_;
  BucketPlan plan_;
  CollectiveGroup& group_;
  ReducerOptions options_;
  std::shared_ptr<CommRecorder> recorder_;
  std::vector<Bucket> buckets_;
  std::vector<std::size_t> slot_in_bucket_;  // parameter index -> position in its bucket
  std::vector<unsigned> hooks_;
  std::mutex mutex_;  // autograd may run hooks on its own threads (one per device)
  std::size_t next_launch_ = 0;
  bool armed_ = false;
  bool accumulated_ = false;  // this backward adds to gradients already in .grad
  Clock::time_point backward_begin_{};
  // stream_waits: the last step, until settle() has checked its last all-reduce.
  StepComm unsettled_step_;
  bool unsettled_ = false, unsettled_measured_ = false;
};

}  // namespace gpubench
