#include "harness/parallel/ddp_session.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unordered_set>

#include <torch/csrc/distributed/c10d/HashStore.hpp>

#include "harness/parallel/comm_volume.h"
#include "harness/parallel/host_built_model.h"
#include "harness/parallel/launch_store.h"
#include "harness/parallel/parameter_digest.h"
#include "harness/parallel/run_secret.h"

namespace gpubench {
namespace {

std::int64_t trainable_bytes(const std::vector<torch::Tensor>& parameters) {
  std::int64_t bytes = 0;
  for (const auto& parameter : parameters)
    if (parameter.requires_grad()) bytes += parameter.numel() * static_cast<std::int64_t>(parameter.element_size());
  return bytes;
}

// What comm_ms and overlap_share mean on NCCL (comm_stats.h).
constexpr const char* kNcclCommTiming =
    "each collective: its kernel's time on NCCL's stream (NCCL's own start and end events, Work::getDuration); comm_ms "
    "is their sum a step (one stream: they do not overlap), overlap_share is null (the compute stream's waits are not "
    "measured), and exposed_comm_ms null: every wait is the stream's, as PyTorch's DDP and FSDP2 wait, the bound kept by "
    "the next step's start; a collective without its events falls back to launch to the end of its stream wait";

std::string host_name() {
  char name[256] = {};
  return gethostname(name, sizeof(name) - 1) == 0 ? name : "?";
}

// The session's sync as the Trainer sees it. Fault injection for the dead-rank tests:
// GPUBENCH_DDP_KILL_RANK_AT_STEP=R:S makes rank R kill itself (SIGKILL, no cleanup, like an
// OOM kill) when the S-th announced backward begins.
class ForwardingSync final : public GradientSync {
 public:
  ForwardingSync(GradientSync& inner, int rank) : inner_(inner) {
    const char* spec = std::getenv("GPUBENCH_DDP_KILL_RANK_AT_STEP");
    int target = -1, step = -1;
    if (spec != nullptr && std::sscanf(spec, "%d:%d", &target, &step) == 2 && target == rank) kill_at_ = step;
  }
  void begin_forward(bool first) override { inner_.begin_forward(first); }
  void begin_backward(bool accumulated) override {
    if (kill_at_ >= 0 && step_++ == kill_at_) ::raise(SIGKILL);
    inner_.begin_backward(accumulated);
  }
  void finish_backward() override { inner_.finish_backward(); }
  void take_gradients() override { inner_.take_gradients(); }
  bool reduces_every_micro_batch() const override { return inner_.reduces_every_micro_batch(); }
  void after_optimizer_step() override { inner_.after_optimizer_step(); }

