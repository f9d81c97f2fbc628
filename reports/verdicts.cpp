#include "reports/verdicts.h"

#include "core/config/config.h"
#include "core/config/stack_parts.h"
#include "reports/comparisons.h"
#include "reports/loss_parity.h"
#include "reports/step_phases.h"
#include "core/stats/summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {
namespace {

constexpr double kInputBoundShare = 0.25;
constexpr double kH2dBoundShare = 0.20;
constexpr double kCommBoundShare = 0.25;
constexpr double kLaunchBoundBusy = 0.50;
constexpr double kLaunchBoundKernelsPerStep = 200;
constexpr double kOptimizerBoundShare = 0.30;
constexpr double kComputeBoundBusy = 0.85;
constexpr double kCpuComputeBoundShare = 0.70;
constexpr double kNoisyCv = 0.10;
constexpr double kScalerSkipShare = 0.05;
constexpr double kAmpLossTolerance = 0.10;  // AMP's late loss within 10% of fp32's
constexpr double kVariantLossTolerance = 0.02;  // a variant's within 2% of its baseline's
constexpr double kFp8LossTolerance = 0.02;      // fp8's within 2% of amp-bf16's (torchao's bar for its recipes)

double share(const nlohmann::json& row, const char* phase) {
  return step_phases(row).value(phase, nlohmann::json::object()).value("share", 0.0);
}

nlohmann::json verdict(const std::string& kind, const std::string& evidence, const std::string& suggestion = "") {
  return {{"kind", kind}, {"evidence", evidence}, {"suggestion", suggestion}, {"text", kind + ": " + evidence}};
}

std::string pct(double fraction) { return fmt::format("{:.0f}%", fraction * 100); }

bool is_cuda(const nlohmann::json& row) { return row.value("config", nlohmann::json::object()).value("device", "") == "cuda"; }

// The row's MFU for the verdict: against the datasheet peak on a GPU, else against the
// measured matmul ceiling; nullopt without either.
std::optional<std::pair<double, std::string>> verdict_mfu(const nlohmann::json& row) {
  const auto& u = row.value("utilization", nlohmann::json::object());
  if (u.contains("mfu_vs_vendor")) return std::make_pair(u["mfu_vs_vendor"].get<double>(), std::string("datasheet"));
  if (u.contains("mfu_vs_measured")) return std::make_pair(u["mfu_vs_measured"].get<double>(), std::string("measured"));
  return std::nullopt;
}

nlohmann::json classify_bottleneck(const nlohmann::json& row);

}  // namespace

const nlohmann::json* disturbance(const nlohmann::json& row) {
  const auto found = row.find("interference");
  if (found == row.end() || !found->is_object() || !found->value("disturbed", false)) return nullptr;
  return &*found;
}

nlohmann::json bottleneck_verdict(const nlohmann::json& row) {
  nlohmann::json v = classify_bottleneck(row);
  if (const auto mfu = verdict_mfu(row)) {
    // "compute-bound at 9% MFU: GPU busy 93%": how far from the limit, whatever binds.
    v["mfu"] = mfu->first;
    v["mfu_peak"] = mfu->second;
    v["text"] = fmt::format("{} at {:.1f}% MFU ({} {} peak): {}", v["kind"].get<std::string>(), mfu->first * 100,
                            mfu->second, row["utilization"].value("peak_precision", ""), v["evidence"].get<std::string>());
  }
  return v;
}

