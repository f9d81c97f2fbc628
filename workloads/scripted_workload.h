#pragma once
// A user's model as code: a TorchScript archive (`--model NAME=FILE.pt`) and the task that
// says what a sample and its target are. Experimental: TorchScript is deprecated upstream,
// but it is the one format a model leaves Python in that LibTorch can train.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workloads/scripted_probe.h"
#include "workloads/workload.h"

namespace gpubench {

class ScriptedWorkload final : public Workload {
 public:
  // Probes the archive here (workloads/scripted_probe.h): UsageError naming the file and
  // what is wrong.
  ScriptedWorkload(std::string name, std::string path, ScriptedTask task);
  // With what a probe elsewhere found (the parent's, in a process of its own).
  ScriptedWorkload(std::string name, std::string path, ScriptedTask task, const ScriptedProbe& probe);

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
  std::string name_, path_;
  ScriptedTask task_;
  std::int64_t parameters_ = 0;
  bool follows_train_eval_ = true;
  std::int64_t forward_macs_ = 0;  // from --flops-per-sample, else counted (0: neither worked)
  std::string flops_source_;
};

}  // namespace gpubench
