#pragma once
// Parts of a config's result row that need only what they are given (the config runner
// assembles the row from them and from what it measured).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/config.h"
#include "core/config/run_settings.h"
#include "harness/profile/cupti_collector.h"
#include "workloads/workload.h"

namespace gpubench {

// {first, last, curve, first_quarter_mean, last_quarter_mean, fell, warmup_steps}.
nlohmann::json loss_json(const std::vector<double>& losses, int warmup);

// Why an --overhead result has no CUPTI level, or why its CUPTI level measured nothing ("":
// it measured).
std::string cupti_overhead_note(const Config& config, const RunSettings& settings, const CuptiCollector* cupti);

// Model FLOPs of the workload (workloads/model_flops.h): per sample, and per step of the
// global batch (so --batch-size changes it), with their convention.
nlohmann::json flops_json(const Workload& workload, double global_batch);

// --oversubscribe: a CPU config of more ranks than this machine's cores, its ranks'
// threads time-sliced: {ranks, cores, note}; nullopt for any other config.
std::optional<nlohmann::json> oversubscribed_json(const Config& config);

}  // namespace gpubench
