#pragma once
// A user's model as code: a TorchScript archive (`--model NAME=FILE.pt`) and the task that
// says what a sample and its target are. Experimental: TorchScript is deprecated upstream,
// but it is the one format a model leaves Python in that LibTorch can train.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workloads/workload.h"

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

class ScriptedWorkload final : public Workload {
 public:
  // Loads and checks the archive (workloads/scripted_model.h) and one forward of two samples
  // on the CPU against the task's output shape: UsageError naming the file and what is
  // wrong (not a TorchScript module, a forward of another arity, an output of another shape).
  ScriptedWorkload(std::string name, std::string path, ScriptedTask task);

  std::string name() const override { return name_; }
  std::int64_t default_batch_size(DeviceKind device) const override;
  std::int64_t base_dataset_samples() const override { return 2048; }
  Model make_model() const override;
  Model make_model_with(const ModelTechniques& techniques) const override;
  Dataset make_dataset(const DatasetRequest& request) const override;
  torch::Tensor loss(const torch::Tensor& output, const torch::Tensor& targets) const override;
  nlohmann::json describe() const override;
  std::int64_t forward_macs_per_sample() const override { return forward_macs_; }
  std::string flops_convention() const override;
  std::int64_t tokens_per_sample() const override;
  std::string real_data_format() const override;
  bool real_scale() const override { return parameters_ >= 50'000'000; }
  WorkloadTraits traits() const override;
  std::optional<std::int64_t> declared_parameters() const override { return parameters_; }

 private:
  torch::Tensor example_batch(std::int64_t samples) const;  // synthetic inputs of the task's shape

  std::string name_, path_;
  ScriptedTask task_;
  std::int64_t parameters_ = 0;
  bool follows_train_eval_ = true;
  std::int64_t forward_macs_ = 0;  // from --flops-per-sample, else counted (0: neither worked)
  std::string flops_source_;
};

}  // namespace gpubench