 private:
  GradientSync& inner_;
  int kill_at_ = -1;
  int step_ = 0;
};

}  // namespace

DdpSession::DdpSession(DdpSettings settings, LaunchEnv env)
    : settings_(std::move(settings)), env_(std::move(env)), backend_(backend_for(settings_.device)) {}

DdpSession::~DdpSession() {
  expert_sync_.reset();
  experts_.reset();
  sync_.reset();
  reducer_.reset();
  sharded_.reset();
  // A group with a failed or pending collective may block its destructor on a dead peer
  // until the backend's own timeout: leave it to the process exit instead.
  if (failed_) {
    (void)group_.release();
    (void)reduce_group_.release();
    (void)expert_groups_.experts.release();
    (void)expert_groups_.replicas.release();
  } else {
    shutdown_group(group_);
    shutdown_group(reduce_group_);
    shutdown_group(expert_groups_.experts);
    shutdown_group(expert_groups_.replicas);
  }
}

std::chrono::milliseconds DdpSession::timeout() const {
  return std::chrono::milliseconds(static_cast<std::int64_t>(settings_.comm_timeout_s * 1000));
}

std::unique_ptr<DdpSession> DdpSession::join(const DdpSettings& settings, const LaunchEnv& env) {
  const std::string who = "rank " + std::to_string(env.rank) + " of " + std::to_string(env.world_size);
  if (env.world_size != settings.world_size)
    throw std::runtime_error(to_string(settings.mode) + "-" + std::to_string(settings.world_size) + " needs " +
                             std::to_string(settings.world_size) + " ranks but this process was launched as " +
                             (env.distributed() ? env.describe() : std::string("a single process (no RANK/WORLD_SIZE)")));
  std::unique_ptr<DdpSession> session(new DdpSession(settings, env));
  if (auto reason = backend_unavailable_reason(session->backend_)) throw std::runtime_error(*reason);
  const auto timeout = session->timeout();
  c10::intrusive_ptr<c10d::Store> store;
  if (env.world_size == 1 && env.master_port == 0) {
    store = c10::make_intrusive<c10d::HashStore>();  // one rank, nobody to meet
  } else if (env.launcher_hosts_store || env.rank != 0) {
    store = connect_store(env.master_addr, env.master_port, timeout);
  } else {
    store = host_store(env.master_addr, env.master_port, timeout);
  }
  const char* prefix = std::getenv(launch_vars::kStorePrefix);
  const std::string scope = prefix != nullptr ? prefix : "gpubench/attempt" + std::to_string(env.restart_count);
  // The secret the launcher gave this rank (run_secret.h): what rank 0 reads of its peers
  // must have been written by them, not by whoever else reaches the store.
  session->numbers_.emplace(RankNumbersChannel{prefixed_store(scope + "/ddp/", store), scope,
                                               StoreSeal(run_secret_from(process_environment())), timeout});
  GroupRequest request;
  request.backend = session->backend_;
  request.store = prefixed_store(scope + "/" + session->backend_ + "/", store);
  request.rank = env.rank;
  request.world_size = env.world_size;
  request.timeout = timeout;
  request.all_ranks_local = env.master_is_loopback();
  try {
    session->group_ = make_process_group(request);
    if (settings.mode != ParallelMode::Ddp) {
      // The reduce-scatters' own group (ShardedOptions::reduce_group): on NCCL its own stream.
      GroupRequest reduces = request;
      reduces.store = prefixed_store(scope + "/reduce/" + session->backend_ + "/", store);
      session->reduce_group_ = make_process_group(reduces);
    }
    if (settings.expert_parallel > 1) session->expert_groups_ = join_expert_groups(request, store, scope, settings.expert_parallel);
  } catch (const std::exception& error) {
    // Not always a timeout (an NCCL version mismatch, a missing device): the bound is
    // stated, the cause is the error's own message.
    throw std::runtime_error(who + ": could not join the " + session->backend_ + " process group (joining waits at most " +
                             std::to_string(static_cast<int>(settings.comm_timeout_s)) + " s, --comm-timeout): " +
                             message_of(error));
  }
  return session;
}

void DdpSession::broadcast_from_rank0(torch::nn::Module& module) {
  if (env_.world_size == 1) return;  // one rank: nothing to agree on (a host-built model stays put)
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> tensors = module.parameters();
  for (const auto& buffer : module.buffers()) tensors.push_back(buffer);
  const auto broadcast = [this](torch::Tensor& values) {
    std::vector<at::Tensor> one = {values};
    wait_collective(*group_, *group_->broadcast(one), timeout());
  };
  for (auto& tensor : tensors) {
    try {
      // A model built on the host (Config::model_built_on_host) goes through the device in pieces.
      if (tensor.device() == settings_.device) broadcast(tensor);
      else through_device(tensor, settings_.device, broadcast);
    } catch (const std::exception& error) {
      mark_failed();
      throw std::runtime_error("rank " + std::to_string(env_.rank) + " of " + std::to_string(env_.world_size) +
                               ": broadcasting rank 0's parameters failed: " + message_of(error));
    }
  }
}

int DdpSession::agree_on_step_count(double last_warmup_ms, double budget_s, int min_steps, int max_steps) {
  std::vector<at::Tensor> slowest = {torch::full({1}, last_warmup_ms, torch::TensorOptions(torch::kFloat64).device(settings_.device))};
  c10d::AllreduceOptions max;
  max.reduceOp = c10d::ReduceOp::MAX;
  try {
    wait_collective(*group_, *group_->allreduce(slowest, max), timeout());
  } catch (const std::exception& error) {
    mark_failed();
    throw std::runtime_error("rank " + std::to_string(env_.rank) + " of " + std::to_string(env_.world_size) +
                             ": agreeing on the step count failed: " + message_of(error));
  }
  const double slowest_ms = slowest.front().item<double>();
  if (!(slowest_ms > 0)) return max_steps;
  const double fits = std::ceil(budget_s * 1000 / slowest_ms);
  return static_cast<int>(std::clamp(fits, static_cast<double>(min_steps), static_cast<double>(max_steps)));
}

GradientSync& DdpSession::attach(Model& model) {
  GradientSync& sync = attach_data_parallel(model);
  if (!experts_) return sync;
  expert_sync_ = std::make_unique<ExpertParallelSync>(sync, *experts_, settings_.accumulate);
  return *expert_sync_;
}

// ep-K's experts split over the group before the data-parallel mode lays out the rest.
std::vector<torch::Tensor> DdpSession::attach_experts(Model& model) {
  if (settings_.expert_parallel <= 1) return {};
  ExpertParallelOptions options;
  options.rank = env_.rank;
  options.world_size = env_.world_size;
  options.group_size = settings_.expert_parallel;
  options.timeout = timeout();
  options.on_failure = [this] { mark_failed(); };
  options.shard_over_replicas = settings_.mode == ParallelMode::Fsdp;
  options.device = settings_.device;
  options.in_place_gather = backend_ == "nccl";
  experts_ = std::make_unique<ExpertParallel>(model, *expert_groups_.experts, expert_groups_.replicas.get(), options,
                                              *recorder_);
  return experts_->all_expert_parameters();
}

GradientSync& DdpSession::attach_data_parallel(Model& model) {
  const std::vector<torch::Tensor> left_out = attach_experts(model);
  // A set: a large mixture of experts has tens of thousands of expert tensors.
  std::unordered_set<const c10::TensorImpl*> left_out_set;
  for (const auto& parameter : left_out) left_out_set.insert(parameter.unsafeGetTensorImpl());
  const auto is_left_out = [&](const torch::Tensor& parameter) { return left_out_set.count(parameter.unsafeGetTensorImpl()) > 0; };
  if (settings_.mode != ParallelMode::Ddp) {
    ShardedOptions options;
    options.mode = settings_.mode;
    options.rank = env_.rank;
    options.world_size = env_.world_size;
    options.timeout = timeout();
    options.stream_waits = backend_ == "nccl";
    options.device_timing = backend_ == "nccl";
    options.on_failure = [this] { mark_failed(); };
    options.left_out = left_out;
    options.reduce_group = reduce_group_.get();
    options.device = settings_.device;
    sharded_ = std::make_unique<ShardedDataParallel>(model, *group_, options, recorder_);
    // What no unit took (ep-K's experts, buffers), where a model built on the host has it.
    move_remaining_to(*model.module, settings_.device);
    sync_ = std::make_unique<ForwardingSync>(*sharded_, env_.rank);
    return *sync_;
  }
  // The whole rest, and this rank's experts, onto the device (a model built on the host).
  move_remaining_to(*model.module, settings_.device);
  std::vector<torch::Tensor> parameters;
  for (const auto& parameter : model.module->parameters())
    if (!is_left_out(parameter)) parameters.push_back(parameter);
  const auto cap = static_cast<std::int64_t>(settings_.bucket_mb * (1 << 20));
  ReducerOptions options;
  options.rank = env_.rank;
  options.world_size = env_.world_size;
  options.timeout = timeout();
  options.completion_callback_is_exact = backend_ == "gloo";
  options.device_timing = backend_ == "nccl";
  options.stream_waits = backend_ == "nccl";
  options.on_failure = [this] { mark_failed(); };
  reducer_ = std::make_unique<GradientReducer>(parameters, plan_buckets(parameters, std::max<std::int64_t>(cap, 1)),
                                               *group_, options, recorder_);
  sync_ = std::make_unique<ForwardingSync>(*reducer_, env_.rank);
  return *sync_;
}

std::vector<torch::Tensor> DdpSession::optimizer_parameters(const Model& model) const {
  if (sharded_) {
    std::vector<torch::Tensor> parameters = sharded_->optimizer_parameters();
    if (experts_) {
      const std::vector<torch::Tensor> held = experts_->optimizer_parameters();
      parameters.insert(parameters.end(), held.begin(), held.end());
    }
    return parameters;
  }
  if (reducer_ && experts_) {
    // The reduced parameters, then the experts this rank holds (not those it freed).
    std::vector<torch::Tensor> parameters = reducer_->parameters();
    parameters.insert(parameters.end(), experts_->local_parameters().begin(), experts_->local_parameters().end());
    return parameters;
  }
  return model.module->parameters();
}

void DdpSession::agree_on_found_inf(torch::Tensor& found_inf, bool read_on_host) {
  std::vector<at::Tensor> flag = {found_inf};
  c10d::AllreduceOptions max;
  max.reduceOp = c10d::ReduceOp::MAX;
  try {
    const auto work = group_->allreduce(flag, max);
    // When the host reads the flag next (the GradScaler deciding the step), it waits on the
    // host, bounded, on NCCL too: the read would block on the stream anyway, so polling
    // first costs nothing, and a dead peer is this named failure within --comm-timeout
    // instead of that read blocking until the watchdog aborts the process. When only a
    // fused kernel reads it, NCCL's wait orders the stream and the host goes on (the step's
    // bounded waits at its ends catch a dead peer).
    if (backend_ == "nccl" && !read_on_host)
      work->wait();
    else
      wait_collective(*group_, *work, timeout());
  } catch (const std::exception& error) {
    mark_failed();
    throw std::runtime_error("rank " + std::to_string(env_.rank) + " of " + std::to_string(env_.world_size) +
                             ": agreeing on the GradScaler's inf check failed: " + message_of(error));
  }
}

std::optional<DdpSession::Gathered> DdpSession::gather(const std::vector<double>& step_ms,
                                                       const std::vector<double>& losses, std::size_t shard_samples,
                                                       const std::vector<torch::Tensor>& parameters,
                                                       const nlohmann::json& rank_extra) {
  // NCCL: the last step, checked on the host (bounded) and recorded.
  if (sharded_) sharded_->settle();
  if (reducer_) reducer_->settle();
  nlohmann::json mine = {{"rank", env_.rank},
                         {"local_rank", env_.local_rank},
                         {"host", host_name()},
                         {"pid", static_cast<int>(getpid())},
                         {"device", settings_.device.str()},
                         {"shard_samples", shard_samples},
                         {"step_ms", step_ms},
                         {"losses", losses},
                         {"samples", recorder_->samples()}};
  // A sharded run hashes its whole model unit by unit as it gathers it (rank_extra's
  // digest). One rank has no other to compare with: its model is not hashed at all.
  const bool compared = env_.world_size > 1;
  if (compared)
    mine["parameter_digest"] = rank_extra.contains("parameter_digest") ? rank_extra.at("parameter_digest").get<std::string>()
                                                                        : parameter_digest(parameters);
  mine.update(rank_extra);
  if (experts_) mine["expert_token_bytes_per_step"] = experts_->describe()["all_to_all"]["token_bytes_per_step"];
  if (settings_.device.is_cuda())
    if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES")) mine["cuda_visible_devices"] = visible;
  try {
    post_rank_numbers(*numbers_, env_.rank, mine);
    if (env_.rank != 0) return std::nullopt;
    std::vector<nlohmann::json> ranks = collect_rank_numbers(*numbers_, env_.world_size, mine);
    Gathered gathered;
    // The global batch's loss per step: the ranks' shards are the same size, so the mean
    // of their mean losses is the mean over the global batch.
    gathered.global_losses.assign(losses.size(), 0.0);
    nlohmann::json digests = nlohmann::json::array();
    // ep-K: what every rank sent, summed (a rank's own share follows its routing).
    double expert_bytes = 0;
    for (auto& rank : ranks) {
      if (rank.contains("expert_token_bytes_per_step") && rank["expert_token_bytes_per_step"].is_number())
        expert_bytes += rank["expert_token_bytes_per_step"].get<double>();
      rank.erase("expert_token_bytes_per_step");
      if (compared) digests.push_back(rank.value("parameter_digest", ""));
      rank.erase("parameter_digest");
      const auto rank_losses = rank.at("losses").get<std::vector<double>>();
      for (std::size_t i = 0; i < gathered.global_losses.size() && i < rank_losses.size(); ++i)
        gathered.global_losses[i] += rank_losses[i] / env_.world_size;
      rank.erase("losses");
    }
    gathered.ddp = merge_rank_stats(ranks);
    nlohmann::json layout = reducer_ ? reducer_->plan().to_json() : nlohmann::json::object();
    gathered.ddp.update(layout);
    gathered.ddp["world_size"] = env_.world_size;
    gathered.ddp["mode"] = to_string(settings_.mode);
    gathered.ddp["backend"] = backend_;
    gathered.ddp["launcher"] = env_.launcher;
    gathered.ddp["results_authenticated"] = numbers_->seal.authenticates();
    gathered.ddp["results_authentication"] = numbers_->seal.describe(env_.launcher);
    gathered.ddp["comm_timeout_s"] = settings_.comm_timeout_s;
    Config volume_config;
    volume_config.parallel = settings_.mode;
    volume_config.world_size = env_.world_size;
    volume_config.accumulate = settings_.accumulate;
    gathered.ddp["comm_volume"] =
        comm_volume_json(gathered.ddp.value("collectives_per_step", nlohmann::json::object()), volume_config,
                         static_cast<double>(trainable_bytes(parameters)),
                         sharded_ ? static_cast<double>(sharded_->kept_for_backward_bytes()) : 0.0);
    if (sharded_ && backend_ == "gloo")
      gathered.ddp["comm_volume"]["backend_note"] =
          "Gloo's reduce-scatter (c10d, torch 2.11) all-reduces a flat copy of its input and keeps this rank's "
          "chunk: it moves an all-reduce's 2(N-1)/N of its size, not (N-1)/N, and holds one more copy; the bytes and "
          "the theory here count what the mode needs (NCCL's reduce-scatter)";
    if (experts_) {
      gathered.ddp["expert_parallel"] = experts_->describe();
      gathered.ddp["expert_parallel"]["all_to_all"]["token_bytes_per_step_all_ranks"] = expert_bytes;
    }
    if (sharded_) {
      gathered.ddp["sharding"] = sharded_->describe();
      // Its gradient reductions a step: one reduce-scatter a unit.
      nlohmann::json unit_bytes = nlohmann::json::array();
      for (const auto& unit : sharded_->layout().units) unit_bytes.push_back(unit.padded_numel * unit.element_bytes);
      gathered.ddp["buckets"] = unit_bytes.size();
      gathered.ddp["bucket_bytes"] = unit_bytes;
      gathered.ddp["wait"] = "the sharded mode's waits (sharding.waits): in forward, at the end of backward and after "
                             "the optimizer; each shows in the phase it happens in";
      gathered.ddp["comm_timing"] = backend_ == "gloo"
                                        ? "each collective: launch to its completion callback (host clock, from the "
                                          "step's first forward)"
                                        : kNcclCommTiming;
    } else {
      gathered.ddp["wait"] = backend_ == "gloo" ? "end of the backward phase: the optimizer phase is the optimizer alone"
                                                : "end of the backward phase, on the stream (the host goes on); the next "
                                                  "backward's start checks it on the host, bounded by --comm-timeout";
      gathered.ddp["comm_timing"] =
          backend_ == "gloo" ? "each bucket: all-reduce launch to its completion callback (host clock)" : kNcclCommTiming;
    }
    gathered.ddp["data"] = "DistributedSampler semantics: one permutation per epoch (seed + epoch), rank r takes every "
                           "world_size-th sample from r";
    gathered.ddp["parameter_sync"] = "parameters and buffers broadcast from rank 0 before the first step";
    gathered.ddp["final_parameter_digests"] = digests;
    gathered.ddp["final_parameters_identical"] =
        std::all_of(digests.begin(), digests.end(), [&](const nlohmann::json& d) { return d == digests.front(); });
    gathered.ddp["final_parameters_check"] =
        compared ? "each rank's whole trained model hashed (64-bit, 8-byte words) and compared by rank 0"
                 : "one rank: nothing to compare, the model was not hashed";
    return gathered;
  } catch (const std::exception& error) {
    mark_failed();
    throw std::runtime_error("rank " + std::to_string(env_.rank) + " of " + std::to_string(env_.world_size) +
                             ": gathering the ranks' numbers failed: " + message_of(error));
  }
}

}  // namespace gpubench
