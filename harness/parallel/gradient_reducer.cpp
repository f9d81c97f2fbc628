#include "harness/parallel/gradient_reducer.h"

#include <cstdio>

namespace gpubench {
namespace {

std::string mib(std::int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

}  // namespace

GradientReducer::GradientReducer(std::vector<torch::Tensor> parameters, BucketPlan plan, CollectiveGroup& group,
                                 ReducerOptions options, std::shared_ptr<CommRecorder> recorder)
    : parameters_(std::move(parameters)),
      plan_(std::move(plan)),
      group_(group),
      options_(std::move(options)),
      recorder_(std::move(recorder)),
      buckets_(plan_.buckets.size()),
      slot_in_bucket_(parameters_.size(), 0) {
  for (std::size_t b = 0; b < plan_.buckets.size(); ++b) {
    const GradientBucket& layout = plan_.buckets[b];
    const torch::Tensor& first = parameters_[layout.parameters.front()];
    buckets_[b].flat = torch::zeros({layout.numel}, first.options().requires_grad(false));
    buckets_[b].filled.assign(layout.parameters.size(), false);
    for (std::size_t slot = 0; slot < layout.parameters.size(); ++slot) slot_in_bucket_[layout.parameters[slot]] = slot;
  }
  for (const auto& layout : plan_.buckets)
    for (std::size_t index : layout.parameters)
      hooks_.push_back(parameters_[index].register_hook([this, index](torch::Tensor grad) { on_gradient(index, grad); }));
}

GradientReducer::~GradientReducer() {
  std::size_t h = 0;
  for (const auto& layout : plan_.buckets)
    for (std::size_t index : layout.parameters) parameters_[index].remove_hook(hooks_[h++]);
}

double GradientReducer::ms_since_begin(Clock::time_point when) const {
  return std::chrono::duration<double, std::milli>(when - backward_begin_).count();
}

void GradientReducer::settle() {
  if (!unsettled_) return;
  unsettled_ = false;
  // NCCL ran the buckets' all-reduces in order on its stream: the last done, all are.
  if (!buckets_.empty()) wait(buckets_.size() - 1);
  for (std::size_t b = 0; b < buckets_.size() && b < unsettled_step_.collectives.size(); ++b)
    if (const auto ms = device_time_ms(*buckets_[b].work)) unsettled_step_.collectives[b].device_ms = *ms;
  if (recorder_) recorder_->record(unsettled_step_, unsettled_measured_);
}

void GradientReducer::begin_backward(bool accumulated) {
  settle();  // the last step's bound, before its buckets are reused
  std::lock_guard<std::mutex> lock(mutex_);
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    Bucket& bucket = buckets_[b];
    std::fill(bucket.filled.begin(), bucket.filled.end(), false);
    bucket.pending = bucket.filled.size();
    bucket.ready = bucket.launched = false;
    bucket.work.reset();
    bucket.completed_ns->store(0);
  }
  next_launch_ = 0;
  armed_ = true;
  accumulated_ = accumulated;
  backward_begin_ = Clock::now();
}

void GradientReducer::on_gradient(std::size_t parameter, const torch::Tensor& grad) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!armed_) return;  // a backward pass the trainer did not announce (not a DDP step)
  const std::size_t b = plan_.bucket_of[parameter];
  Bucket& bucket = buckets_[b];
  const std::size_t slot = slot_in_bucket_[parameter];
  if (bucket.filled[slot]) return;  // already counted this step
  const GradientBucket& layout = plan_.buckets[b];
  torch::NoGradGuard no_grad;
  // The hook sees this backward's gradient before autograd adds it to .grad: after
  // no_sync micro-batches .grad holds their sum, and the bucket gets the whole sum.
  torch::Tensor slot_view = bucket.flat.narrow(0, layout.offsets[slot], grad.numel());
  const torch::Tensor& earlier = parameters_[parameter].grad();
  if (accumulated_ && earlier.defined())
    torch::add_out(slot_view, grad.reshape({-1}), earlier.reshape({-1}));
  else
    slot_view.copy_(grad.reshape({-1}));
  bucket.filled[slot] = true;
  if (--bucket.pending == 0) {
    bucket.ready = true;
    launch_ready_buckets();
  }
}

void GradientReducer::take_gradients() {
  // In bucket order, as backward's hooks would fill them: each bucket launches once full.
  for (const auto& layout : plan_.buckets)
    for (std::size_t index : layout.parameters)
      if (const torch::Tensor& grad = parameters_[index].grad(); grad.defined()) on_gradient(index, grad);
}

void GradientReducer::launch_ready_buckets() {
  // In bucket order only: collectives must be issued in the same order on every rank.
  while (next_launch_ < buckets_.size() && buckets_[next_launch_].ready) launch(buckets_[next_launch_++]);
}