namespace {

nlohmann::json classify_phases(const nlohmann::json& row);

nlohmann::json classify_bottleneck(const nlohmann::json& row) {
  // Time-sliced ranks: no phase share says what limits this machine.
  if (const auto& over = row.value("oversubscribed", nlohmann::json::object()); !over.empty())
    return verdict("oversubscribed",
                   fmt::format("{} ranks took turns on {} cores: its speed is the scheduler's, not this machine's",
                               over.value("ranks", 0), over.value("cores", 0)),
                   "run it where each rank has a core of its own");
  // Another load shared the CPU: the phase shares are partly its doing, so no row is called
  // compute-bound (or anything else) on its phases alone; what they read stays in the evidence.
  if (const nlohmann::json* interference = disturbance(row)) {
    const auto figure = [&](const char* key) {
      const auto& value = interference->value(key, nlohmann::json());
      return value.is_number() ? pct(value.get<double>()) : std::string("unknown");
    };
    return verdict("disturbed",
                   fmt::format("other processes took {} of the machine's CPU during the steps (steal {}); its phases "
                               "alone read {}",
                               figure("other_cpu_share"), figure("steal_share"),
                               classify_phases(row)["text"].get<std::string>()),
                   "measure again on a quiet machine");
  }
  return classify_phases(row);
}

// What the phase shares (and CUPTI's GPU busy) say, on a machine the row had to itself.
nlohmann::json classify_phases(const nlohmann::json& row) {
  const double data = share(row, "data");
  if (data >= kInputBoundShare) {
    const int workers = row.value("workload", nlohmann::json::object()).value("workers", 0);
    return verdict("input-bound", fmt::format("{} of each step waits for the DataLoader (workers={})", pct(data), workers),
                   fmt::format("try --workers {}", std::max(2, workers * 2)));
  }
  const double h2d = share(row, "h2d");
  if (h2d >= kH2dBoundShare) {
    const auto& copy = row.value("h2d", nlohmann::json::object());
    const std::string memory = row["config"].value("host_memory", "pageable");
    std::string evidence = fmt::format("{} of each step copies batches to the GPU from {} memory", pct(h2d), memory);
    if (copy.contains("gb_per_s")) evidence += fmt::format(" at {:.1f} GB/s", copy["gb_per_s"].get<double>());
    return verdict("h2d-bound", evidence, memory == "pageable" ? "use pinned host memory (the /pinned config)" : "");
  }
  const auto& ddp = row.value("ddp", nlohmann::json::object());
  // The exposed share is host time from backward() returning to the last all-reduce's end:
  // exact where backward's work is done when it returns (the CPU, --sync-phases), but on a
  // CUDA step that runs ahead it includes the device's unfinished compute.
  const bool exposed_is_comm = row.value("timing", nlohmann::json::object()).value("method", "host") != "events";
  // Null where no host wait saw the exposed part (the sharded modes on NCCL).
  if (exposed_is_comm && ddp.contains("exposed_comm_share") && ddp["exposed_comm_share"].is_number() &&
      ddp["exposed_comm_share"].get<double>() >= kCommBoundShare)
    return verdict("comm-bound",
                   fmt::format("{} of each step waits for gradient all-reduce not hidden behind backward",
                               pct(ddp["exposed_comm_share"].get<double>())),
                   "larger --bucket-mb, or larger batches per rank");
  const auto& cupti = row.value("cupti", nlohmann::json::object());
  const bool has_busy = cupti.value("status", "") == "ok" && cupti.contains("gpu_busy_share_overall");
  const double busy = has_busy ? cupti["gpu_busy_share_overall"].get<double>() : -1;
  const double kernels = has_busy ? cupti.value("kernels_per_step", nlohmann::json::object()).value("median", 0.0) : 0;
  if (has_busy && busy < kLaunchBoundBusy && kernels >= kLaunchBoundKernelsPerStep)
    return verdict("launch-bound", fmt::format("GPU busy {}, {:.0f} kernels per step", pct(busy), kernels),
                   "larger batches, fewer/fused kernels (CUDA graphs, torch.compile-style fusion)");
  const double optimizer = share(row, "optimizer");
  if (optimizer >= kOptimizerBoundShare)
    return verdict("optimizer-bound", fmt::format("the optimizer step takes {} of each step", pct(optimizer)),
                   "a fused or multi-tensor optimizer");
  if (has_busy && busy >= kComputeBoundBusy) return verdict("compute-bound", fmt::format("GPU busy {}", pct(busy)));
  // Medians of phases can sum past the median step; never report more than all of it.
  const double compute = std::min(1.0, share(row, "forward") + share(row, "backward"));
  if (!is_cuda(row) && compute >= kCpuComputeBoundShare)
    return verdict("compute-bound", fmt::format("forward + backward take {} of each step on the CPU", pct(compute)));
  return verdict("balanced", fmt::format("data {}, h2d {}, forward+backward {}, optimizer {}", pct(data), pct(h2d),
                                         pct(compute), pct(optimizer)));
}

// Host RSS still climbing through the measured steps (last quarter's median above the
// first quarter's by over 10% and 64 MiB): a leak, or --host-malloc retain's heap
// fragmenting. A settled run stays flat (the transformer's retained heap: +7%, once).
std::optional<std::string> measured_rss_growth(const nlohmann::json& memory) {
  const auto rss = memory.value("rss_bytes_per_step", nlohmann::json::array());
  const auto measured = memory.value("measured_per_sample", nlohmann::json::array());
  std::vector<double> values;
  for (std::size_t i = 0; i < rss.size() && i < measured.size(); ++i)
    if (measured[i].get<bool>()) values.push_back(rss[i].get<double>());
  constexpr std::size_t kMinSamples = 8;
  if (values.size() < kMinSamples) return std::nullopt;
  const std::size_t quarter = values.size() / 4;
  const double first = percentile(std::vector<double>(values.begin(), values.begin() + quarter), 0.5);
  const double last = percentile(std::vector<double>(values.end() - quarter, values.end()), 0.5);
  constexpr double kMiB = 1 << 20;
  if (last <= first + std::max(64 * kMiB, 0.1 * first)) return std::nullopt;
  return fmt::format("host RSS grew from {:.0f} to {:.0f} MiB over the measured steps: a leak, or a fragmenting heap "
                     "(try --host-malloc glibc)", first / kMiB, last / kMiB);
}

// Loss parity on the same seed and data. The parts of a stack that keep the math
// (fused/foreach Adam, channels_last, ckpt, graph) against the row without each, both
// ways; fp8 against the row without it (bf16 autocast), both ways; a lower precision (AMP,
// bf16, tf32) against the same stack in fp32, when higher.
std::vector<std::string> loss_parity_warnings(const nlohmann::json& results, const nlohmann::json& row) {
  std::vector<std::string> warnings;
  Config config;
  try {
    config = Config::parse(row.value("config_id", ""));
  } catch (const std::exception&) {
    return warnings;  // an id of another grammar: no baseline to derive
  }
  const auto ratio_to = [&](const Config& baseline) -> std::optional<double> {
    const auto* found = find_ok_row(results, baseline.id());
    const nlohmann::json ratio = found ? late_loss_ratio(*found, row) : nlohmann::json();
    if (!ratio.is_number()) return std::nullopt;
    return ratio.get<double>();
  };
  for (const auto& part : stack_parts(config)) {
    const Config baseline = without_part(config, part);
    if (baseline == config) continue;
    const bool same_math = part == "adam-foreach" || part == "adam-fused" || part == "channels-last" || part == "ckpt" ||
                           part == "graph";
    if (same_math) {
      const auto ratio = ratio_to(baseline);
      if (ratio && std::abs(*ratio - 1) > kVariantLossTolerance)
        warnings.push_back(fmt::format("{} late loss differs by {:+.1f}% from {}'s over the same steps, same seed and "
                                       "data: the same math should train the same",
                                       part, (*ratio - 1) * 100, baseline.id()));
    } else if (part == "fp8") {
      const auto ratio = ratio_to(baseline);
      if (ratio && std::abs(*ratio - 1) > kFp8LossTolerance)
        warnings.push_back(fmt::format("fp8 late loss differs by {:+.1f}% from {}'s over the same steps, same seed and "
                                       "data (more than {}): the FP8 matmuls change what the model learns",
                                       (*ratio - 1) * 100, baseline.id(), pct(kFp8LossTolerance)));
    } else if (part == to_string(config.precision)) {
      Config fp32 = config;
      fp32.precision = Precision::Fp32;
      const auto ratio = ratio_to(fp32);
      if (ratio && *ratio > 1 + kAmpLossTolerance)
        warnings.push_back(fmt::format("{} late loss is {} above fp32's over the same steps, same seed and data", part,
                                       pct(*ratio - 1)));
    }
  }
  return warnings;
}

}  // namespace

