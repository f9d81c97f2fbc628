#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "workloads/formats/decoder_shape.h"
#include "workloads/formats/hf_rope_config.h"

namespace gpubench {

// The model gpubench builds from a Hugging Face config.json: GPT-2 (its own code, learned
// positions and Conv1D weights) or the one decoder (workloads/decoder.h), whose options a
// family's reader fills (hf_family_readers.cpp).
enum class DecoderFamily { Gpt2, Decoder };

// GPT-2's dropout probabilities, read and not applied: a benchmark of the training step
// runs without dropout, and every published GPT-2 config asks for 0.1 (refusing would
// refuse them all). The report row says so.
struct Gpt2Dropout {
  double resid_pdrop = 0.0;
  double embd_pdrop = 0.0;
  double attn_pdrop = 0.0;
  bool any() const { return resid_pdrop != 0.0 || embd_pdrop != 0.0 || attn_pdrop != 0.0; }
};

// How a family's checkpoint names differ from the decoder's (HF's Llama-layout names): each
// rename replaces a dotted part of a name (".mlp.up_proj." -> ".mlp.c_fc."), in order, each
// at most once; names under an ignored prefix or with an ignored suffix hold no weights of
// the model (a multimodal checkpoint's vision tower, old rotary buffers).
struct WeightNames {
  std::vector<std::pair<std::string, std::string>> renames;
  std::vector<std::string> ignored_prefixes, ignored_suffixes;
  std::string reference = "HF transformers LlamaForCausalLM";
};

// A decoder LM's shape as HF builds it from config.json: plain data, every value resolved
// (no "None means ..." left for the model code), checked so that the model gpubench builds
// is HF's model of the same file, or the file is refused.
struct DecoderConfig {
  std::string path;        // the config.json read
  DecoderFamily family = DecoderFamily::Decoder;
  std::string model_type;  // "gpt2", "llama", "qwen3", "gemma3_text", ...
  // A multimodal wrapper whose text decoder this is ("gemma3"): its model_type, empty else.
  std::string wrapper_model_type;
  std::string hidden_act;  // as config.json spells it (gpt2: activation_function)
  // Every family's dimensions (gpt2: n_embd, n_layer, ...; max_positions its n_positions);
  // for the decoder, its options too.
  DecoderShape shape;
  WeightNames weight_names;
  // What config.json asks for and gpubench does not do, with why (the row's not_applied).
  std::vector<std::string> not_applied;

  // GPT-2 only.
  Gpt2Dropout dropout_ignored;
  bool reorder_and_upcast_attn = false;  // accepted: changes precision only, none in fp32

  // Trainable parameters as HF counts them (sum of numel over model.parameters()): a tied
  // head counted once, gpt2's wpe included, biases as resolved. UsageError when it
  // overflows 64 bits (parse_decoder_config refuses such a file).
  std::int64_t parameter_count() const;
  // Refuses a run of seq_len tokens the model cannot compute as HF does: over GPT-2's
  // n_positions (no wpe row).
  void check_sequence_length(std::int64_t seq_len) const;
  // For the report row: family, shape, options, what is ignored and why.
  nlohmann::json describe() const;
  // not_applied and GPT-2's dropout and upcast notes.
  std::vector<std::string> not_applied_notes() const;
};

// Reads and checks config.json at `path` (a file). UsageError "config.json 'PATH': FIELD
// is VALUE: expected WHAT" for anything that would make a different model than HF's:
// an unknown model_type or architectures, a missing shape key (class defaults differ per
// family, so none is assumed), unsupported RoPE, dropout in attention, a quantized model,
// and shapes that do not divide.
DecoderConfig read_decoder_config(const std::string& path);
// The same on parsed JSON; `path` names it in messages.
DecoderConfig parse_decoder_config(const nlohmann::json& config, const std::string& path);

}  // namespace gpubench