void GradientReducer::launch(Bucket& bucket) {
  torch::NoGradGuard no_grad;
  if (options_.world_size > 1) bucket.flat.div_(options_.world_size);
  std::vector<at::Tensor> tensors = {bucket.flat};
  bucket.launch_time = Clock::now();
  bucket.launched = true;
  bucket.work = group_.allreduce(tensors);
  if (options_.completion_callback_is_exact) {
    auto completed = bucket.completed_ns;
    bucket.work->getFuture()->addCallback([completed](c10::ivalue::Future&) {
      completed->store(Clock::now().time_since_epoch().count());
    });
  }
}

void GradientReducer::wait(std::size_t index) {
  Bucket& bucket = buckets_[index];
  try {
    wait_collective(group_, *bucket.work, options_.timeout);
    // wait_collective returns once the work says isCompleted() (NCCL: its end event has
    // passed), so now bounds the completion from above. No device-wide synchronize: it
    // also waited for the pinned prefetch copy and charged it to Backward.
    if (!options_.completion_callback_is_exact) bucket.completed_ns->store(Clock::now().time_since_epoch().count());
  } catch (const std::exception& error) {
    if (options_.on_failure) options_.on_failure();
    const double waited_s = std::chrono::duration<double>(Clock::now() - bucket.launch_time).count();
    char waited[32];
    std::snprintf(waited, sizeof(waited), "%.1f s", waited_s);
    throw CommFailure("rank " + std::to_string(options_.rank) + " of " + std::to_string(options_.world_size) +
                      ": all-reduce of gradient bucket " + std::to_string(index + 1) + "/" +
                      std::to_string(buckets_.size()) + " (" + mib(plan_.buckets[index].bytes) + ") failed after " +
                      waited + ": " + message_of(error) + " -- a peer rank probably died or stalled (waits are bounded by --comm-timeout " +
                      std::to_string(options_.timeout.count() / 1000) + " s)");
  }
}

void GradientReducer::finish_backward() {
  const auto backward_end = Clock::now();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    armed_ = false;
    // A parameter that got no gradient this step contributes zeros, so every rank still
    // issues the same collectives (PyTorch would need find_unused_parameters=True).
    torch::NoGradGuard no_grad;
    for (std::size_t b = 0; b < buckets_.size(); ++b) {
      Bucket& bucket = buckets_[b];
      if (bucket.ready) continue;
      const GradientBucket& layout = plan_.buckets[b];
      for (std::size_t slot = 0; slot < layout.parameters.size(); ++slot)
        if (!bucket.filled[slot])
          bucket.flat.narrow(0, layout.offsets[slot], parameters_[layout.parameters[slot]].numel()).zero_();
      bucket.ready = true;
    }
    launch_ready_buckets();
  }
  StepComm step;
  step.backward_ms = ms_since_begin(backward_end);
  torch::NoGradGuard no_grad;
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    if (options_.stream_waits)
      buckets_[b].work->wait();  // the current stream waits; settle() keeps the bound
    else
      wait(b);
    Bucket& bucket = buckets_[b];
    const GradientBucket& layout = plan_.buckets[b];
    for (std::size_t slot = 0; slot < layout.parameters.size(); ++slot) {
      torch::Tensor& parameter = parameters_[layout.parameters[slot]];
      const torch::Tensor average = bucket.flat.narrow(0, layout.offsets[slot], parameter.numel()).view(parameter.sizes());
      torch::Tensor& grad = parameter.mutable_grad();
      // A gradient made here is laid out like its parameter (channels-last stays so), as
      // autograd lays them out: fused Adam refuses a gradient whose strides differ.
      if (!grad.defined()) grad = torch::empty_like(parameter, torch::MemoryFormat::Preserve);
      grad.copy_(average);
    }
    // Gloo's callback has fired by the time wait() returns; else (no callback) now bounds it.
    const std::int64_t completed_ns = bucket.completed_ns->load();
    const Clock::time_point completed = completed_ns != 0 ? Clock::time_point(Clock::duration(completed_ns)) : Clock::now();
    step.collectives.push_back({ms_since_begin(bucket.launch_time), ms_since_begin(completed), CollectiveKind::AllReduce,
                                plan_.buckets[b].bytes, static_cast<int>(b)});
    // Waited on the host above: done, so NCCL's events can be read.
    if (options_.device_timing && !options_.stream_waits)
      if (const auto ms = device_time_ms(*bucket.work)) step.collectives.back().device_ms = *ms;
  }
  step.finish_ms = ms_since_begin(Clock::now());
  if (options_.stream_waits) {
    // No host wait saw the exposed part; the step is recorded once settle() checked it.
    step.exposed_known = false;
    unsettled_step_ = step;
    unsettled_ = true;
    unsettled_measured_ = recorder_ && recorder_->measuring();
    return;
  }
  if (recorder_) recorder_->record(step);
}

}  // namespace gpubench
