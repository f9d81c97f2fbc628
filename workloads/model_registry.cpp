#include "workloads/model_registry.h"

#include <map>

#include "core/config/errors.h"
#include "core/device/host_memory_limit.h"
#include "workloads/config_model.h"
#include "workloads/model_source.h"
#include "workloads/scripted_workload.h"
#include "workloads/workload.h"

namespace gpubench {
namespace {

// Each --model is read and checked once per process; make_workload() copies the result
// (it is called for every config, and reading a model folder or loading an archive and
// running its forward is not free).
struct Registry {
  RunSettings settings;
  std::vector<std::string> names;
  std::map<std::string, DecoderLmSpec> configs;
  std::map<std::string, ScriptedWorkload> scripted;
  std::vector<std::string> notices;
};

Registry& registry() {
  static Registry instance;
  return instance;
}

std::optional<std::int64_t> sequence_in(const RunSettings& settings, const std::string& name) {
  const auto& lengths = settings.seq_lens;
  if (const auto own = lengths.find(name); own != lengths.end()) return own->second;
  if (const auto every = lengths.find(""); every != lengths.end()) return every->second;
  return std::nullopt;
}

ScriptedProbe probe_here(const std::string&, const std::string& path, const ScriptedTask& task) {
  return probe_scripted_model(path, task);
}

void register_scripted(const std::string& name, const std::string& path, const RunSettings& settings,
                       const ArchiveProber& prober) {
  const ScriptedTask task = scripted_task_of(name, settings);
  const auto limit = host_memory_limit();
  check_probe_input_fits(name, task, limit ? static_cast<double>(limit->available_bytes) : 0, limit ? limit->source : "");
  registry().scripted.emplace(name, ScriptedWorkload(name, path, task, (prober ? prober : ArchiveProber(probe_here))(name, path, task)));
}

void register_config(const std::string& name, const std::string& path, ModelSource source, const RunSettings& settings) {
  if (settings.model_inputs.count(name) || settings.model_classes.count(name) || settings.model_vocabs.count(name))
    throw UsageError("--model " + name + "='" + path + "' is " + describe(source) + " (a config.json model), not a "
                     "TorchScript archive: --input, --classes and --vocab are for an archive (a config says its own shape)");
  registry().configs.emplace(name, read_config_model(name, path, sequence_in(settings, name), settings.random_weights));
  if (const auto notice = unread_weights_notice(name, path, settings.random_weights)) registry().notices.push_back(*notice);
}

}  // namespace

ScriptedTask scripted_task_of(const std::string& name, const RunSettings& s) {
  const bool input = s.model_inputs.count(name) > 0, classes = s.model_classes.count(name) > 0,
             vocab = s.model_vocabs.count(name) > 0;
  const std::string give = "give --input " + name + "=CxHxW --classes " + name + "=N (classification) or --vocab " + name +
                           "=N [--seq-len " + name + "=T] (a language model)";
  if ((input || classes) && vocab)
    throw UsageError("--model " + name + ": --input/--classes and --vocab contradict each other (one task): " + give);
  ScriptedTask task;
  if (vocab) {
    task.kind = ScriptedTask::Kind::LanguageModel;
    task.vocab = s.model_vocabs.at(name);
    task.seq_len = sequence_in(s, name).value_or(512);
  } else {
    if (!input || !classes) throw UsageError("--model " + name + " is a TorchScript module, whose task gpubench cannot read: " + give);
    // A sequence length means nothing to a classifier: said, not ignored (a bare --seq-len
    // is every decoder's and leaves a classifier alone).
    if (s.seq_lens.count(name))
      throw UsageError("--seq-len " + name + "=" + std::to_string(s.seq_lens.at(name)) + ": --model " + name +
                       " is a classifier (--input, --classes), whose samples have no sequence: a sequence length is "
                       "for a language model (--vocab " + name + "=N)");
    task.input = s.model_inputs.at(name);
    task.classes = s.model_classes.at(name);
  }
  if (const auto f = s.model_flops.find(name); f != s.model_flops.end()) task.flops_per_sample = f->second;
  return task;
}

void register_models(const RunSettings& settings, const ArchiveProber& prober) {
  registry() = Registry{settings, {}, {}, {}, {}};
  for (const auto& [name, path] : settings.model_paths) {
    // Read and checked now, in every process: a bad config.json, weights that are not its
    // model's (their headers against the family's names and shapes), an archive that is not
    // a TorchScript module of the task, are exit 2 before anything runs.
    const ModelSource source = classify_model_path(name, path);
    if (source == ModelSource::TorchScriptArchive) register_scripted(name, path, settings, prober);
    else register_config(name, path, source, settings);
    registry().names.push_back(name);
  }
}

const std::vector<std::string>& registered_model_names() { return registry().names; }

const std::vector<std::string>& registered_model_notices() { return registry().notices; }

std::unique_ptr<Workload> make_registered_model(const std::string& name) {
  if (const auto found = registry().configs.find(name); found != registry().configs.end())
    return std::make_unique<DecoderLmWorkload>(found->second);
  if (const auto found = registry().scripted.find(name); found != registry().scripted.end())
    return std::make_unique<ScriptedWorkload>(found->second);
  return nullptr;
}

std::optional<std::int64_t> sequence_override(const std::string& name) { return sequence_in(registry().settings, name); }

}  // namespace gpubench
