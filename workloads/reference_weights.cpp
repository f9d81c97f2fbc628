#include "workloads/reference_weights.h"

#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <stdexcept>

#include <torch/csrc/jit/serialization/pickle.h>

#include "workloads/formats/excerpt.h"

namespace gpubench {
namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string shape_of(const torch::Tensor& tensor) {
  std::ostringstream text;
  text << tensor.sizes();
  return text.str();
}

}  // namespace

TensorMap read_tensor_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("reference weights '" + path + "' cannot be read");
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const c10::IValue value = torch::pickle_load(bytes);
  if (!value.isGenericDict())
    throw std::runtime_error("reference weights '" + path + "' hold a " + value.tagKind() +
                             ", expected a dict of tensors (torch.save(dict(model.state_dict())))");
  TensorMap tensors;
  for (const auto& item : value.toGenericDict()) {
    if (!item.key().isString() || !item.value().isTensor())
      throw std::runtime_error("reference weights '" + path + "': every entry must be a name and a tensor");
    tensors[item.key().toStringRef()] = item.value().toTensor();
  }
  return tensors;
}

torch::Tensor WeightMapping::to_ours(const Name& name, const torch::Tensor& reference_tensor) const {
  return name.transposed ? reference_tensor.t() : reference_tensor;
}

WeightMapping torchvision_resnet_names() {
  WeightMapping mapping;
  mapping.reference = "torchvision resnet50";
  mapping.to_reference = [](const std::string& ours) { return WeightMapping::Name{ours, false}; };
  return mapping;
}

WeightMapping huggingface_gpt2_names() {
  WeightMapping mapping;
  mapping.reference = "HF transformers GPT2LMHeadModel";
  mapping.to_reference = [](const std::string& ours) {
    const bool conv1d = ends_with(ours, ".attn.c_attn.weight") || ends_with(ours, ".attn.c_proj.weight") ||
                        ends_with(ours, ".mlp.c_fc.weight") || ends_with(ours, ".mlp.c_proj.weight");
    return WeightMapping::Name{ours, conv1d};
  };
  mapping.tied = {{"lm_head.weight", "transformer.wte.weight"}};
  mapping.ignored = [](const std::string& name) { return ends_with(name, ".attn.bias") || ends_with(name, ".attn.masked_bias"); };
  return mapping;
}

WeightMapping huggingface_gpt2_base_names() {
  WeightMapping mapping = huggingface_gpt2_names();
  mapping.reference = "HF transformers GPT2Model (names without transformer.)";
  const auto with_prefix = mapping.to_reference;
  mapping.to_reference = [with_prefix](const std::string& ours) {
    WeightMapping::Name name = with_prefix(ours);
    if (name.reference_name.rfind("transformer.", 0) == 0) name.reference_name = name.reference_name.substr(12);
    return name;
  };
  mapping.tied = {{"lm_head.weight", "transformer.wte.weight"}};
  return mapping;
}

WeightMapping huggingface_decoder_names(const WeightNames& names) {
  WeightMapping mapping;
  mapping.reference = names.reference;
  const auto renames = names.renames;
  mapping.to_reference = [renames](const std::string& ours) {
    std::string name = "." + ours + ".";
    for (const auto& [from, to] : renames) {
      const auto at = name.find(from);
      if (at != std::string::npos) name.replace(at, from.size(), to);
    }
    return WeightMapping::Name{name.substr(1, name.size() - 2), false};
  };
  mapping.tied = {{mapping.to_reference("lm_head.weight").reference_name, "model.embed_tokens.weight"}};
  const auto prefixes = names.ignored_prefixes;
  const auto suffixes = names.ignored_suffixes;
  mapping.ignored = [prefixes, suffixes](const std::string& name) {
    for (const auto& prefix : prefixes)
      if (name.rfind(prefix, 0) == 0) return true;
    for (const auto& suffix : suffixes)
      if (ends_with(name, suffix)) return true;
    return false;
  };
  return mapping;
}

std::string load_mapped_weights(torch::nn::Module& module, const std::vector<std::string>& names,
                                const std::function<torch::Tensor(const std::string&)>& read, const WeightMapping& mapping) {
  torch::NoGradGuard no_grad;
  const std::set<std::string> available(names.begin(), names.end());
  std::set<std::string> used;
  std::string problems;
  const auto note = [&](const std::string& problem) { problems += (problems.empty() ? "" : "; ") + problem; };
  std::map<std::string, torch::Tensor> ours;
  for (const auto& item : module.named_parameters()) ours[item.key()] = item.value();
  for (const auto& item : module.named_buffers()) ours[item.key()] = item.value();
  for (auto& [name, tensor] : ours) {
    const WeightMapping::Name reference = mapping.to_reference(name);
    if (!available.count(reference.reference_name)) {
      note(name + " has no " + shown_name(reference.reference_name));
      continue;
    }
    used.insert(reference.reference_name);
    const torch::Tensor source = mapping.to_ours(reference, read(reference.reference_name));
    if (source.sizes() != tensor.sizes()) {
      note(name + " is " + shape_of(tensor) + ", " + reference.reference_name + " gives " + shape_of(source));
      continue;
    }
    tensor.copy_(source);
  }
  for (const auto& [reference_name, our_name] : mapping.tied) {
    // An untied model owns the name itself (its lm_head.weight): loaded above, not a tie.
    if (!available.count(reference_name) || !ours.count(our_name) || used.count(reference_name)) continue;
    used.insert(reference_name);
    const torch::Tensor& tied = ours.at(our_name);
    if (!torch::equal(read(reference_name).to(tied.device(), tied.scalar_type()), tied))
      note(reference_name + " is not tied to " + our_name);
  }
  for (const auto& name : names)
    if (!used.count(name) && !mapping.ignored(name)) note(shown_name(name) + " has no counterpart in gpubench's model");
  return problems;
}

void load_reference_weights(torch::nn::Module& module, const TensorMap& weights, const WeightMapping& mapping) {
  std::vector<std::string> names;
  for (const auto& [name, tensor] : weights) names.push_back(name);
  const std::string problems =
      load_mapped_weights(module, names, [&](const std::string& name) { return weights.at(name); }, mapping);
  if (!problems.empty()) throw std::runtime_error(mapping.reference + " weights do not map one to one: " + problems);
}

}  // namespace gpubench
