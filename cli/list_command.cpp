#include "cli/list_command.h"

#include <algorithm>
#include <iostream>

#include <fmt/format.h>

#include "core/io/json_text.h"
#include "core/io/printable.h"
#include "harness/run/checkpoint_plan.h"
#include "harness/run/config_sizes.h"
#include "harness/run/memory_check.h"

namespace gpubench {
namespace {

// What a config will run, known before running: a fixed count, or the preset's budget of
// measured time (DDP ranks agree on a count for it after warm-up).
struct ExpectedSteps {
  bool budgeted = false;
  double budget_s = 0;  // of measuring, when budgeted
  std::string text;
};
ExpectedSteps expected_steps(const Config& config, const RunSettings& settings) {
  ResolvedSizes sizes = resolve_sizes(config, settings);
  sizes.warmup = warmup_steps_for(config, sizes.warmup);
  if (!config.multi_rank() && !sizes.stopping.exact)
    return {true, sizes.stopping.budget_s,
            fmt::format("{} warm-up + {}-{} steps, at most ~{:g} s measured", sizes.warmup,
                              sizes.stopping.min_steps, sizes.stopping.max_steps, sizes.stopping.budget_s)};
  const StoppingRule ranks = fixed_count_for_ranks(sizes.stopping, settings.overhead);
  if (sizes.stopping.exact || settings.overhead || sizes.warmup == 0)
    return {false, 0, fmt::format("{} warm-up + {} steps", sizes.warmup, ranks.max_steps)};
  return {true, sizes.stopping.budget_s,
          fmt::format("{} warm-up + {}-{} steps, the ranks' agreed count for ~{:g} s", sizes.warmup,
                            ranks.min_steps, ranks.max_steps, sizes.stopping.budget_s)};
}

// One config of --list, planned once: its line of the table and its object of --format
// json are both made from it.
struct ListRow {
  Config config;
  std::optional<std::string> reason;  // why it does not run here
  ExpectedSteps expected;
  std::string round_trip;  // why the checkpoint round trip is left out, "" when it is not
  std::optional<double> estimate_bytes;  // training_memory_bytes: the workload's estimate
  std::optional<GpuFit> gpu_fit;         // --assume-gpus: a CUDA config's plan on those GPUs
};

ListRow list_row(const Config& config, const MachineCapabilities& machine,
                 const std::map<std::string, std::string>& left_out, const RunSettings& settings,
                 const std::optional<AssumedGpus>& assumed) {
  // A group's choice this machine leaves out says so first (how to ask for it).
  const auto found = left_out.find(config.id());
  ListRow row{config, found != left_out.end() ? found->second : skip_reason(config, machine, settings),
              expected_steps(config, settings), "", training_memory_bytes(config, settings), std::nullopt};
  if (assumed && config.device == DeviceKind::Cuda && !row.reason) {
    row.gpu_fit = plan_gpu_fit(config, settings, *assumed);
    row.estimate_bytes = row.gpu_fit->estimate_bytes;  // per GPU
    return row;  // a plan: whether the round trip fits is decided where it runs
  }
  // Only what memory decides: which config of a workload makes a `once` round trip is known
  // as the run goes.
  if (!row.reason && settings.checkpoint_policy != CheckpointPolicy::Off)
    row.round_trip = checkpoint_skip_reason(config, settings, machine, {});
  return row;
}

// --list --format json's object for one config.
nlohmann::json list_row_json(const ListRow& row) {
  nlohmann::json out = {{"id", row.config.id()},
                        {"runs_here", !row.reason},
                        {"fits", !row.reason},
                        {"reason", row.reason.value_or("")},
                        {"estimate_bytes", row.estimate_bytes ? nlohmann::json(*row.estimate_bytes) : nlohmann::json()},
                        {"steps", row.reason ? nlohmann::json() : nlohmann::json(row.expected.text)},
                        {"checkpoint_round_trip_left_out", row.round_trip}};
  if (row.gpu_fit) {
    // A plan for GPUs this machine does not have: nothing runs here, "fits" is the plan's.
    out["runs_here"] = false;
    out["fits"] = row.gpu_fit->fits;
    out["reason"] = row.gpu_fit->fits ? "" : row.gpu_fit->text;
    out["plan"] = row.gpu_fit->text;
    out["micro_batch"] = row.gpu_fit->micro_batch;
    out["fits_at_micro_batch"] = row.gpu_fit->fits_at ? nlohmann::json(*row.gpu_fit->fits_at) : nlohmann::json();
    if (row.gpu_fit->host_model_bytes > 0) out["host_model_bytes"] = row.gpu_fit->host_model_bytes;
  }
  return out;
}

// --list --assume-gpus as a table: each config's line, then how many fit.
int print_plan(const std::vector<ListRow>& rows, const AssumedGpus& gpus) {
  std::size_t width = 0, fit = 0, planned = 0;
  for (const ListRow& row : rows) width = std::max(width, row.config.id().size());
  for (const ListRow& row : rows) {
    const std::string what = row.reason ? "skip: " + *row.reason
                             : row.gpu_fit ? "plan: " + row.gpu_fit->text
                                           : "runs here (CPU): " + row.expected.text;
    std::cout << one_line(fmt::format("{:<{}} {}", row.config.id(), width, what)) << "\n";
    if (row.gpu_fit && row.gpu_fit->estimate_bytes) {
      ++planned;
      fit += row.gpu_fit->fits ? 1 : 0;
    }
  }
  std::cout << fmt::format("plan for {} (nothing ran): {} of {} CUDA config(s) with an estimate fit {:.0f}% of a GPU; "
                           "each rank of a multi-rank config on a GPU of its own.\n",
                           gpus.text, fit, planned, kPlannedGpuShare * 100);
  return 0;
}

}  // namespace

int print_list(const std::vector<Config>& configs, const MachineCapabilities& machine,
               const std::map<std::string, std::string>& left_out, const RunSettings& settings, const std::string& format,
               const std::optional<AssumedGpus>& assumed) {
  std::vector<ListRow> rows;
  for (const auto& config : configs) rows.push_back(list_row(config, machine, left_out, settings, assumed));
  if (format == "json") {
    nlohmann::json list = nlohmann::json::array();
    for (const ListRow& row : rows) list.push_back(list_row_json(row));
    std::cout << json_text(list, 2) << "\n";
    return 0;
  }
  if (assumed) return print_plan(rows, *assumed);
  int budgeted = 0, fixed = 0;
  double budget_s = 0;
  std::size_t width = 0;
  for (const auto& config : configs) width = std::max(width, config.id().size());
  for (const ListRow& row : rows) {
    if (row.reason) {
      std::cout << one_line(fmt::format("{:<{}} skip: {}", row.config.id(), width, *row.reason)) << "\n";
      continue;
    }
    std::cout << one_line(fmt::format("{:<{}} runs here: {}{}", row.config.id(), width, row.expected.text,
                                      row.round_trip.empty() ? "" : "; checkpoint round trip left out: " + row.round_trip))
              << "\n";
    (row.expected.budgeted ? budgeted : fixed) += 1;
    budget_s += row.expected.budget_s;
  }
  // Per config the process start, dataset and checkpoint round trip add a second or two on
  // a CPU; a step longer than the whole budget still runs once after its warm-up.
  std::cout << fmt::format("expected: {} config(s) on a time budget, at most ~{:g} s of measuring together; {} on a "
                           "fixed step count; plus warm-up and ~2 s start-up each. A single step longer than the "
                           "budget stops its config after 1 measured step.\n",
                           budgeted, budget_s, fixed);
  return 0;
}

}  // namespace gpubench
