#include "harness/run/tune_search.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/config/stack_parts.h"
#include "harness/run/matrix_runner.h"
#include "core/stats/ratio_interval.h"
#include "core/io/byte_units.h"

namespace gpubench {
namespace {

double rate(const nlohmann::json& row) {
  if (row.value("status", "") != "ok") return -1;
  return row["throughput"]["samples_per_s"].value("median", 0.0);
}

// Whether `candidate` is faster than `base` by more than the two medians' noise; never
// when a row's noise is unknown (too few steps): a part is kept on evidence only.
bool clearly_faster(const nlohmann::json& candidate, const nlohmann::json& base) {
  if (rate(candidate) <= 0 || rate(base) <= 0) return rate(candidate) > 0 && rate(base) <= 0;
  const auto interval = row_ratio_interval(rate(candidate) / rate(base), base, candidate);
  return interval && interval->first > 1.0;
}


// Thrown when TuneOptions::stop_reason asks the search to end; run() catches it.
struct Stopped {
  std::string reason;
};

class Search {
 public:
  Search(const TuneOptions& options, const TuneMeasure& measure) : options_(options), measure_(measure) {}

  TuneResult run() {
    try {
      std::size_t best = greedy();
      if (usable(best)) best = doubling(best);  // a plain config over the budget is not doubled
      finals();
    } catch (const Stopped& stop) {
      result_.stopped = stop.reason;
      result_.winner = result_.runner_up = std::nullopt;
      result_.summary = fmt::format("no winner: the search was {} after {} measurement(s); the report holds them",
                                    stop.reason, result_.steps.size());
    }
    return std::move(result_);
  }

 private:
  void stop_if_asked() const {
    if (!options_.stop_reason) return;
    if (std::string reason = options_.stop_reason(); !reason.empty()) throw Stopped{std::move(reason)};
  }

  // Measures a candidate and records it; returns its index. A short window already
  // measured (greedy swaps one Adam kernel for another, reaching a stack it saw) is reused.
  std::size_t measure(const std::string& phase, int round, const Config& config, std::int64_t batch, TuneWindow window) {
    if (window == TuneWindow::Short)
      for (std::size_t i = 0; i < result_.steps.size(); ++i)
        if (result_.steps[i].phase != "final" && result_.steps[i].config == config && result_.steps[i].batch_size == batch)
          return i;
    stop_if_asked();
    TuneStep step{phase, round, config, batch, nlohmann::json(), ""};
    if (const auto reason = options_.skip_reason ? options_.skip_reason(config) : std::nullopt) {
      step.row = status_row(config, "skipped", *reason);
    } else {
      step.row = measure_(config, batch, window);
    }
    step.row["tune"] = {{"phase", phase}, {"round", round}, {"batch_size", batch}};
    if (step.row.value("status", "") != "ok") {
      step.outcome = step.row.value("status", "failed") + ": " + step.row.value("reason", "");
    } else if (options_.memory_budget_bytes > 0 && tune_row_memory(step.row) > options_.memory_budget_bytes) {
      step.outcome = fmt::format("over budget: {:.2f} GiB of {:.2f} GiB", tune_row_memory(step.row) / kGiB,
                                 options_.memory_budget_bytes / kGiB);
    }
    result_.steps.push_back(std::move(step));
    stop_if_asked();  // the candidate it stopped is in the steps, as it ended
    return result_.steps.size() - 1;
  }

  // Why no candidate is usable: none trained, or every one that trained was over budget.
  std::string no_winner_summary() const {
    std::optional<std::size_t> smallest;
    for (std::size_t i = 0; i < result_.steps.size(); ++i)
      if (rate(result_.steps[i].row) > 0 &&
          (!smallest || tune_row_memory(result_.steps[i].row) < tune_row_memory(result_.steps[*smallest].row)))
        smallest = i;
    if (!smallest) return "no candidate trained: see each step's outcome";
    const TuneStep& step = result_.steps[*smallest];
    if (usable(*smallest)) return "no finalist trained within the memory budget again: see each step's outcome";
    return fmt::format("no candidate fits the memory budget of {:.2f} GiB: the smallest peak seen was {:.2f} GiB ({} "
                       "--batch-size {}); a larger --memory-budget, or a smaller --batch-size, may fit",
                       options_.memory_budget_bytes / kGiB, tune_row_memory(step.row) / kGiB, step.config.id(),
                       step.batch_size);
  }

  // It trained, within the memory budget.
  bool usable(std::size_t index) const {
    const nlohmann::json& row = result_.steps[index].row;
    return rate(row) > 0 && (options_.memory_budget_bytes <= 0 || tune_row_memory(row) <= options_.memory_budget_bytes);
  }

  // A part that lowers what a rank holds (a sharded mode, ckpt): the way into the budget
  // for a plain config over it.
  static bool saves_memory(const std::string& part) {
    return part == "ckpt" || part.rfind("zero1-", 0) == 0 || part.rfind("zero2-", 0) == 0 || part.rfind("fsdp-", 0) == 0;
  }

  // The plain config is over the budget: each memory-saving part on it, the fastest that
  // fits kept (nothing else can make it fit: a faster stack needs as much or more).
  std::size_t into_budget(std::size_t plain) {
    std::optional<std::size_t> best;
    for (const auto& part : options_.parts) {
      if (!saves_memory(part)) continue;
      const Config next = with_part(result_.steps[plain].config, part);
      if (!is_legal(next) || workload_rule_broken(next, options_.traits)) continue;
      const std::size_t index = measure("greedy", 1, next, options_.default_batch, TuneWindow::Short);
      if (usable(index) && (!best || rate(result_.steps[index].row) > rate(result_.steps[*best].row))) best = index;
    }
    if (!best) return plain;
    result_.steps[*best].outcome = "kept: fits where the plain config does not";
    return *best;
  }

