#pragma once
// What one rank of a multi-rank config holds (docs/sharding.md, "Memory"), from the one
// process's estimate (memory_estimate.h) and the sizes of the model's units of sharding.
// The model state follows the ZeRO paper's (2+2+K)Ψ with fp32 parameters, 4+4+8 bytes a
// parameter (Ψ parameters, N ranks):
//   ddp-N    4Ψ + 4Ψ + 8Ψ                 + DDP's bucket buffers, a flat copy of every gradient (4Ψ)
//   zero1-N  4Ψ + 4Ψ + 8Ψ/N  + 4Ψ/N       (the reduce-scatter's gradient shard)
//   zero2-N  4Ψ + (4Ψ + 8Ψ)/N
//   fsdp-N   (4Ψ + 4Ψ + 8Ψ)/N
// plus what the reductions hold (three reduce-scatter inputs at once, each a flat copy of
// its unit's gradients: two in flight and the third allocated before the oldest is waited;
// zero2 and fsdp the root's whole gradients through backward and a unit's while they are
// copied; with accK, zero2 and fsdp each reduction's output beside the accumulated shard
// gradient) and fsdp's gathered parameters: the root unit through the step and two units at
// once (the one computing, the next prefetched); on a CPU one more unit, the copy Gloo's
// reduce-scatter makes. The activations, logits and workspace are a
// micro-batch's, as for one process. The checkpoint round trip's share (rank 0's) also
// holds the gathered whole state: Adam's moments (8Ψ) and, fsdp, the parameters (4Ψ).
// Before training, a sharded rank holds the whole unsharded model (4Ψ) and a unit's flat
// copy while it shards it (MemoryEstimate::startup): on its device for zero1-N, zero2-N and
// on a CPU; on the host for a GPU rank of fsdp-N (MemoryEstimate::host_model), whose device
// then holds only a unit at a time.
// Under ep-K the routed experts (Ψ_E) leave the mode's formula, which then counts Ψ - Ψ_E
// (and layers without their experts): a rank holds its K-th of them whole, 16Ψ_E/K, plus
// the flat copy their replica all-reduce makes (4Ψ_E/K) and the dispatch buffers (the rows
// it receives and regroups by expert, kept for backward). fsdp-N with N > K shards them over
// their N/K replicas (16Ψ_E/N) and gathers one layer's at a time (its parameters, then its
// gradients and their reduce-scatter input in backward). Every rank still builds the whole
// model before it frees the experts it does not hold: the start holds 4Ψ, on the host for a
// GPU rank.
#include <cstdint>

#include "core/config/config.h"
#include "workloads/memory_estimate.h"

namespace gpubench {

struct UnitSizes {
  std::int64_t parameters = 0;    // Ψ: the trainable parameters
  std::int64_t largest_unit = 0;  // the largest unit's (a decoder layer, a stage)
  std::int64_t root = 0;          // what no unit holds (embeddings, head, final norm)
  std::int64_t experts = 0;       // Ψ_E: every sparse layer's routed experts (ep-K splits them)
  std::int64_t layers = 0;        // every layer (largest_unit is their mean): ep-K takes Ψ_E out of it
  double dispatch_bytes = 0;      // ep-K: a micro-batch's routed rows a rank receives, over every sparse layer
};

// `single` (one process's estimate of the config's micro-batch, its states 16 bytes a
// parameter) as one rank of `config` holds it; `single` itself for a config of one process.
MemoryEstimate per_rank_estimate(const MemoryEstimate& single, const Config& config, const UnitSizes& units);

}  // namespace gpubench
