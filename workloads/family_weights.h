#pragma once
// The tensors a family's checkpoint holds, by HF's names and in HF's layout, computed from
// the shape alone: a model file is checked against them before any model is built (a 7B
// model would take tens of gigabytes to build just to compare names), and loaded after.
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>

#include "workloads/formats/decoder_shape.h"
#include "workloads/gpt2.h"
#include "workloads/reference_weights.h"

namespace gpubench {

using ExpectedWeights = std::vector<std::pair<std::string, std::vector<std::int64_t>>>;

// The one decoder's tensors by its own names (HF's Llama layout: model.embed_tokens.weight,
// each layer's norms, q/k/v/o or qkv projections, q/k norms, gate/up/down or fused MLP
// projections, with the biases the shape has, model.norm and, untied, lm_head.weight), in
// HF's layout: a family's map (huggingface_decoder_names) gives its checkpoint's names.
ExpectedWeights decoder_expected_weights(const DecoderShape& shape);

// GPT2LMHeadModel's: transformer.wte/wpe, each block's ln_1, attn.c_attn, attn.c_proj,
// ln_2, mlp.c_fc, mlp.c_proj (Conv1D weights as [in, out]), transformer.ln_f.
ExpectedWeights gpt2_expected_weights(const Gpt2Shape& shape);

// What a checkpoint holding `names` (each of shape_of(name)) lacks, holds besides, or holds
// in another shape, against `expected`, through the family's `mapping` (its tied names may
// be there too; its ignored ones hold no weights; its to_reference gives the file's name
// of each expected one): "" when it matches.
std::string weights_mismatch(const ExpectedWeights& expected, const std::vector<std::string>& names,
                             const std::function<std::vector<std::int64_t>(const std::string&)>& shape_of,
                             const WeightMapping& mapping);

}  // namespace gpubench
