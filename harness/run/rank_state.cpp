#include "harness/run/rank_state.h"

#include <algorithm>

#include "core/device/cuda_memory_stats.h"
#include "harness/parallel/expert_checkpoint.h"
#include "harness/parallel/parameter_digest.h"
#include "harness/parallel/sharded_checkpoint.h"
#include "harness/profile/host_memory.h"

namespace gpubench {

RankState collect_rank_state(DdpSession& session, const Model& model, torch::optim::Adam& optimizer, bool round_trip,
                             const torch::Device& device) {
  RankState state;
  // Before the whole model is gathered back: what this rank held while it trained.
  state.memory["model_state"] = model_state_bytes(model.module->parameters(), optimizer).to_json();
  state.memory["host_peak_rss_bytes"] = peak_rss_bytes();
  if (device.is_cuda())
    state.memory["cuda_peak_allocated_bytes"] = cuda_allocator_stats(device.index() < 0 ? 0 : device.index()).peak_allocated_bytes;
  const bool keep = round_trip && session.rank() == 0;
  ExpertParallel* experts = session.expert_parallel();
  if (ShardedDataParallel* sharded = session.sharded()) {
    state.memory["peak_gathered_bytes"] = sharded->peak_gathered_bytes();
    // Only rank 0 keeps the whole model and optimizer, for its round trip; with several
    // ranks every rank hashes the model as it gathers it, unit by unit. One rank has
    // nobody to compare with: it gathers only for the round trip, and hashes nothing.
    const bool compared = session.world_size() > 1;
    ParameterDigest digest;
    if (round_trip || compared) sharded->gather_whole_model(keep, compared ? &digest : nullptr);
    // ep-K's experts after the units, into the same digest: every rank then holds them all.
    if (experts != nullptr) experts->gather_experts(compared ? &digest : nullptr);
    if (compared) state.memory["parameter_digest"] = digest.hex();
    if (round_trip) state.whole_optimizer = consolidated_adam(*sharded, optimizer, keep);
  } else if (experts != nullptr) {
    // Every expert on every rank again: the session's digest then covers the whole model.
    experts->gather_experts();
  }
  if (experts != nullptr && round_trip)
    state.whole_optimizer = whole_adam_with_experts(*experts, model, optimizer, state.whole_optimizer.get(), keep);
  return state;
}

nlohmann::json rank_memory_summary(const nlohmann::json& per_rank) {
  std::int64_t states = 0, gathered = 0, rss = 0, cuda = 0;
  for (const auto& rank : per_rank) {
    states = std::max(states, rank.value("model_state", nlohmann::json::object()).value("total_bytes", std::int64_t{0}));
    gathered = std::max(gathered, rank.value("peak_gathered_bytes", std::int64_t{0}));
    rss = std::max(rss, rank.value("host_peak_rss_bytes", std::int64_t{0}));
    cuda = std::max(cuda, rank.value("cuda_peak_allocated_bytes", std::int64_t{0}));
  }
  return {{"model_state_total_bytes_max", states},
          {"peak_gathered_bytes_max", gathered},
          {"host_peak_rss_bytes_max", rss},
          {"cuda_peak_allocated_bytes_max", cuda}};
}

std::string checkpoint_state_note(const Config& config) {
  if (config.expert_parallel > 1)
    return "full state gathered on every rank (each expert's parameters and Adam moments broadcast by the rank that held "
           "it" + std::string(config.sharded() ? ", the rest all-gathered from the shards" : "") +
           "), saved and reloaded by rank 0 as one model and one optimizer";
  if (config.sharded())
    return "full state gathered on every rank (parameters and Adam's moments all-gathered from the shards, as FSDP's "
           "full_state_dict), saved and reloaded by rank 0 as one model and one optimizer";
  return "rank 0's replica (every rank holds the same parameters and optimizer state)";
}

}  // namespace gpubench
