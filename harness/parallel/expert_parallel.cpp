#include "harness/parallel/expert_parallel.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "core/stats/summary.h"
#include "harness/parallel/launch_store.h"
#include "harness/parallel/storage_bytes.h"

namespace gpubench {

// The model's side of the exchange over this rank's group of K, with the traffic counted
// per measured step (the recorder knows which steps are measured).
class ExpertParallel::GroupExchange final : public ExpertExchange {
 public:
  GroupExchange(CollectiveGroup& group, int rank, int size, std::chrono::milliseconds timeout, const CommRecorder& recorder,
                ExpertReplicaShards* shards)
      : group_(group), rank_(rank), size_(size), timeout_(timeout), recorder_(recorder), shards_(shards) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void before_experts(std::size_t layer) override {
    if (shards_ != nullptr) shards_->before_experts(layer);
  }
  torch::Tensor after_experts(std::size_t layer, const torch::Tensor& computed) override {
    return shards_ != nullptr ? shards_->after_experts(layer, computed) : computed;
  }

  torch::Tensor all_to_all(const torch::Tensor& rows, const std::vector<std::int64_t>& send,
                           const std::vector<std::int64_t>& receive) override {
    std::vector<std::int64_t> shape = rows.sizes().vec();
    shape[0] = std::accumulate(receive.begin(), receive.end(), std::int64_t{0});
    torch::Tensor arrived = torch::empty(shape, rows.options());
    torch::Tensor input = rows;  // alltoall_base takes non-const references
    const auto started = std::chrono::steady_clock::now();
    auto output_splits = receive, input_splits = send;
    const auto work = group_.alltoall_base(arrived, input, output_splits, input_splits);
    // Bounded on the host: the next step needs the rows (the counts are read on the host
    // right after anyway). NCCL's wait_collective polls, then orders the stream.
    wait_collective(group_, *work, timeout_);
    if (recorder_.measuring() && !steps_.empty()) {
      Step& step = steps_.back();
      ++step.calls;
      const std::int64_t bytes = rows.numel() * static_cast<std::int64_t>(rows.element_size());
      (rows.scalar_type() == torch::kInt64 ? step.count_bytes : step.token_bytes) += bytes;
      step.ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    }
    return arrived;
  }

  void begin_step() {
    if (recorder_.measuring()) steps_.emplace_back();
  }

  struct Step {
    int calls = 0;
    std::int64_t token_bytes = 0, count_bytes = 0;
    double ms = 0;
  };
  const std::vector<Step>& steps() const { return steps_; }

