#include "harness/parallel/sharded_data_parallel.h"

#include <algorithm>
#include <cstdio>
#include <unordered_set>


#include "harness/parallel/arrival_hook.h"
#include "harness/parallel/gradient_reducer.h"

namespace gpubench {
namespace {

// The parameters to shard, each once: LibTorch's parameters() lists a tensor registered
// under two names twice, and a second slot would take its gradient's place. Those another
// sync owns (`left_out`) are not.
std::vector<torch::Tensor> trainable(const torch::nn::Module& module, const std::vector<torch::Tensor>& left_out) {
  std::vector<torch::Tensor> out;
  std::unordered_set<const c10::TensorImpl*> seen;
  for (const auto& parameter : left_out) seen.insert(parameter.unsafeGetTensorImpl());
  for (const auto& parameter : module.parameters())
    if (parameter.requires_grad() && seen.insert(parameter.unsafeGetTensorImpl()).second) out.push_back(parameter);
  return out;
}

}  // namespace

// Tells the run that a parameter's gradient is in .grad (after autograd accumulated it).
ShardedDataParallel::ShardedDataParallel(Model& model, CollectiveGroup& group, ShardedOptions options,
                                         std::shared_ptr<CommRecorder> recorder)
    : group_(group),
      options_(std::move(options)),
      reduce_group_(options_.reduce_group != nullptr ? *options_.reduce_group : group),
      recorder_(std::move(recorder)), parameters_(trainable(*model.module, options_.left_out)) {
  if (options_.mode != ParallelMode::Zero1 && options_.mode != ParallelMode::Zero2 && options_.mode != ParallelMode::Fsdp)
    throw std::invalid_argument("ShardedDataParallel: mode " + to_string(options_.mode) + " is not zero1, zero2 or fsdp");
  if (parameters_.empty()) throw std::invalid_argument("sharding: the model has no trainable parameter to shard");
  layout_ = plan_shard_layout(parameters_, unit_members(parameters_, model.units), options_.world_size);
  const bool fsdp = options_.mode == ParallelMode::Fsdp;
  slot_of_.resize(parameters_.size());
  for (std::size_t u = 0; u < layout_.units.size(); ++u) {
    const FlatUnit& unit = layout_.units[u];
    std::vector<torch::Tensor> members;
    for (std::size_t slot = 0; slot < unit.members.size(); ++slot) {
      members.push_back(parameters_[unit.members[slot]]);
      slot_of_[unit.members[slot]] = {u, slot};
    }
    const torch::Device device = options_.device.value_or(members.front().device());
    units_.emplace_back(unit, std::move(members), device, options_.rank, options_.world_size, /*keep_whole=*/!fsdp,
                        /*in_place_gather=*/options_.stream_waits);
  }
  for (std::size_t u = model_units(); u-- > 0;) reduce_order_.push_back(u);
  if (layout_.has_root) reduce_order_.push_back(root());
  ready_.assign(units_.size(), false);
  for (std::size_t i = 0; i < parameters_.size(); ++i)
    set_arrival_hook(parameters_[i], [this, unit = slot_of_[i].first, slot = slot_of_[i].second] { on_gradient(unit, slot); });
  if (fsdp && model.set_unit_hooks) {
    set_unit_hooks_ = model.set_unit_hooks;
    set_unit_hooks_(this);
  }
}

ShardedDataParallel::~ShardedDataParallel() {
  for (const auto& parameter : parameters_) set_arrival_hook(parameter, nullptr);
  if (set_unit_hooks_) set_unit_hooks_(nullptr);
}

std::vector<torch::Tensor> ShardedDataParallel::optimizer_parameters() const {
  std::vector<torch::Tensor> shards;
  for (const auto& unit : units_) shards.push_back(unit.shard());
  return shards;
}

double ShardedDataParallel::ms_since_step() const {
  return std::chrono::duration<double, std::milli>(Clock::now() - step_begin_).count();
}

void ShardedDataParallel::record_launch(const c10::intrusive_ptr<c10d::Work>& work, CollectiveKind kind,
                                        std::int64_t bytes, std::size_t unit) {
  step_.collectives.push_back({ms_since_step(), 0, kind, bytes, static_cast<int>(unit)});
  if (options_.device_timing) works_.push_back(work);
  auto completed = std::make_shared<std::atomic<std::int64_t>>(0);
  completions_.push_back(completed);
  completion_of_[work.get()] = completed;
  // Gloo completes a Work's future when the collective is done (where its Work has one);
  // else, and on NCCL (whose future completes at enqueue), the end of the wait stands in.
  if (options_.stream_waits) return;
  try {
    work->getFuture()->addCallback(
        [completed](c10::ivalue::Future&) { completed->store(Clock::now().time_since_epoch().count()); });
  } catch (const c10::Error&) {
    // Work::getFuture not implemented for this collective's Work: timed at its wait.
  }
}

void ShardedDataParallel::wait(c10d::Work& work, const char* what, std::size_t unit, HostWait host, Lane lane) {
  const auto start = Clock::now();
  // On NCCL the current stream waits for the collective and the host goes on (prefetch
  // works); the step's last such wait is checked on the host at the next step's start
  // (settle). Where the host reads the result next (the whole model gathered back) it
  // waits on the host, bounded: a dead peer is then a CommFailure naming the collective.
  const bool on_host = !options_.stream_waits || host == HostWait::Yes;
  try {
    if (on_host)
      wait_collective(group_, work, options_.timeout);
    else
      work.wait();
  } catch (const std::exception& error) {
    if (options_.on_failure) options_.on_failure();
    char waited[32];
    std::snprintf(waited, sizeof(waited), "%.1f s", std::chrono::duration<double>(Clock::now() - start).count());
    throw CommFailure("rank " + std::to_string(options_.rank) + " of " + std::to_string(options_.world_size) + ": " +
                      what + " of " + layout_.units[unit].name + " failed after " + waited + ": " + message_of(error) +
                      " -- a peer rank probably died or stalled (waits are bounded by --comm-timeout " +
                      std::to_string(options_.timeout.count() / 1000) + " s)");
  }
  const auto end = Clock::now();
  if (on_host) waited_ms_ += std::chrono::duration<double, std::milli>(end - start).count();
  if (!on_host) {
    last_waited_[static_cast<int>(lane)] = c10::intrusive_ptr<c10d::Work>::reclaim_copy(&work);
    last_waited_unit_[static_cast<int>(lane)] = unit;
  }
  if (const auto found = completion_of_.find(&work); found != completion_of_.end()) {
    std::int64_t none = 0;
    found->second->compare_exchange_strong(none, end.time_since_epoch().count());
    completion_of_.erase(found);
  }
}

void ShardedDataParallel::prefetch(std::size_t unit) {
  UnitShard& shard = units_[unit];
  if (shard.resident() || shard.gathering()) return;
  record_launch(shard.launch_gather(group_), CollectiveKind::AllGather, shard.whole_bytes(), unit);
  // fsdp's gather allocates the whole unit as it starts.
  gathered_bytes_ += shard.whole_bytes();
  peak_gathered_bytes_ = std::max(peak_gathered_bytes_, gathered_bytes_);
}

void ShardedDataParallel::ensure_gathered(std::size_t unit, HostWait host) {
  UnitShard& shard = units_[unit];
  if (shard.resident()) return;
  prefetch(unit);
  shard.finish_gather([&](c10d::Work& work) { wait(work, "the all-gather", unit, host); });
}

void ShardedDataParallel::release(std::size_t unit) {
  UnitShard& shard = units_[unit];
  if (!shard.resident() || options_.mode != ParallelMode::Fsdp) return;
  shard.release();
  gathered_bytes_ -= shard.whole_bytes();
}

void ShardedDataParallel::settle() {
  if (!unsettled_) return;
  unsettled_ = false;
  // NCCL ran each group's collectives in order on its stream: once each lane's last is
  // done, all are.
  for (int lane = 0; lane < 2; ++lane) {
    if (last_waited_[lane])
      wait(*last_waited_[lane], "the last step's last collective", last_waited_unit_[lane], HostWait::Yes, Lane(lane));
    last_waited_[lane].reset();
  }
  record_step(unsettled_measured_);
}

void ShardedDataParallel::record_step(bool measured) {
  // Every collective of the step is done by now (waited on the host, or after the last of
  // them on NCCL's one stream): their device times can be read.
  for (std::size_t i = 0; i < works_.size() && i < step_.collectives.size(); ++i)
    if (const auto ms = device_time_ms(*works_[i])) step_.collectives[i].device_ms = *ms;
  works_.clear();
  if (recorder_) recorder_->record(step_, measured);
}

void ShardedDataParallel::begin_forward(bool first) {
  if (first) {
    settle();  // the last step's bound, before this step's first collective
    step_ = StepComm();
    completions_.clear();
    works_.clear();
    completion_of_.clear();
    waited_ms_ = 0;
    step_begin_ = Clock::now();
    // zero1 keeps whole gradients until the next step, as DeepSpeed stage 1 does: their
    // zero_grad is here (the optimizer clears only the shards').
    if (options_.mode == ParallelMode::Zero1)
      for (auto& parameter : parameters_) parameter.mutable_grad().reset();
  }
  if (options_.mode != ParallelMode::Fsdp) return;
  if (layout_.has_root) ensure_gathered(root());
  if (model_units() > 0) prefetch(0);  // gathered while the root's embeddings compute
}

void ShardedDataParallel::before_forward(std::size_t index) {
  if (options_.mode != ParallelMode::Fsdp) return;
  ensure_gathered(index);
  if (index + 1 < model_units()) prefetch(index + 1);
}

torch::Tensor ShardedDataParallel::after_forward(std::size_t index, const torch::Tensor& output) {
  if (options_.mode != ParallelMode::Fsdp) return output;
  // The last unit stays gathered: its backward comes first.
  if (index + 1 < model_units()) release(index);
  if (output.requires_grad())
    output.register_hook([this, index](torch::Tensor grad) {
      pre_backward(index);
      return grad;
    });
  return output;
}

void ShardedDataParallel::pre_backward(std::size_t unit) {
  std::lock_guard<std::mutex> lock(mutex_);
  ensure_gathered(unit);
  if (unit > 0) prefetch(unit - 1);
}

void ShardedDataParallel::begin_backward(bool accumulated) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& unit : units_) unit.begin_backward();
  std::fill(ready_.begin(), ready_.end(), false);
  next_reduce_ = 0;
  in_flight_.clear();
  accumulated_ = accumulated;
  armed_ = true;
}

