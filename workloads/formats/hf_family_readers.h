#pragma once
// The decoder families gpubench reads from a Hugging Face config.json: for each model_type,
// the causal-LM class a config of it builds, its config class's defaults (named in refusals
// of missing keys: they differ per family, which is why none is assumed), and its reader:
// the config's fields -> the one decoder's options (decoder_shape.h) and the checkpoint's
// weight names. Adding a family is a reader here and a reference test
// (tests/workloads/hf_family_cases.py).
#include <vector>

#include "workloads/formats/hf_config_fields.h"
#include "workloads/formats/hf_decoder_config.h"

namespace gpubench {

struct FamilyDefaults {
  const char* config_class;
  // vocab_size, hidden_size, intermediate_size, num_hidden_layers, num_attention_heads,
  // max_position_embeddings as the config class would silently assume them.
  const char* values[6];
  std::string would_assume(int which) const;
};

using FamilyReader = void (*)(const ConfigFields& fields, const FamilyDefaults& defaults, DecoderConfig& config);

struct DecoderFamilyEntry {
  const char* model_type;
  const char* architecture;  // the causal-LM class AutoModelForCausalLM builds
  FamilyDefaults defaults;
  FamilyReader read;
};

// Every family but GPT-2 (hf_decoder_config.cpp reads that one).
const std::vector<DecoderFamilyEntry>& decoder_families();

}  // namespace gpubench
