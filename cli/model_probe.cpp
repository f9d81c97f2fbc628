#include "cli/model_probe.h"

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "core/config/errors.h"
#include "core/device/host_memory_limit.h"
#include "core/io/atomic_file.h"
#include "core/io/json_text.h"
#include "core/io/private_dir.h"
#include "harness/run/child_process.h"

namespace gpubench {
namespace {

nlohmann::json read_result(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return nullptr;
  try {
    return nlohmann::json::parse(read_file(path, "model probe result"));
  } catch (const std::exception&) {
    return nullptr;
  }
}

// How a probe's process that wrote no verdict ended, as the refusal says it.
std::string how_it_ended(const ChildOutcome& outcome, const RunSettings& settings) {
  if (outcome.timed_out)
    return "did not finish within --config-timeout (" + std::to_string(static_cast<long long>(settings.config_timeout_s)) +
           " s)";
  if (outcome.out_of_memory) return std::string("ran ") + kKilledOutOfMemory;  // "ran out of memory: killed by ..."
  return "ended with " + outcome.describe() + " before writing what it found";
}

}  // namespace

ArchiveProber probe_in_child_process(const RunSettings& settings) {
  return [settings](const std::string& name, const std::string& path, const ScriptedTask& task) {
    const PrivateDir exchange;
    const std::string result = exchange.file("probe.json");
    std::vector<std::string> argv = {self_executable()};
    const std::vector<std::string> args = settings_to_args(settings);
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--child-probe-model", name, "--child-result", result});
    const ChildOutcome outcome = run_child_process(argv, settings.config_timeout_s);
    const nlohmann::json written = read_result(result);
    const bool exited = !outcome.timed_out && !outcome.interrupted && outcome.signal == 0;
    if (exited && outcome.exit_code == 0 && written.is_object() && written.contains("probe"))
      return ScriptedProbe::from_json(written["probe"]);
    if (exited && outcome.exit_code == 2 && written.is_object() && written.value("refusal", "") != "")
      throw UsageError(written["refusal"].get<std::string>());
    throw UsageError("--model archive '" + path + "': its check (the archive loaded and one forward of " +
                     task_batch_shape(task, kProbeSamples) + ", in a process of its own) " + how_it_ended(outcome, settings) +
                     ": expected a model that loads and runs a batch of " + std::to_string(kProbeSamples) +
                     " on this machine");
  };
}

int run_probe_child_command(const CliOptions& options) {
  if (!is_in_private_dir(options.child_result))
    throw UsageError("--child-result '" + options.child_result + "' is not in a private folder of a gpubench parent " +
                     "(gpubench-XXXXXX, mode 0700, this user's): it is an internal flag, expected only from gpubench itself");
  check_writable(options.child_result, "--child-result");
  const std::string& name = options.child_probe_model;
  const auto path = options.settings.model_paths.find(name);
  if (path == options.settings.model_paths.end())
    throw UsageError("--child-probe-model '" + name + "' is not a --model: it is an internal flag, expected only from gpubench itself");
  nlohmann::json result;
  try {
    result["probe"] = probe_scripted_model(path->second, scripted_task_of(name, options.settings)).to_json();
  } catch (const UsageError& error) {
    result["refusal"] = error.what();
  }
  write_file_atomically(options.child_result, json_text(result));
  return result.contains("refusal") ? 2 : 0;
}

}  // namespace gpubench
