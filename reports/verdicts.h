#pragma once
#include <nlohmann/json.hpp>

namespace gpubench {

// Why a configuration is as fast as it is, in plain words, from its own measurements.
// Rules, first match wins (thresholds are the constants in verdicts.cpp):
//   oversubscribed   more CPU ranks than cores (--oversubscribe)
//   disturbed        other processes took the CPU during the steps (row["interference"],
//                    by core/device/host_interference.h's thresholds); the evidence keeps
//                    what the phases alone read
//   input-bound      data phase >= 25% of the median step
//   h2d-bound        host-to-device copy phase >= 20%
//   comm-bound       DDP communication not hidden behind backward >= 25% of the step
//   launch-bound     CUDA: GPU busy < 50% of the step (CUPTI) with many small kernels
//   optimizer-bound  optimizer phase >= 30%
//   compute-bound    CUDA: GPU busy >= 85%; CPU: forward + backward >= 70%
//   balanced         none of the above
// Each verdict carries its evidence (the numbers) and a suggestion where one exists.
nlohmann::json bottleneck_verdict(const nlohmann::json& row);

// The row's interference object when its probe judged the machine disturbed
// (core/device/host_interference.h decides, by its stated thresholds), else nullptr: what
// the verdict, the row's warnings and compare read.
const nlohmann::json* disturbance(const nlohmann::json& row);

// Pitfalls seen in one row: loss that did not fall, parameters or batches off the
// configured device, GradScaler skipping many steps, DataParallel on one device, a noisy
// measurement (CV > 10%), a disturbed machine (row["interference"]["warning"]).
nlohmann::json row_warnings(const nlohmann::json& row);

// Adds "verdict" and "warnings" to every ok row, plus cross-row pitfalls (AMP loss not
// within tolerance of the fp32 row on the same seed and data).
void annotate_results(nlohmann::json& results);

}  // namespace gpubench
