#include "workloads/scripted_workload.h"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/config/errors.h"
#include "workloads/data/image_folder.h"
#include "workloads/data/synthetic_images.h"
#include "workloads/data/token_windows.h"
#include "workloads/model_flops.h"
#include "workloads/scripted_model.h"

namespace gpubench {
namespace {

bool square_image(const std::vector<std::int64_t>& shape) { return shape.size() == 3 && shape[1] == shape[2]; }

Model wrap_scripted(ScriptedModule module) {
  Model model;
  model.module = module.ptr();
  model.forward = [module](const torch::Tensor& input) mutable { return module->forward(input); };
  model.data_parallel_forward = [](const torch::Tensor&, const std::vector<torch::Device>&) -> torch::Tensor {
    throw std::logic_error("a TorchScript module cannot be replicated by data_parallel (the rule table refuses dp)");
  };
  return model;
}

}  // namespace

ScriptedWorkload::ScriptedWorkload(std::string name, std::string path, ScriptedTask task)
    : ScriptedWorkload(name, path, task, probe_scripted_model(path, task)) {}

ScriptedWorkload::ScriptedWorkload(std::string name, std::string path, ScriptedTask task, const ScriptedProbe& probe)
    : name_(std::move(name)), path_(std::move(path)), task_(std::move(task)), parameters_(probe.parameters),
      follows_train_eval_(probe.follows_train_eval), forward_macs_(probe.forward_macs),
      flops_source_("counted by LibTorch's operator observer (at::RecordFunction) on one CPU forward") {
  if (task_.flops_per_sample) {
    forward_macs_ = std::llround(*task_.flops_per_sample / static_cast<double>(kFlopsPerMac * kTrainingPassesPerForward));
    flops_source_ = "--flops-per-sample (the user's count)";
  } else if (forward_macs_ == 0) {
    flops_source_ = "none counted (no matmul or convolution ran) and no --flops-per-sample";
  }
}

std::int64_t ScriptedWorkload::default_batch_size(DeviceKind device) const {
  if (task_.kind == ScriptedTask::Kind::LanguageModel) return device == DeviceKind::Cuda ? 8 : 1;
  return device == DeviceKind::Cuda ? 64 : 8;
}

Model ScriptedWorkload::make_model() const { return wrap_scripted(ScriptedModule(load_torchscript(path_))); }

Model ScriptedWorkload::make_model_with(const ModelTechniques& techniques) const {
  if (techniques.checkpoint || techniques.fp8_linears)
    throw std::invalid_argument(name_ + " is a TorchScript module: its structure is not gpubench's to segment or recast");
  return make_model();
}

Dataset ScriptedWorkload::make_dataset(const DatasetRequest& request) const {
  if (task_.kind == ScriptedTask::Kind::LanguageModel) {
    TokenWindowOptions options{request.samples, task_.seq_len, request.seed, task_.vocab, request.full_check};
    options.data_flag = "--data " + name_;
    return Dataset(token_lm_samples(request.data_path, options, task_.vocab));
  }
  if (!request.data_path.empty()) {
    if (!square_image(task_.input) || task_.input[0] != 3)
      throw UsageError("--data " + name_ + ": an ImageFolder tree needs --input " + name_ + "=3xSxS (square RGB)");
    return Dataset(open_image_folder(request.data_path, {request.samples, request.seed, task_.classes, task_.input[1],
                                                         request.full_check, request.max_image_pixels, name_}));
  }
  if (square_image(task_.input) && task_.input[0] == 3)
    return Dataset(make_synthetic_image_reader(request.samples, task_.input[1], std::min<std::int64_t>(task_.classes, 10), request.seed));
  return Dataset(std::make_shared<TensorDataset>(
      make_class_pattern_images(request.samples, task_.input, std::min<std::int64_t>(task_.classes, 10), request.seed)));
}

torch::Tensor ScriptedWorkload::loss(const torch::Tensor& output, const torch::Tensor& targets) const {
  if (task_.kind == ScriptedTask::Kind::Classification) return Workload::loss(output, targets);
  return next_token_loss(output, targets);
}

nlohmann::json ScriptedWorkload::describe() const {
  const bool lm = task_.kind == ScriptedTask::Kind::LanguageModel;
  nlohmann::json out = {
      {"definition", "a user's TorchScript module ('" + path_ + "'), " +
                         (lm ? fmt::format("language modelling: {} tokens in, logits over {} out", task_.seq_len, task_.vocab)
                             : fmt::format("classification: {} in, {} classes out", fmt::join(task_.input, "x"), task_.classes)) +
                         "; trained by LibTorch's autograd (graph executor optimisation off); experimental: TorchScript "
                         "is deprecated upstream"},
      {"archive", path_},
      {"task", lm ? "language-model" : "classification"},
      {"parameters_in_archive", parameters_},
      {"train_eval", follows_train_eval_ ? "follows train()/eval() (scripted, or no train-dependent op)"
                                         : "frozen: a traced module (batch_norm/dropout's training argument is a constant), "
                                           "train()/eval() do not reach it"}};
  if (lm) out["seq_len"] = task_.seq_len;
  else out["input_shape"] = task_.input;
  return out;
}

std::string ScriptedWorkload::flops_convention() const {
  return std::string(kMatmulFlopsConvention) + "; " + flops_source_;
}

std::int64_t ScriptedWorkload::tokens_per_sample() const {
  return task_.kind == ScriptedTask::Kind::LanguageModel ? task_.seq_len : 0;
}

std::string ScriptedWorkload::real_data_format() const {
  return task_.kind == ScriptedTask::Kind::LanguageModel ? "a token file (uint16 ids, uint32 above a 65536 vocabulary)"
                                                         : "an ImageFolder tree (square RGB --input only)";
}

WorkloadTraits ScriptedWorkload::traits() const {
  WorkloadTraits traits;
  traits.image_batches = task_.kind == ScriptedTask::Kind::Classification && task_.input.size() == 3;
  traits.cloneable = false;  // data_parallel needs a cloneable torch::nn::Module
  traits.real_scale = real_scale();
  return traits;
}

}  // namespace gpubench
