#pragma once
// What gpubench learns of a TorchScript model before any config runs: its archive loaded
// and one forward of two samples, on the CPU, checked against the task the flags give. The
// parent process makes the probe in a process of its own (cli/model_probe.h), where a
// forward that outgrows memory or never returns is a named refusal, not gpubench's death;
// a config's child makes it in itself (its own process already bounds it).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpubench {

struct ScriptedTask {
  enum class Kind { Classification, LanguageModel };
  Kind kind = Kind::Classification;
  std::vector<std::int64_t> input;  // classification: one sample's shape (3x224x224)
  std::int64_t classes = 0;         // classification: the output's width; targets below it
  std::int64_t vocab = 0;           // language model: token ids below it; logits [B, T, vocab]
  std::int64_t seq_len = 0;         // language model: tokens per sample
  // --flops-per-sample: training FLOPs (forward + backward) of one sample, the user's count.
  std::optional<double> flops_per_sample;
};

// The samples of the probe's forward: two, so that a model mixing its batch is seen.
constexpr std::int64_t kProbeSamples = 2;

// The probe's findings.
struct ScriptedProbe {
  std::int64_t parameters = 0;      // elements of the archive's parameters, a shared one once
  bool follows_train_eval = true;   // workloads/scripted_model.h, follows_train_eval
  std::int64_t forward_macs = 0;    // one sample's forward, counted (0: no matmul or convolution ran)

  nlohmann::json to_json() const;
  // Throws std::runtime_error for JSON that to_json did not write.
  static ScriptedProbe from_json(const nlohmann::json& json);
};

// The shape of a batch of `samples` of the task's input, as messages print it ("2x3x8x8").
std::string task_batch_shape(const ScriptedTask& task, std::int64_t samples);

// The probe's input estimated before it is allocated: UsageError naming `--input NAME=...`
// (or --seq-len) when a batch of kProbeSamples would not fit in `available_bytes` of host
// memory (named by `source`; 0: unknown, then only a size past 64 bits is refused).
void check_probe_input_fits(const std::string& name, const ScriptedTask& task, double available_bytes,
                            const std::string& source);

// The probe, in this process: UsageError naming the file and what is wrong (not a
// TorchScript module, a forward of another arity, nothing to train: no parameters, all
// frozen; a forward that fails, giving the cause its TorchScript traceback ends with; an
// output of another shape, not floating point, or that no gradient reaches).
ScriptedProbe probe_scripted_model(const std::string& path, const ScriptedTask& task);

}  // namespace gpubench