void ShardedDataParallel::on_gradient(std::size_t unit, std::size_t slot) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!armed_) return;  // a backward the trainer did not announce (zero1's earlier micro-batches)
  if (!units_[unit].gradient_arrived(slot)) return;
  ready_[unit] = true;
  // Its whole parameters are no longer needed: every use of them has run its backward.
  release(unit);
  launch_ready_reduces();
}

void ShardedDataParallel::launch_ready_reduces() {
  // In reduce_order_ only: every rank must issue its collectives in the same order.
  while (next_reduce_ < reduce_order_.size() && ready_[reduce_order_[next_reduce_]]) {
    const std::size_t unit = reduce_order_[next_reduce_++];
    UnitShard& shard = units_[unit];
    record_launch(shard.launch_reduce(reduce_group_, /*free_gradients=*/options_.mode != ParallelMode::Zero1),
                  CollectiveKind::ReduceScatter, shard.whole_bytes(), unit);
    in_flight_.push_back(unit);
    // Each reduce-scatter holds a flat copy of its unit's gradients until it ends: at most
    // kReducesInFlight at once, or zero2 and fsdp would hold every gradient again.
    while (in_flight_.size() > kReducesInFlight) finish_oldest_reduce();
  }
}

void ShardedDataParallel::finish_oldest_reduce(HostWait host) {
  const std::size_t unit = in_flight_.front();
  in_flight_.pop_front();
  units_[unit].finish_reduce([&](c10d::Work& work) { wait(work, "the reduce-scatter", unit, host, Lane::Reduce); },
                             /*accumulate=*/reduces_every_micro_batch() && accumulated_);
}

