#include "workloads/model_registry.h"

#include <map>

#include "core/config/errors.h"
#include "workloads/config_model.h"
#include "workloads/scripted_model.h"
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
};

Registry& registry() {
  static Registry instance;
  return instance;
}

// A TorchScript model's task from its flags: classification (--input and --classes) or a
// language model (--vocab, --seq-len); a missing or contradictory one says what to give.
ScriptedTask task_of(const std::string& name, const RunSettings& s) {
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
    task.seq_len = sequence_override(name).value_or(512);
  } else {
    if (!input || !classes) throw UsageError("--model " + name + " is a TorchScript module, whose task gpubench cannot read: " + give);
    task.input = s.model_inputs.at(name);
    task.classes = s.model_classes.at(name);
  }
  if (const auto f = s.model_flops.find(name); f != s.model_flops.end()) task.flops_per_sample = f->second;
  return task;
}

}  // namespace

void register_models(const RunSettings& settings) {
  registry() = Registry{settings, {}, {}, {}};
  for (const auto& [name, path] : settings.model_paths) {
    // Read and checked now, in every process: a bad config.json, weights that are not its
    // model's (their headers against the family's names and shapes), an archive that is not
    // a TorchScript module of the task, are exit 2 before anything runs.
    if (is_zip_archive(path)) {
      registry().scripted.emplace(name, ScriptedWorkload(name, path, task_of(name, settings)));
    } else {
      if (settings.model_inputs.count(name) || settings.model_classes.count(name) || settings.model_vocabs.count(name))
        throw UsageError("--model " + name + "='" + path + "' is a config.json model: --input, --classes and --vocab "
                           "are for a TorchScript archive (a config says its own shape)");
      registry().configs.emplace(name, read_config_model(name, path, sequence_override(name), settings.random_weights));
    }
    registry().names.push_back(name);
  }
}

const std::vector<std::string>& registered_model_names() { return registry().names; }

std::unique_ptr<Workload> make_registered_model(const std::string& name) {
  if (const auto found = registry().configs.find(name); found != registry().configs.end())
    return std::make_unique<DecoderLmWorkload>(found->second);
  if (const auto found = registry().scripted.find(name); found != registry().scripted.end())
    return std::make_unique<ScriptedWorkload>(found->second);
  return nullptr;
}

std::optional<std::int64_t> sequence_override(const std::string& name) {
  const auto& lengths = registry().settings.seq_lens;
  if (const auto own = lengths.find(name); own != lengths.end()) return own->second;
  if (const auto every = lengths.find(""); every != lengths.end()) return every->second;
  return std::nullopt;
}

}  // namespace gpubench
