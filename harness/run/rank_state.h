#pragma once
// What one rank of a multi-rank config (ddp-N, zero1-N, zero2-N, fsdp-N) measures of its
// memory at the end of training, and how a sharded run becomes a whole model again for
// the digest and the checkpoint round trip. Collective for the sharded modes: every rank
// calls it, in the same place.
#include <memory>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "harness/parallel/ddp_session.h"
#include "workloads/model.h"

namespace gpubench {

struct RankState {
  // This rank's entry in result["ddp"]["per_rank"]: {model_state: {parameters_bytes,
  // gradients_bytes, optimizer_bytes, total_bytes}, peak_gathered_bytes (sharded),
  // host_peak_rss_bytes, cuda_peak_allocated_bytes (cuda)}, and a sharded run's
  // parameter_digest (made as it gathered its units; none for one rank).
  nlohmann::json memory;
  // Sharded, `round_trip`, rank 0: Adam over the whole model with the gathered moments,
  // which the round trip saves in place of the shards' optimizer. Null otherwise.
  std::unique_ptr<torch::optim::Adam> whole_optimizer;
};

// Measures the model state this rank holds, then (sharded) gathers the whole model and
// hashes it, and for `round_trip` Adam's moments: kept on rank 0, the others hold one
// unit at a time.
RankState collect_rank_state(DdpSession& session, const Model& model, torch::optim::Adam& optimizer, bool round_trip,
                             const torch::Device& device);

// Rank 0's summary of the ranks' memory entries: {model_state_total_bytes_max,
// peak_gathered_bytes_max, host_peak_rss_bytes_max, cuda_peak_allocated_bytes_max}
// (each the largest over the ranks: what one device must hold).
nlohmann::json rank_memory_summary(const nlohmann::json& per_rank);

// How the checkpoint of a multi-rank config was made, for the row's checkpoint entry.
std::string checkpoint_state_note(const Config& config);

}  // namespace gpubench
