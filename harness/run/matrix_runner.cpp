#include "run/matrix_runner.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "config/errors.h"
#include "io/atomic_file.h"
#include "profile/trace_span_json.h"
#include "run/child_process.h"
#include "run/config_runner.h"

namespace gpubench {
namespace {

// Exit codes of a child: 0 measured (row may still be failed, e.g. checkpoint), 3 failed
// with a written reason. Anything else (crash, exit without a file) is described by the parent.
constexpr int kChildFailedWithReason = 3;

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

}  // namespace

nlohmann::json status_row(const Config& config, const std::string& status, const std::string& reason) {
  return {{"config_id", config.id()},
          {"config",
           {{"workload", config.workload},
            {"device", to_string(config.device)},
            {"precision", to_string(config.precision)},
            {"host_memory", to_string(config.host_memory)},
            {"parallel", to_string(config.parallel)},
            {"world_size", config.world_size}}},
          {"status", status},
          {"reason", reason}};
}

int run_child_config(const Config& config, const RunSettings& settings, const std::string& result_path) {
  nlohmann::json result;
  int code = 0;
  try {
    result = run_config_in_process(config, settings);
  } catch (const c10::OutOfMemoryError& error) {
    result = status_row(config, "failed", std::string("out of memory: ") + error.what_without_backtrace());
    code = kChildFailedWithReason;
  } catch (const c10::Error& error) {
    result = status_row(config, "failed", error.what_without_backtrace());
    code = kChildFailedWithReason;
  } catch (const std::exception& error) {
    result = status_row(config, "failed", error.what());
    code = kChildFailedWithReason;
  }
  write_file_atomically(result_path, result.dump());
  return code;
}

MatrixOutput run_matrix(const MatrixRun& run, const std::function<void(std::size_t, const nlohmann::json&)>& on_result) {
  MatrixOutput output;
  for (std::size_t index = 0; index < run.configs.size(); ++index) {
    const Config& config = run.configs[index];
    nlohmann::json row;
    if (const auto reason = skip_reason(config, run.machine)) {
      row = status_row(config, "skipped", *reason);
    } else {
      const std::string result_path =
          "/tmp/gpubench-result-" + std::to_string(getpid()) + "-" + std::to_string(index) + ".json";
      const std::string trace_path = result_path + ".trace";
      std::vector<std::string> argv = run.child_command;
      argv.insert(argv.end(), {"--child-config", config.id(), "--child-result", result_path});
      if (run.collect_trace) argv.insert(argv.end(), {"--child-trace", trace_path});
      const ChildOutcome outcome = run_child_process(argv, run.settings.config_timeout_s);
      row = read_child_result(result_path);
      std::remove(result_path.c_str());
      if (run.collect_trace) {
        const nlohmann::json spans = read_child_result(trace_path);
        if (!spans.is_null()) output.trace_sets.push_back(trace_span_set_from_json(spans));
        std::remove(trace_path.c_str());
      }
      if (row.is_null() || outcome.timed_out || outcome.signal != 0) {
        row = status_row(config, "failed", "child process " + outcome.describe() +
                                               (row.is_null() ? " before writing a result" : ""));
      }
      row["memory"]["host_peak_rss_bytes"] = outcome.peak_rss_bytes;
      row["child_wall_s"] = outcome.wall_s;
    }
    output.results.push_back(row);
    on_result(index, row);
  }
  return output;
}

}  // namespace gpubench