 private:
  CollectiveGroup& group_;
  int rank_, size_;
  std::chrono::milliseconds timeout_;
  const CommRecorder& recorder_;
  ExpertReplicaShards* shards_;  // fsdp's experts sharded over their replicas, or null
  std::vector<Step> steps_;
};

ExpertParallel::ExpertParallel(Model& model, CollectiveGroup& experts_group, CollectiveGroup* replicas,
                               ExpertParallelOptions options, const CommRecorder& recorder)
    : set_exchange_(model.set_expert_exchange), group_(experts_group), replicas_(replicas), options_(std::move(options)) {
  if (model.expert_parameters.empty() || !model.set_expert_exchange)
    throw std::invalid_argument("expert parallel needs a mixture of experts, and this model has no experts");
  const int k = options_.group_size;
  experts_ = static_cast<std::int64_t>(model.expert_parameters.front().size());
  if (k < 1 || experts_ % k != 0)
    throw std::invalid_argument("expert parallel: " + std::to_string(experts_) + " experts a layer do not split over " +
                                std::to_string(k) + " ranks");
  place_ = options_.rank % k;
  const std::int64_t per_rank = experts_ / k;
  std::vector<std::vector<torch::Tensor>> held_per_layer;
  for (const auto& layer : model.expert_parameters) {
    auto& held = held_per_layer.emplace_back();
    for (std::int64_t e = 0; e < static_cast<std::int64_t>(layer.size()); ++e)
      for (const auto& parameter : layer[static_cast<std::size_t>(e)]) {
        all_.push_back(parameter);
        holder_.push_back(static_cast<int>(e / per_rank));
        if (e / per_rank == place_) {
          local_.push_back(parameter);
          held.push_back(parameter);
        } else {
          parameter.set_requires_grad(false);  // never computed here: no gradient, no optimizer state
          free_storage_bytes(parameter);  // its shape stays, as fsdp's unit members' do
        }
      }
  }
  if (options_.shard_over_replicas && replicas_ != nullptr && options_.world_size > k) {
    ReplicaShardOptions sharding;
    sharding.replica_rank = options_.rank / k;
    sharding.replicas = options_.world_size / k;
    sharding.world_size = options_.world_size;
    sharding.device = options_.device;
    sharding.in_place_gather = options_.in_place_gather;
    sharding.timeout = options_.timeout;
    sharding.on_failure = options_.on_failure;
    sharding.rank = options_.rank;
    shards_ = std::make_unique<ExpertReplicaShards>(held_per_layer, *replicas_, sharding);
  }
  exchange_ = std::make_shared<GroupExchange>(group_, place_, k, options_.timeout, recorder, shards_.get());
  set_exchange_(exchange_);
}

ExpertParallel::~ExpertParallel() { set_exchange_(nullptr); }

void ExpertParallel::begin_step() { exchange_->begin_step(); }

void ExpertParallel::begin_backward(bool accumulated) {
  if (shards_) shards_->begin_backward(accumulated);
}

void ExpertParallel::finish_backward(bool last_micro_batch) {
  if (shards_)
    shards_->finish_backward();
  else if (last_micro_batch)
    reduce_gradients();
}

std::vector<torch::Tensor> ExpertParallel::optimizer_parameters() const {
  return shards_ ? shards_->optimizer_parameters() : local_;
}

std::vector<torch::Tensor> ExpertParallel::held_values(const std::function<torch::Tensor(const torch::Tensor&)>& state_of) {
  std::vector<torch::Tensor> values;
  for (const auto& parameter : optimizer_parameters()) values.push_back(state_of(parameter));
  return shards_ ? shards_->gather_values(values) : values;
}

void ExpertParallel::reduce_gradients() {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> gradients;
  for (const auto& parameter : local_) {
    if (!parameter.grad().defined()) parameter.mutable_grad() = torch::zeros_like(parameter);
    gradients.push_back(parameter.grad());
  }
  if (gradients.empty()) return;
  // One flat buffer: one all-reduce for every held expert (N/K ranks hold the same ones).
  torch::Tensor flat = torch::cat([&] {
    std::vector<torch::Tensor> views;
    for (const auto& g : gradients) views.push_back(g.reshape({-1}));
    return views;
  }());
  if (replicas_ != nullptr) {
    std::vector<at::Tensor> one = {flat};
    try {
      wait_collective(*replicas_, *replicas_->allreduce(one), options_.timeout);
    } catch (const std::exception& error) {
      if (options_.on_failure) options_.on_failure();
      throw std::runtime_error("rank " + std::to_string(options_.rank) + ": reducing the experts' gradients over their " +
                               "replicas failed: " + message_of(error));
    }
  }
  flat.div_(options_.world_size);
  std::int64_t offset = 0;
  for (auto& g : gradients) {
    g.copy_(flat.narrow(0, offset, g.numel()).view_as(g));
    offset += g.numel();
  }
}

void ExpertParallel::share_from_holders(const std::vector<torch::Tensor>& values) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::vector<at::Tensor> one = {values[i]};
    c10d::BroadcastOptions from;
    from.rootRank = holder_.at(i);
    try {
      wait_collective(group_, *group_.broadcast(one, from), options_.timeout);
    } catch (const std::exception& error) {
      if (options_.on_failure) options_.on_failure();
      throw std::runtime_error("rank " + std::to_string(options_.rank) + ": gathering the experts failed: " + message_of(error));
    }
  }
}

void ExpertParallel::gather_experts(ParameterDigest* digest) {
  torch::NoGradGuard no_grad;
  set_exchange_(nullptr);
  if (shards_) shards_->gather_all();  // the held experts whole, from their replicas' shards
  for (std::size_t i = 0; i < all_.size(); ++i)
    if (holder_[i] != place_) {
      allocate_storage_bytes(all_[i], static_cast<std::size_t>(all_[i].numel()) * all_[i].element_size());
      all_[i].set_requires_grad(true);  // a whole model's parameter again
    }
  share_from_holders(all_);
  if (digest != nullptr)
    for (const auto& parameter : all_) digest->add(parameter);
}

