#include "workloads/workload.h"

#include <stdexcept>

#include "core/config/errors.h"
#include "workloads/cnn.h"
#include "workloads/decoder_lm.h"
#include "workloads/gpt2.h"
#include "workloads/mlp.h"
#include "workloads/model_flops.h"
#include "workloads/model_registry.h"
#include "workloads/resnet50.h"
#include "workloads/transformer.h"

namespace gpubench {

torch::Tensor Workload::loss(const torch::Tensor& output, const torch::Tensor& targets) const {
  return torch::nn::functional::cross_entropy(output.to(torch::kFloat32), targets);
}

torch::Tensor next_token_loss(const torch::Tensor& logits, const torch::Tensor& targets) {
  return torch::nn::functional::cross_entropy(logits.reshape({-1, logits.size(-1)}).to(torch::kFloat32), targets.reshape({-1}));
}

std::string Workload::flops_convention() const { return kMatmulFlopsConvention; }

const std::vector<std::string>& builtin_workload_names() {
  static const std::vector<std::string> names = {"mlp", "cnn", "transformer", "resnet50", "gpt2", "llama", "moe"};
  return names;
}

std::vector<std::string> workload_names() {
  std::vector<std::string> names = builtin_workload_names();
  for (const auto& name : registered_model_names()) names.push_back(name);
  return names;
}

std::unique_ptr<Workload> make_workload(const std::string& name) {
  if (name == "mlp") return std::make_unique<MlpWorkload>();
  if (name == "cnn") return std::make_unique<CnnWorkload>();
  if (name == "transformer") return std::make_unique<TransformerWorkload>();
  if (name == "resnet50") return std::make_unique<ResNet50Workload>();
  if (name == "gpt2") return std::make_unique<Gpt2Workload>();
  if (name == "llama") return make_llama_workload(sequence_override("llama"));
  if (name == "moe") return make_moe_workload(sequence_override("moe"));
  if (auto model = make_registered_model(name)) return model;
  std::string known;
  for (const auto& each : workload_names()) known += (known.empty() ? "" : ", ") + each;
  throw UsageError("workload '" + name + "' is unknown: expected " + known + " (or a --model NAME=PATH)");
}

std::unique_ptr<Workload> make_workload_for(const Config& config) {
  std::unique_ptr<Workload> workload = make_workload(config.workload);
  if (std::unique_ptr<Workload> there = workload->on_device(config.device)) return there;
  return workload;
}

Model Workload::make_model_with(const ModelTechniques& techniques) const {
  const WorkloadTraits offered = traits();
  if (techniques.checkpoint && !offered.segments) throw std::invalid_argument(name() + " has no blocks to checkpoint");
  if (techniques.fp8_linears && !offered.fp8_linears) throw std::invalid_argument(name() + " has no FP8 Linear layers");
  return make_model();
}

WorkloadTraits Workload::traits() const {
  WorkloadTraits traits;
  traits.real_scale = real_scale();
  return traits;
}

std::map<std::string, WorkloadTraits> workload_traits(const std::vector<std::string>& names) {
  std::map<std::string, WorkloadTraits> traits;
  for (const auto& name : names) traits[name] = make_workload(name)->traits();
  return traits;
}

}  // namespace gpubench