void ShardedDataParallel::finish_backward() {
  const double backward_end = ms_since_step();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    armed_ = false;
    // A unit whose gradients did not all arrive (a parameter unused this step) is reduced
    // with zeros for them, so every rank still issues the same collectives.
    for (std::size_t unit : reduce_order_) ready_[unit] = true;
    launch_ready_reduces();
  }
  // On the stream only, on NCCL (the next step's start checks them, bounded): the host
  // goes on into the optimizer while the last reductions run.
  while (!in_flight_.empty()) finish_oldest_reduce();
  for (std::size_t unit = 0; unit < units_.size(); ++unit) release(unit);  // the root; units left gathered
  step_.backward_ms = backward_end;
}

void ShardedDataParallel::after_optimizer_step() {
  if (options_.mode != ParallelMode::Fsdp) {
    // Every rank's updated shard into every rank's whole units (their parameters' storage).
    std::vector<std::size_t> order;
    for (std::size_t unit = 0; unit < units_.size(); ++unit) {
      record_launch(units_[unit].launch_gather(group_), CollectiveKind::AllGather, units_[unit].whole_bytes(), unit);
      order.push_back(unit);
    }
    for (std::size_t unit : order)
      units_[unit].finish_gather([&](c10d::Work& work) { wait(work, "the all-gather", unit); });
  }
  step_.finish_ms = ms_since_step();
  step_.waited_ms = waited_ms_;
  // On NCCL no host wait saw the exposed part: unknown, not the host's 0.
  step_.exposed_known = !options_.stream_waits;
  for (std::size_t i = 0; i < step_.collectives.size(); ++i) {
    const std::int64_t ns = completions_[i]->load();
    const double complete_ms =
        ns == 0 ? step_.finish_ms
                : std::chrono::duration<double, std::milli>(Clock::time_point(Clock::duration(ns)) - step_begin_).count();
    step_.collectives[i].complete_ms = std::max(step_.collectives[i].launch_ms, complete_ms);
  }
  if (options_.stream_waits) {
    // Settled at the next step's start (or by settle()): its collectives may still run.
    unsettled_ = true;
    unsettled_measured_ = recorder_ && recorder_->measuring();
    return;
  }
  record_step(recorder_ && recorder_->measuring());
}

}  // namespace gpubench
