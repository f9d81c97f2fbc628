#include "harness/run/compiled_step.h"

#include <map>
#include <unordered_map>

#include <torch/csrc/inductor/aoti_package/model_package_loader.h>

namespace gpubench {
namespace {

std::map<std::string, torch::Tensor> named_tensors(torch::nn::Module& module) {
  std::map<std::string, torch::Tensor> tensors;
  for (const auto& item : module.named_parameters()) tensors[item.key()] = item.value();
  for (const auto& item : module.named_buffers()) tensors[item.key()] = item.value();
  return tensors;
}

std::string sizes_text(c10::IntArrayRef sizes) { return c10::str(sizes); }

// A dtype as Python's str(torch.dtype) names it, without "torch.".
c10::ScalarType python_dtype(const std::string& name) {
  static const std::map<std::string, c10::ScalarType> known = {
      {"float32", torch::kFloat32}, {"bfloat16", torch::kBFloat16}, {"float16", torch::kFloat16}, {"int64", torch::kInt64}};
  const auto found = known.find(name);
  if (found == known.end()) throw std::runtime_error("compile: the manifest names dtype '" + name + "', expected one of float32, bfloat16, float16, int64");
  return found->second;
}

// The module's tensor for one of the manifest's constants, checked against what was exported.
torch::Tensor bound_tensor(const std::map<std::string, torch::Tensor>& tensors, const nlohmann::json& constant) {
  const std::string name = constant.at("name");
  const auto found = tensors.find(name);
  if (found == tensors.end())
    throw std::runtime_error("compile: the package's constant '" + name + "' is no parameter or buffer of the model");
  const auto shape = constant.at("shape").get<std::vector<std::int64_t>>();
  const std::string dtype = constant.at("dtype");
  const torch::Tensor& tensor = found->second;
  if (tensor.sizes() != c10::IntArrayRef(shape) || tensor.scalar_type() != python_dtype(dtype))
    throw std::runtime_error("compile: '" + name + "' is " + sizes_text(tensor.sizes()) + " " +
                             c10::toString(tensor.scalar_type()) + " in the model and " + sizes_text(shape) + " " + dtype +
                             " in the package");
  if (!tensor.is_contiguous())
    throw std::runtime_error("compile: '" + name + "' is not contiguous; the package reads its constants as exported");
  return tensor;
}

}  // namespace

CompiledTrainingStep::CompiledTrainingStep(const CompiledPackage& package, torch::nn::Module& module) {
  const nlohmann::json& manifest = package.manifest;
  const auto tensors = named_tensors(module);
  std::unordered_map<std::string, torch::Tensor> constants;
  for (const auto& constant : manifest.at("constants"))
    constants[constant.at("exported_name").get<std::string>()] = bound_tensor(tensors, constant);
  for (const auto& item : module.named_parameters())
    if (constants.count("model." + item.key()) == 0)
      throw std::runtime_error("compile: the model's parameter '" + item.key() + "' is not in the package");
  for (const auto& name : manifest.at("gradients")) gradient_targets_.push_back(tensors.at(name.get<std::string>()));
  data_shape_ = manifest.at("inputs").at(0).at("shape").get<std::vector<std::int64_t>>();
  target_shape_ = manifest.at("inputs").at(1).at("shape").get<std::vector<std::int64_t>>();
  loader_ = std::make_unique<torch::inductor::AOTIModelPackageLoader>(package.package_path());
  // By the package's internal names (the loader's load_constants wants every constant of
  // the package, and a transformers twin's graph also holds constants that are no tensor of
  // the model: its RoPE frequencies, which keep their packaged values). Every parameter and
  // buffer the export lifted is bound above, and every parameter of the model is one of them.
  // User-managed: the package keeps pointers to these tensors, not copies.
  torch::inductor::AOTIModelContainerRunner* runner = loader_->get_runner();
  std::unordered_map<std::string, torch::Tensor> by_internal_name;
  for (const auto& [internal, fqn] : runner->getConstantNamesToOriginalFQNs())
    if (const auto found = constants.find(fqn); found != constants.end()) by_internal_name.emplace(internal, found->second);
  if (by_internal_name.size() != constants.size())
    throw std::runtime_error("compile: the package names " + std::to_string(by_internal_name.size()) + " of the manifest's " +
                             std::to_string(constants.size()) + " constants");
  runner->update_constant_buffer(by_internal_name, /*use_inactive=*/false, /*validate_full_updates=*/false, /*user_managed=*/true);
}

CompiledTrainingStep::~CompiledTrainingStep() = default;

torch::Tensor CompiledTrainingStep::run(const torch::Tensor& data, const torch::Tensor& target, double gradient_scale,
                                        bool add) {
  if (data.sizes() != c10::IntArrayRef(data_shape_) || target.sizes() != c10::IntArrayRef(target_shape_))
    throw std::runtime_error("compile: the package was exported for batches of " + sizes_text(data_shape_) + " and " +
                             sizes_text(target_shape_) + ", got " + sizes_text(data.sizes()) + " and " +
                             sizes_text(target.sizes()));
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> outputs = loader_->run({data, target});
  if (outputs.size() != gradient_targets_.size() + 1)
    throw std::runtime_error("compile: the package returned " + std::to_string(outputs.size()) + " tensors, expected the loss and " +
                             std::to_string(gradient_targets_.size()) + " gradients");
  for (std::size_t i = 0; i < gradient_targets_.size(); ++i) {
    torch::Tensor& grad = gradient_targets_[i].mutable_grad();
    torch::Tensor& made = outputs[i + 1];
    if (add && grad.defined())
      grad.add_(made, gradient_scale);
    else
      grad = gradient_scale == 1 ? made : made.mul_(gradient_scale);
  }
  return outputs[0];
}

}  // namespace gpubench