  // Adds, round by round, the part whose stack is fastest, while it is clearly faster.
  std::size_t greedy() {
    const Config plain = plain_config(options_.workload, options_.device);
    std::size_t current = measure("greedy", 0, plain, options_.default_batch, TuneWindow::Short);
    result_.steps[current].outcome = usable(current) ? "plain" : result_.steps[current].outcome;
    int first_round = 1;
    if (!usable(current) && rate(result_.steps[current].row) > 0) {
      const std::size_t fitted = into_budget(current);
      first_round = fitted == current ? 1 : 2;  // round 1 found the way into the budget
      current = fitted;
    }
    for (int round = first_round; usable(current); ++round) {
      std::optional<std::size_t> best;
      for (const auto& part : options_.parts) {
        const Config stack = result_.steps[current].config;  // a copy: measuring grows steps
        const Config next = with_part(stack, part);
        if (next == stack || !is_legal(next) || workload_rule_broken(next, options_.traits)) continue;
        const std::size_t index = measure("greedy", round, next, options_.default_batch, TuneWindow::Short);
        if (usable(index) && (!best || rate(result_.steps[index].row) > rate(result_.steps[*best].row))) best = index;
      }
      if (!best || !clearly_faster(result_.steps[*best].row, result_.steps[current].row)) {
        // A reused window keeps the outcome of the round that measured it.
        if (best && result_.steps[*best].round == round) result_.steps[*best].outcome = "best of round, not clearly faster";
        break;
      }
      result_.steps[*best].outcome = "kept";
      current = *best;
    }
    return current;
  }

  // Doubles the winner's micro-batch while it is clearly faster, fits the budget and the
  // dataset, and trains (an out-of-memory row ends the doubling: it is caught, never a crash).
  std::size_t doubling(std::size_t best) {
    const Config stack = result_.steps[best].config;
    for (int round = 1;; ++round) {
      const std::int64_t batch = result_.steps[best].batch_size * 2;
      if (batch > options_.max_batch) break;
      const std::size_t index = measure("batch", round, stack, batch, TuneWindow::Short);
      if (!usable(index)) break;
      if (!clearly_faster(result_.steps[index].row, result_.steps[best].row)) {
        result_.steps[index].outcome = "not clearly faster";
        break;
      }
      result_.steps[index].outcome = "kept";
      best = index;
    }
    return best;
  }

  // The fastest distinct candidates of the short windows, measured again in full.
  void finals() {
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < result_.steps.size(); ++i)
      if (usable(i)) order.push_back(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return rate(result_.steps[a].row) > rate(result_.steps[b].row); });
    std::vector<std::size_t> finals;
    for (std::size_t i : order) {
      if (static_cast<int>(finals.size()) == std::max(1, options_.finalists)) break;
      const auto same = [&](std::size_t f) {
        return result_.steps[f].config == result_.steps[i].config && result_.steps[f].batch_size == result_.steps[i].batch_size;
      };
      if (std::none_of(finals.begin(), finals.end(), [&](std::size_t f) { return same(f); })) finals.push_back(i);
    }
    std::vector<std::size_t> measured;
    for (std::size_t n = 0; n < finals.size(); ++n)
      measured.push_back(measure("final", static_cast<int>(n + 1), result_.steps[finals[n]].config,
                                 result_.steps[finals[n]].batch_size, TuneWindow::Final));
    std::stable_sort(measured.begin(), measured.end(),
                     [&](std::size_t a, std::size_t b) { return rate(result_.steps[a].row) > rate(result_.steps[b].row); });
    if (measured.empty() || !usable(measured[0])) {
      result_.summary = no_winner_summary();
      return;
    }
    result_.winner = measured[0];
    result_.steps[measured[0]].outcome = "winner";
    const TuneStep& winner = result_.steps[measured[0]];
    result_.summary = fmt::format("{} --batch-size {}: {:.4g} samples/s", winner.config.id(), winner.batch_size, rate(winner.row));
    if (measured.size() < 2 || !usable(measured[1])) return;
    result_.runner_up = measured[1];
    result_.steps[measured[1]].outcome = "runner-up";
    const TuneStep& second = result_.steps[measured[1]];
    result_.margin = rate(winner.row) / rate(second.row);
    result_.margin_ci95 = row_ratio_interval(result_.margin, second.row, winner.row);
    result_.summary += fmt::format(", {:.2f}x {} the runner-up {} --batch-size {}", result_.margin,
                                   result_.margin_ci95 ? fmt::format("[{:.2f}-{:.2f}]", result_.margin_ci95->first,
                                                                     result_.margin_ci95->second)
                                                       : std::string("[spread unknown]"),
                                   second.config.id(), second.batch_size);
  }

  const TuneOptions& options_;
  const TuneMeasure& measure_;
  TuneResult result_;
};

}  // namespace

double tune_row_memory(const nlohmann::json& row) {
  const auto& memory = row.value("memory", nlohmann::json::object());
  if (memory.contains("cuda_peak_reserved_bytes")) return memory["cuda_peak_reserved_bytes"].get<double>();
  if (memory.contains("host_peak_rss_bytes_training")) return memory["host_peak_rss_bytes_training"].get<double>();
  return memory.value("host_peak_rss_bytes", 0.0);
}

TuneResult tune_search(const TuneOptions& options, const TuneMeasure& measure) { return Search(options, measure).run(); }

}  // namespace gpubench
