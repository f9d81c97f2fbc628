#pragma once
// How many bytes a data-parallel step moves, measured and in theory. Each collective's
// size counts as nccl-tests counts it (the all-reduced buffer, the all-gather's output,
// the reduce-scatter's input) and its bus bytes as nccl-tests' busbw does: a ring
// all-reduce moves 2(N-1)/N of its size through every rank, an all-gather or a
// reduce-scatter (N-1)/N. With P the parameter bytes, K the micro-batches of a step:
//   ddp-N    all-reduce P once a step                          2(N-1)/N P
//   zero1-N  reduce-scatter P once, all-gather P after the step 2(N-1)/N P  (DDP's volume)
//   zero2-N  reduce-scatter P every micro-batch, all-gather P  (K+1)(N-1)/N P
//   fsdp-N   per micro-batch all-gather P in forward and again in backward but for what
//            stays gathered for it (the root unit and the last unit, R: FSDP2's root and
//            torchtitan's last layer), reduce-scatter P once
//                                                              K(3P - R)(N-1)/N  (1.5x DDP's at K = 1, R = 0)
#include <cstdint>

#include <nlohmann/json.hpp>

#include "core/config/config.h"

namespace gpubench {

// The bus bytes a step of `config` moves in theory through each rank, for `parameter_bytes`
// of trainable parameters of which fsdp keeps `kept_for_backward_bytes` gathered from
// forward to backward; 0 for one rank or a mode without collectives.
double theory_bus_bytes(const Config& config, double parameter_bytes, double kept_for_backward_bytes = 0);

// `per_kind`: a rank's collectives of one step, {kind: {count, bytes}} (comm_stats.h).
// Returns {per_kind: {kind: {count, bytes, bus_bytes}}, bus_bytes, theory_bus_bytes,
// measured_over_theory (null with one rank), over_ddp (the theory against ddp-N's), convention}.
nlohmann::json comm_volume_json(const nlohmann::json& per_kind, const Config& config, double parameter_bytes,
                                double kept_for_backward_bytes = 0);

}  // namespace gpubench
