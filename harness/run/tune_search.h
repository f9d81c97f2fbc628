#pragma once
// `gpubench tune`'s search, apart from how a candidate is run (a measure function), so it
// is tested with synthetic rows: greedy forward selection of techniques over the rule
// table, then micro-batch doubling within a memory budget, then the finalists measured
// again with the full stopping rule.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/config.h"
#include "core/config/technique_rules.h"

namespace gpubench {

// Short: a candidate on a short window (the quick preset's); Final: the run's own preset.
enum class TuneWindow { Short, Final };

// Runs one config at a micro-batch and returns its result row (status ok, skipped or failed
// with a reason: an out-of-memory row included; never throws for a failed config).
using TuneMeasure = std::function<nlohmann::json(const Config& config, std::int64_t batch_size, TuneWindow window)>;

struct TuneOptions {
  std::string workload;
  WorkloadTraits traits;
  DeviceKind device = DeviceKind::Cpu;
  // The parts greedy selection may add, in the order they are tried ("amp-bf16",
  // "adam-fused", "ddp-2", ...); a precision replaces the stack's precision.
  std::vector<std::string> parts;
  std::int64_t default_batch = 1;
  std::int64_t max_batch = 1;        // the dataset's samples (per rank): doubling stops there
  double memory_budget_bytes = 0;    // peak memory a candidate may use; 0: no budget
  int finalists = 2;
  // Why this machine cannot run a config (capability and Machine rules), if it cannot.
  std::function<std::optional<std::string>(const Config&)> skip_reason;
  // Why the search must stop now ("interrupted (SIGINT)"), or "" to go on: asked before and
  // after each candidate, so a signal ends the search after the candidate it stopped.
  std::function<std::string()> stop_reason;
};

struct TuneStep {
  std::string phase;  // "greedy", "batch", "final"
  int round = 0;      // greedy round (0 = the plain config), batch doubling or final index
  Config config;
  std::int64_t batch_size = 0;
  nlohmann::json row;
  std::string outcome;  // "kept", "best of round", "over budget", "failed: ...", ...
};

struct TuneResult {
  std::vector<TuneStep> steps;  // every measurement, in order
  std::optional<std::size_t> winner, runner_up;  // indices into steps (final measurements)
  double margin = 0;                             // winner's samples/s over the runner-up's
  std::optional<std::pair<double, double>> margin_ci95;  // none when a row's spread is unknown
  std::string summary;  // one line a user reads
  // Why the search ended early (TuneOptions::stop_reason's text), "" when it finished: the
  // steps are then what it measured until then, and there is no winner.
  std::string stopped;
};

// The peak memory of a row for the budget: the device allocator's reserved peak on a GPU,
// the training steps' host peak on the CPU (the process peak without them else).
double tune_row_memory(const nlohmann::json& row);

// With no usable candidate the summary says why: none trained, or none fitted the memory
// budget (with the smallest peak seen). A plain config over the budget is not doubled.
TuneResult tune_search(const TuneOptions& options, const TuneMeasure& measure);

}  // namespace gpubench