nlohmann::json row_warnings(const nlohmann::json& row) {
  nlohmann::json warnings = nlohmann::json::array();
  const auto& loss = row.value("loss", nlohmann::json::object());
  // A handful of steps says nothing about learning: judge from 10 steps on.
  constexpr std::size_t kStepsToJudgeLoss = 10;
  const bool long_enough = loss.value("curve", nlohmann::json::array()).size() >= kStepsToJudgeLoss;
  if (long_enough && loss.contains("fell") && !loss["fell"].get<bool>())
    warnings.push_back(fmt::format("loss did not fall ({:.4g} -> {:.4g}): check the learning setup",
                                   loss.value("first_quarter_mean", 0.0), loss.value("last_quarter_mean", 0.0)));
  const auto& placement = row.value("placement", nlohmann::json::object());
  if (placement.contains("parameters_on_device") && !placement["parameters_on_device"].get<bool>())
    warnings.push_back("some parameters are not on the configured device");
  if (placement.contains("batch_on_device") && !placement["batch_on_device"].get<bool>())
    warnings.push_back("batches are not on the configured device when the forward runs");
  const auto& scaler = row.value("grad_scaler", nlohmann::json::object());
  const int measured = row.value("steps", nlohmann::json::object()).value("measured", 0);
  const int warmup = row.value("steps", nlohmann::json::object()).value("warmup", 0);
  if (scaler.contains("skipped_steps") && measured + warmup > 0) {
    const double skipped = scaler["skipped_steps"].get<double>() / (measured + warmup);
    if (skipped > kScalerSkipShare)
      warnings.push_back(fmt::format("GradScaler skipped {} of optimizer steps (inf/NaN gradients)", pct(skipped)));
  }
  const auto& parallel = row.value("parallel", nlohmann::json::object());
  if (row.value("config", nlohmann::json::object()).value("parallel", "") == "dp" && parallel.value("devices", 0) == 1)
    warnings.push_back("DataParallel on one device: no speedup is possible, only replication overhead");
  const auto& stopping = row.value("stopping", nlohmann::json::object());
  if (stopping.value("reason", "") == "slow_step")
    warnings.push_back(fmt::format("one step ({:.3g} s) outlasts the whole {:.3g} s budget: stopped after {} measured "
                                   "step(s), below the preset's minimum of {}; the median's spread is unknown",
                                   row.value("step_ms", nlohmann::json::object()).value("max", 0.0) / 1000,
                                   stopping.value("budget_s", 0.0), measured, stopping.value("min_steps", 0)));
  if (const auto growth = measured_rss_growth(row.value("memory", nlohmann::json::object())))
    warnings.push_back(*growth);
  // value(), not operator[]: a const object's missing key is undefined behaviour, and a
  // report compare reads is anyone's file.
  if (const nlohmann::json* interference = disturbance(row))
    if (const nlohmann::json warning = interference->value("warning", nlohmann::json()); warning.is_string())
      warnings.push_back(warning.get<std::string>());
  const double cv = row.value("step_ms", nlohmann::json::object()).value("cv", 0.0);
  if (cv > kNoisyCv)
    warnings.push_back(fmt::format("noisy measurement: step-time CV {} (another load on the machine?)", pct(cv)));
  return warnings;
}

void annotate_results(nlohmann::json& results) {
  for (auto& row : results) {
    if (row.value("status", "") != "ok") continue;
    row["verdict"] = bottleneck_verdict(row);
    row["warnings"] = row_warnings(row);
    for (const auto& warning : loss_parity_warnings(results, row)) row["warnings"].push_back(warning);
  }
}

}  // namespace gpubench
