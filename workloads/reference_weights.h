#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "workloads/formats/hf_decoder_config.h"

namespace gpubench {

// Weights of a reference implementation, loaded into gpubench's model by name: how the
// standard workloads are proven equal to their references (tests/workloads/reference_*).
// The file is what Python writes with torch.save(dict(model.state_dict()), path) -- a plain
// dict; an OrderedDict does not unpickle in LibTorch (shared/LIBTORCH-COMPAT.md).
using TensorMap = std::map<std::string, torch::Tensor>;

// Throws std::runtime_error naming the file when it is not a dict of named tensors.
TensorMap read_tensor_file(const std::string& path);

// The written-down correspondence between a reference's names and ours, one to one.
struct WeightMapping {
  std::string reference;  // e.g. "torchvision resnet50"
  // Our parameter or buffer name -> the reference's, and whether the reference stores that
  // tensor transposed (HF GPT-2's Conv1D keeps weights as [in, out], a Linear as [out, in]).
  struct Name {
    std::string reference_name;
    bool transposed = false;
  };
  std::function<Name(const std::string& ours)> to_reference;
  // Reference names that are the same tensor as one of ours (a tied LM head): checked equal
  // to it, not loaded twice.
  std::map<std::string, std::string> tied;
  // Reference names that hold no weights (HF's old causal-mask buffers).
  std::function<bool(const std::string& reference_name)> ignored = [](const std::string&) { return false; };

  // A reference tensor (a weight or its gradient) in our layout.
  torch::Tensor to_ours(const Name& name, const torch::Tensor& reference_tensor) const;
};

// torchvision.models.resnet50(): every name is ours unchanged (workloads/resnet50.h).
WeightMapping torchvision_resnet_names();
// HF transformers GPT2LMHeadModel: names unchanged, the Conv1D weights (attn.c_attn,
// attn.c_proj, mlp.c_fc, mlp.c_proj) transposed, lm_head.weight tied to transformer.wte.weight,
// attn.bias / attn.masked_bias (mask buffers of older releases) ignored.
WeightMapping huggingface_gpt2_names();
// The same for a file saved from GPT2Model (the original OpenAI hub checkpoints): no
// "transformer." prefix on its names.
WeightMapping huggingface_gpt2_base_names();

// Copies every parameter and buffer of `module` from `weights` through `mapping`. Throws
// std::runtime_error listing what is missing, left over, or of another shape.
void load_reference_weights(torch::nn::Module& module, const TensorMap& weights, const WeightMapping& mapping);

// The same from any source of named tensors (a safetensors file read tensor by tensor):
// `names` are what the source holds, `read` gives one. Returns what does not map one to
// one (missing, left over, of another shape), "" when everything did.
std::string load_mapped_weights(torch::nn::Module& module, const std::vector<std::string>& names,
                                const std::function<torch::Tensor(const std::string&)>& read, const WeightMapping& mapping);

// A config'd decoder family's checkpoint names (workloads/decoder.h's, through the family's
// renames; HF's Llama layout unchanged): a tied model's head, where a file has it, must
// equal the embedding; names under the family's ignored prefixes and suffixes hold none of
// the model's weights.
WeightMapping huggingface_decoder_names(const WeightNames& names = {});

}  // namespace gpubench
