#include "harness/run/matrix_runner.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <cstdio>
#include <iostream>

#include "core/config/errors.h"
#include "core/device/cuda_memory_stats.h"
#include "core/device/host_memory_limit.h"
#include "core/io/atomic_file.h"
#include "core/io/interrupt.h"
#include "core/io/private_dir.h"
#include "harness/profile/trace_span_json.h"
#include "harness/run/checkpoint_plan.h"
#include "harness/run/child_process.h"
#include "harness/run/config_json.h"
#include "harness/run/config_runner.h"
#include "workloads/workload.h"
#include "core/io/json_text.h"

namespace gpubench {
namespace {

// Below this much free space a file system counts as full for a result of a few kB.
constexpr double kFullBelowBytes = 1 << 20;

nlohmann::json read_child_result(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return nullptr;
  std::fclose(file);
  try {
    return nlohmann::json::parse(read_file(path, "child result"));
  } catch (const std::exception&) {
    return nullptr;
  }
}

// "rank 1 of 2: <reason>", unless the reason already names its rank ("rank 1 of 2: ...",
// "rank 1's report ...").
std::string rank_reason(int rank, int world_size, const std::string& reason) {
  const std::string who = "rank " + std::to_string(rank) + " of " + std::to_string(world_size);
  if (reason.rfind("rank " + std::to_string(rank) + "'s ", 0) == 0) return reason;
  return reason.rfind(who, 0) == 0 ? reason : who + ": " + reason;
}

RankReport report_of(const RankExit& exit, const nlohmann::json& row) {
  RankReport report;
  report.peak_rss_bytes = exit.peak_rss_bytes;
  report.wall_s = exit.wall_s;
  report.ok = exit.ok() && row.is_object() && row.value("status", "") == "ok";
  if (report.ok) return report;
  const std::string written = row.is_object() ? row.value("reason", "") : "";
  if (!written.empty())
    report.reason = written + (exit.ok() || exit.exit_code == kChildFailedWithReason ? "" : " (child process " + exit.describe() + ")");
  else
    report.reason = "child process " + exit.describe() + (row.is_null() ? " before writing a result" : "");
  if (exit.out_of_memory) report.reason += kOutOfMemoryHint;
  return report;
}

// A rank's report, its reason naming the unwritable folder when it could not write its result.
RankReport report_of(const RankExit& exit, const nlohmann::json& row, const std::string& result_path) {
  RankReport report = report_of(exit, row);
  if (!report.ok && row.is_null() && !exit.timed_out && !exit.interrupted && exit.signal == 0 &&
      exit.exit_code == kChildResultNotWritten)
    report.reason = unwritten_result_reason(result_path);
  return report;
}

// A ddp-N config: N child processes, one per rank (or this rank's under an external
// launcher). Rank 0's result is the row when every rank succeeded; otherwise the config
// fails with each failed rank's reason.
nlohmann::json run_ddp_config(const MatrixRun& run, RankLauncher& ranks, std::size_t index, const Config& config,
                              const std::vector<std::string>& extra, const PrivateDir& exchange, MatrixOutput& output) {
  const std::string base = exchange.file("config" + std::to_string(index));
  const auto result_path = [&](int rank) { return base + ".rank" + std::to_string(rank) + ".json"; };
  const std::string trace_path = base + ".trace";
  RankLauncher::ConfigLaunch launch;
  launch.scope = "config" + std::to_string(index);
  launch.world_size = config.world_size;
  launch.cuda = config.device == DeviceKind::Cuda;
  launch.timeout_s = run.settings.config_timeout_s;
  launch.argv_for_rank = [&](int rank) {
    std::vector<std::string> argv = run.child_command;
    argv.insert(argv.end(), {"--child-config", config.id(), "--child-result", result_path(rank)});
    argv.insert(argv.end(), extra.begin(), extra.end());
    if (run.collect_trace && rank == 0) argv.insert(argv.end(), {"--child-trace", trace_path});
    return argv;
  };
  nlohmann::json row;  // rank 0's result, when rank 0 ran here
  bool rank0_exit_clean = false;
  std::vector<std::pair<int, RankReport>> local;
  for (const auto& [rank, exit] : ranks.launch(launch)) {
    const nlohmann::json rank_row = read_child_result(result_path(rank));
    std::remove(result_path(rank).c_str());
    if (rank == 0) {
      row = rank_row;
      rank0_exit_clean = exit.ok();
    }
    local.emplace_back(rank, report_of(exit, rank_row, result_path(rank)));
  }
  if (run.collect_trace) {
    const nlohmann::json spans = read_child_result(trace_path);
    if (!spans.is_null()) output.trace_sets.push_back(trace_span_set_from_json(spans));
    std::remove(trace_path.c_str());
  }
  const auto reports = ranks.exchange(launch.scope, config.world_size, local);
  std::string reasons, other_reasons;
  std::uint64_t rss = 0;
  double wall_s = 0;
  nlohmann::json rss_per_rank = nlohmann::json::array();
  for (const auto& [rank, report] : reports) {
    rss += report.peak_rss_bytes;
    rss_per_rank.push_back(report.peak_rss_bytes);
    wall_s = std::max(wall_s, report.wall_s);
    if (report.ok) continue;
    const std::string text = rank_reason(rank, config.world_size, report.reason);
    reasons += (reasons.empty() ? "" : "; ") + text;
    if (rank != 0) other_reasons += text;
  }
  // Rank 0's measured row stands (even one failed by its checkpoint check) when its
  // process ended cleanly and no other rank failed.
  const bool keep = row.is_object() && row.contains("throughput") && rank0_exit_clean && other_reasons.empty();
  if (!keep) row = status_row(config, "failed", reasons.empty() ? "rank 0 wrote no result" : reasons);
  // Every rank's process: what DDP costs in host memory is all of them together.
  row["memory"]["host_peak_rss_bytes"] = rss;
  if (row.contains("ddp")) row["ddp"]["host_peak_rss_bytes_per_rank"] = rss_per_rank;
  row["child_wall_s"] = wall_s;
  return row;
}

// A single-process config in its child; the child's result and trace come back through
// `exchange`, which only this user can write.
nlohmann::json run_single_config(const MatrixRun& run, std::size_t index, const Config& config,
                                 const std::vector<std::string>& extra, const PrivateDir& exchange, MatrixOutput& output) {
  const std::string result_path = exchange.file("config" + std::to_string(index) + ".json");
  const std::string trace_path = result_path + ".trace";
  std::vector<std::string> argv = run.child_command;
  argv.insert(argv.end(), {"--child-config", config.id(), "--child-result", result_path});
  argv.insert(argv.end(), extra.begin(), extra.end());
  if (run.collect_trace) argv.insert(argv.end(), {"--child-trace", trace_path});
  const ChildOutcome outcome = run_child_process(argv, run.settings.config_timeout_s);
  nlohmann::json row = child_row(config, outcome, read_child_result(result_path));
  if (!outcome.timed_out && !outcome.interrupted && outcome.signal == 0 && outcome.exit_code == kChildResultNotWritten)
    row["reason"] = unwritten_result_reason(result_path);
  std::remove(result_path.c_str());
  if (run.collect_trace) {
    const nlohmann::json spans = read_child_result(trace_path);
    if (!spans.is_null()) output.trace_sets.push_back(trace_span_set_from_json(spans));
    std::remove(trace_path.c_str());
  }
  row["memory"]["host_peak_rss_bytes"] = outcome.peak_rss_bytes;
  row["child_wall_s"] = outcome.wall_s;
  return row;
}

}  // namespace

std::string unwritten_result_reason(const std::string& result_path) {
  const std::string folder = std::filesystem::path(result_path).parent_path().string();
  const char* tmpdir = std::getenv("TMPDIR");
  const std::string where = tmpdir != nullptr && *tmpdir != '\0' ? "TMPDIR '" + std::string(tmpdir) + "'" : "/tmp";
  std::string reason = "child process exit code " + std::to_string(kChildResultNotWritten) +
                       ": it could not write its result in the run's private folder '" + folder + "' (in " + where + ")";
  struct statvfs space {};
  if (::statvfs(folder.c_str(), &space) == 0) {
    const double free_bytes = static_cast<double>(space.f_bavail) * static_cast<double>(space.f_frsize);
    if (free_bytes < kFullBelowBytes || space.f_favail == 0)
      return reason + ": that file system is full (" + std::to_string(static_cast<long long>(free_bytes / 1024)) +
             " KiB" + (space.f_favail == 0 ? ", no inode" : "") + " free); expected TMPDIR on one with room";
  }
  return reason + "; its error is above";
}

nlohmann::json status_row(const Config& config, const std::string& status, const std::string& reason) {
  return {{"config_id", config.id()},
          {"config", config_json(config)},
          {"status", status},
          {"reason", reason}};
}

int run_child_config(const Config& config, const RunSettings& settings, const std::string& result_path) {
  nlohmann::json result;
  int code = 0;
  RunSettings child_settings = settings;
  child_settings.scratch_dir = std::filesystem::path(result_path).parent_path().string();
  try {
    result = run_config_in_process(config, child_settings);
  } catch (const c10::OutOfMemoryError& error) {
    result = status_row(config, "failed", std::string("out of memory: ") + error.what_without_backtrace());
    // The caching allocator's own account: how far the config got (its peak since start).
    if (config.device == DeviceKind::Cuda) {
      const CudaAllocatorStats stats = cuda_allocator_stats(0);
      result["memory"] = {{"cuda_peak_allocated_bytes", stats.peak_allocated_bytes},
                          {"cuda_peak_reserved_bytes", stats.peak_reserved_bytes},
                          {"cuda_peak_window", "up to the failed allocation, from the first measured step (or the start, if it failed before)"}};
    }
    code = kChildFailedWithReason;
  } catch (const c10::Error& error) {
    result = status_row(config, "failed", error.what_without_backtrace());
    code = kChildFailedWithReason;
  } catch (const std::exception& error) {
    result = status_row(config, "failed", error.what());
    code = kChildFailedWithReason;
  }
  write_file_atomically(result_path, json_text(result));
  return code;
}

nlohmann::json child_row(const Config& config, const ChildOutcome& outcome, nlohmann::json written) {
  const bool clean_exit = !outcome.timed_out && !outcome.interrupted && outcome.signal == 0;
  const std::string status = written.is_object() ? written.value("status", "") : "";
  if (clean_exit && outcome.exit_code == 0 && written.is_object()) return written;
  if (clean_exit && outcome.exit_code == kChildFailedWithReason && status == "failed") return written;
  std::string reason = "child process " + outcome.describe();
  if (written.is_null()) reason += " before writing a result";
  else if (status == "failed" && !written.value("reason", "").empty()) reason = written.value("reason", "") + " (" + reason + ")";
  if (outcome.out_of_memory) reason += kOutOfMemoryHint;
  return status_row(config, "failed", reason);
}

MatrixOutput run_matrix(const MatrixRun& run, const std::function<void(std::size_t, const nlohmann::json&)>& on_result) {
  MatrixOutput output;
  const PrivateDir exchange;
  std::shared_ptr<RankLauncher> ranks = run.ranks;
  std::map<std::string, std::string> checkpointed;  // workload -> the config whose row made the round trip
  for (std::size_t index = 0; index < run.configs.size(); ++index) {
    const Config& config = run.configs[index];
    nlohmann::json row;
    // A group's choice this machine leaves out says so first (how to ask for it), before
    // what running it would meet (a real-scale model's memory on a CPU, say).
    const auto left_out = run.left_out.find(config.id());
    std::optional<std::string> reason =
        left_out != run.left_out.end() ? left_out->second : skip_reason(config, run.machine, run.settings);
    if (!reason && ranks) reason = ranks->skip_reason(config);
    std::vector<std::string> extra;
    if (!reason)
      if (const std::string skip = checkpoint_skip_reason(config, run.settings, run.machine, checkpointed); !skip.empty())
        extra = {"--child-skip-checkpoint", skip};
    if (reason) {
      row = status_row(config, "skipped", *reason);
    } else if (config.multi_rank()) {
      if (!ranks) ranks = RankLauncher::from_environment(run.settings.comm_timeout_s);
      row = run_ddp_config(run, *ranks, index, config, extra, exchange, output);
    } else {
      row = run_single_config(run, index, config, extra, exchange, output);
    }
    if (row.value("checkpoint", nlohmann::json::object()).value("done", false) && !checkpointed.count(config.workload))
      checkpointed[config.workload] = config.id();
    output.results.push_back(row);
    on_result(index, row);
    if (interrupt_signal() != 0) {
      // The running config was stopped (its row says so); the rest never started. Added
      // without on_result: a caller that rewrites its report per row would rewrite it once
      // per id left (thousands of ids: minutes after Ctrl-C); it writes the final one.
      const std::string reason = "not run: interrupted (" + interrupt_signal_name() + ")";
      for (std::size_t rest = index + 1; rest < run.configs.size(); ++rest)
        output.results.push_back(status_row(run.configs[rest], "skipped", reason));
      break;
    }
  }
  return output;
}

}  // namespace gpubench