nlohmann::json ExpertParallel::describe() const {
  std::vector<double> calls, token_bytes, count_bytes, ms;
  for (const auto& step : exchange_->steps()) {
    calls.push_back(step.calls);
    token_bytes.push_back(static_cast<double>(step.token_bytes));
    count_bytes.push_back(static_cast<double>(step.count_bytes));
    ms.push_back(step.ms);
  }
  const auto median = [](const std::vector<double>& values) {
    return values.empty() ? nlohmann::json() : nlohmann::json(summarize(values).median);
  };
  // Bytes as a mean a step: a rank's share changes with the routing step by step, and the
  // ranks' means add up to the group's total exactly (medians would not).
  const auto mean = [](const std::vector<double>& values) {
    return values.empty() ? nlohmann::json() : nlohmann::json(std::accumulate(values.begin(), values.end(), 0.0) / values.size());
  };
  nlohmann::json description = {{"group_size", options_.group_size},
          {"groups", options_.world_size / options_.group_size},
          {"replica_group_size", options_.world_size / options_.group_size},
          {"experts_per_layer", experts_},
          {"experts_per_rank", experts_ / options_.group_size},
          {"local_expert_parameters", std::accumulate(local_.begin(), local_.end(), std::int64_t{0},
                                                      [](std::int64_t n, const torch::Tensor& p) { return n + p.numel(); })},
          {"all_to_all",
           {{"calls_per_step", median(calls)},
            {"token_bytes_per_step", mean(token_bytes)},  // rank 0's; token_bytes_per_step_all_ranks: every rank's
            {"count_bytes_per_step", mean(count_bytes)},
            {"ms_per_step", median(ms)},
            {"bytes", "what a rank sent, a mean over the measured steps (token_bytes_per_step: rank 0's; _all_ranks: every rank's, summed): each "
                      "sparse layer's routed rows (token x top-k) out, the rows it computed for others back, and the "
                      "gradients of both the other way in backward, rows to itself included (nccl-tests' all-to-all "
                      "size); a rank's share follows the routing. counts: each expert's row count, before each "
                      "forward dispatch"},
            {"timing", "host clock, launch to the bounded wait's end (every exchange blocks: the next op needs "
                       "its rows)"}}},
          {"gradient_reduction",
           "each held expert's gradient (already the sum over its group's tokens) summed over the ranks holding the "
           "same experts and divided by N: the average ddp-N takes"},
          {"sharded_over_replicas", shards_ ? shards_->describe() : nlohmann::json(nullptr)}};
  return description;
}

ExpertGroups join_expert_groups(const GroupRequest& world, const c10::intrusive_ptr<c10d::Store>& store,
                                const std::string& scope, int group_size) {
  ExpertGroups groups;
  GroupRequest request = world;
  const int group = world.rank / group_size, place = world.rank % group_size;
  request.rank = place;
  request.world_size = group_size;
  request.store = prefixed_store(scope + "/ep/experts" + std::to_string(group) + "/" + world.backend + "/", store);
  groups.experts = make_process_group(request);
  if (world.world_size > group_size) {
    request.rank = group;
    request.world_size = world.world_size / group_size;
    request.store = prefixed_store(scope + "/ep/replicas" + std::to_string(place) + "/" + world.backend + "/", store);
    groups.replicas = make_process_group(request);
  }
  return groups;
}

void ExpertParallelSync::begin_forward(bool first) {
  if (first) {
    micro_ = 0;
    experts_.begin_step();
  }
  ++micro_;
  inner_.begin_forward(first);
}

void ExpertParallelSync::begin_backward(bool accumulated) {
  inner_.begin_backward(accumulated);
  experts_.begin_backward(accumulated);
}

void ExpertParallelSync::finish_backward() {
  inner_.finish_backward();
  // Unsharded, the experts' .grad accumulate over micro-batches as DDP's do: reduced once,
  // after the last.
  experts_.finish_backward(micro_ >= accumulate_);
}

}  // namespace gpubench
