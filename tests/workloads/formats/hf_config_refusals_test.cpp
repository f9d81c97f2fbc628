// What a config.json may not say (UsageError "config.json 'PATH': FIELD is VALUE: expected
// WHAT"), and the two RoPE spellings read as transformers 5.17 normalises them.
#include <gtest/gtest.h>

#include "core/config/errors.h"
#include "workloads/formats/hf_decoder_config.h"

namespace gpubench {
namespace {

using nlohmann::json;

const char* kPath = "/models/m/config.json";

#define EXPECT_MENTIONS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

json llama() {
  return {{"model_type", "llama"}, {"architectures", {"LlamaForCausalLM"}}, {"vocab_size", 100}, {"hidden_size", 32},
          {"intermediate_size", 64}, {"num_hidden_layers", 2}, {"num_attention_heads", 4},
          {"num_key_value_heads", 2}, {"max_position_embeddings", 128}, {"rms_norm_eps", 1e-5}};
}
json typed(const char* type) {
  json config = llama();
  config["model_type"] = type;
  config["architectures"] = {std::string(type) == "qwen2" ? "Qwen2ForCausalLM" : "MistralForCausalLM"};
  return config;
}
json gpt2() {
  return {{"model_type", "gpt2"}, {"vocab_size", 100}, {"n_embd", 32}, {"n_layer", 2}, {"n_head", 4}, {"n_positions", 64}};
}
json with(json config, const std::string& key, const json& value) {
  config[key] = value;
  return config;
}
json without(json config, const std::string& key) {
  config.erase(key);
  return config;
}
DecoderConfig parse_json_config(const json& config) { return parse_decoder_config(config, kPath); }
// The refusal's message; it must name the file.
std::string refusal(const json& config) {
  try {
    parse_json_config(config);
  } catch (const UsageError& error) {
    const std::string message = error.what();
    EXPECT_MENTIONS(message, std::string("config.json '") + kPath + "': ");
    return message;
  }
  return "accepted";
}

TEST(HfConfigRefusals, OtherModelsAndHeads) {
  EXPECT_MENTIONS(refusal(with(llama(), "model_type", "qwen3")),
                  "model_type is \"qwen3\": expected one of \"gpt2\", \"llama\", \"mistral\", \"qwen2\"");
  EXPECT_MENTIONS(refusal(without(llama(), "model_type")), "model_type is missing: expected one of");
  EXPECT_MENTIONS(refusal(with(llama(), "architectures", {"LlamaForSequenceClassification"})),
                  "architectures is [\"LlamaForSequenceClassification\"]: expected [\"LlamaForCausalLM\"]");
  EXPECT_MENTIONS(refusal(with(gpt2(), "architectures", {"GPT2LMHeadModel", "GPT2Model"})), "architectures is");
  EXPECT_EQ(refusal(without(llama(), "architectures")), "accepted");
  EXPECT_MENTIONS(refusal(with(llama(), "quantization_config", {{"bits", 4}})), "quantization_config is {\"bits\":4}");
  EXPECT_MENTIONS(refusal(json::array()), "is []: expected a JSON object");
}

TEST(HfConfigRefusals, MissingOrMistypedShapeKeysNeverFallBackToClassDefaults) {
  EXPECT_MENTIONS(refusal(without(llama(), "hidden_size")),
                  "hidden_size is missing: expected an integer >= 1 (required: LlamaConfig would silently assume 4096)");
  EXPECT_MENTIONS(refusal(without(typed("qwen2"), "vocab_size")), "Qwen2Config would silently assume 151936");
  EXPECT_MENTIONS(refusal(without(typed("mistral"), "num_key_value_heads")),
                  "num_key_value_heads is missing: expected an integer >= 1 (required: MistralConfig would silently "
                  "assume 8)");
  EXPECT_MENTIONS(refusal(without(typed("qwen2"), "num_key_value_heads")), "Qwen2Config would silently assume 32");
  EXPECT_MENTIONS(refusal(without(gpt2(), "n_positions")), "n_positions is missing: expected an integer >= 1 (required: "
                                                           "GPT2Config would silently assume 1024)");
  EXPECT_MENTIONS(refusal(with(llama(), "vocab_size", 100.0)), "vocab_size is 100.0: expected an integer in [1, 2^40]");
  EXPECT_MENTIONS(refusal(with(llama(), "vocab_size", true)), "vocab_size is true: expected an integer");
  EXPECT_MENTIONS(refusal(with(llama(), "num_hidden_layers", 0)), "num_hidden_layers is 0: expected an integer");
  EXPECT_MENTIONS(refusal(with(llama(), "head_dim", -8)), "head_dim is -8");
  EXPECT_MENTIONS(refusal(with(llama(), "head_dim", 7)), "head_dim is 7: expected a head width (head_dim 7) that is even");
  EXPECT_MENTIONS(refusal(with(llama(), "tie_word_embeddings", 1)), "tie_word_embeddings is 1: expected true or false");
  EXPECT_MENTIONS(refusal(with(llama(), "rms_norm_eps", -1)), "rms_norm_eps is -1: expected a number >= 0");
  // Llama without num_key_value_heads: as many as the heads (LlamaConfig's None); null likewise.
  EXPECT_EQ(parse_json_config(without(llama(), "num_key_value_heads")).num_key_value_heads, 4);
  EXPECT_EQ(parse_json_config(with(typed("mistral"), "num_key_value_heads", nullptr)).num_key_value_heads, 4);
  // Dimensions at the 2^40 bound still count, and the count's overflow is refused.
  json huge = with(with(llama(), "hidden_size", std::int64_t{1} << 40), "vocab_size", std::int64_t{1} << 40);
  EXPECT_MENTIONS(refusal(with(huge, "intermediate_size", std::int64_t{1} << 40)), "its parameter count overflows 64 bits");
  // The attention width itself overflowing (heads x head_dim = 2^64) is refused too, not wrapped to 0.
  json wide = with(with(typed("mistral"), "num_attention_heads", std::int64_t{1} << 40), "num_key_value_heads",
                   std::int64_t{1} << 40);
  EXPECT_MENTIONS(refusal(with(wide, "head_dim", std::int64_t{1} << 24)), "its parameter count overflows 64 bits");
}

TEST(HfConfigRefusals, ShapesThatDoNotDivide) {
  EXPECT_MENTIONS(refusal(with(llama(), "num_key_value_heads", 3)),
                  "num_key_value_heads is 3: expected a divisor of num_attention_heads (4)");
  EXPECT_MENTIONS(refusal(with(with(llama(), "hidden_size", 30), "head_dim", 8)),
                  "num_attention_heads is 4: expected a divisor of hidden_size (30)");  // LlamaConfig refuses it too
  EXPECT_MENTIONS(refusal(with(typed("qwen2"), "hidden_size", 30)), "expected a divisor of hidden_size (30)");
  // Mistral with head_dim given does not divide hidden (HF builds it).
  EXPECT_EQ(parse_json_config(with(with(typed("mistral"), "hidden_size", 30), "head_dim", 8)).head_dim, 8);
  EXPECT_MENTIONS(refusal(with(gpt2(), "n_head", 5)), "n_head is 5: expected a divisor of n_embd (32)");
  EXPECT_MENTIONS(refusal(with(gpt2(), "hidden_size", 64)), "hidden_size is 64: expected the value of n_embd (32)");
  EXPECT_EQ(parse_json_config(with(without(gpt2(), "n_embd"), "hidden_size", 64)).hidden_size, 64);  // the alias alone
}

TEST(HfConfigRefusals, ActivationsDropoutAndGpt2Attention) {
  EXPECT_MENTIONS(refusal(with(llama(), "hidden_act", "gelu")), "hidden_act is \"gelu\": expected \"silu\" or \"swish\"");
  EXPECT_EQ(parse_json_config(with(llama(), "hidden_act", "swish")).activation, DecoderActivation::Silu);
  EXPECT_MENTIONS(refusal(with(gpt2(), "activation_function", "quick_gelu")), "activation_function is \"quick_gelu\"");
  EXPECT_MENTIONS(refusal(with(gpt2(), "activation_function", "gelu_10")), "expected the tanh GELU");
  for (const char* tanh : {"gelu_new", "gelu_pytorch_tanh", "gelu_python_tanh", "gelu_accurate", "gelu_fast"})
    EXPECT_EQ(parse_json_config(with(gpt2(), "activation_function", tanh)).activation, DecoderActivation::GeluTanh) << tanh;
  EXPECT_EQ(parse_json_config(with(gpt2(), "activation_function", "gelu")).activation, DecoderActivation::GeluErf);
  // GPT2Config takes relu and silu; gpubench's GPT-2 does not: refused where the file is read.
  EXPECT_MENTIONS(refusal(with(gpt2(), "activation_function", "relu")), "activation_function is \"relu\": expected the tanh GELU");
  EXPECT_MENTIONS(refusal(with(gpt2(), "activation_function", "silu")), "activation_function is \"silu\"");
  EXPECT_MENTIONS(refusal(with(llama(), "attention_dropout", 0.1)), "attention_dropout is 0.1: expected 0");
  EXPECT_EQ(parse_json_config(with(llama(), "attention_dropout", 0)).hidden_size, 32);
  EXPECT_MENTIONS(refusal(with(gpt2(), "add_cross_attention", true)), "add_cross_attention is true: expected false");
  EXPECT_MENTIONS(refusal(with(gpt2(), "scale_attn_weights", false)), "scale_attn_weights is false: expected true");
  EXPECT_MENTIONS(refusal(with(gpt2(), "scale_attn_by_inverse_layer_idx", true)),
                  "scale_attn_by_inverse_layer_idx is true: expected false");
  EXPECT_MENTIONS(refusal(with(gpt2(), "resid_pdrop", 1.5)), "resid_pdrop is 1.5: expected a number in [0.0, 1.0]");
  const DecoderConfig upcast = parse_json_config(with(gpt2(), "reorder_and_upcast_attn", true));
  EXPECT_TRUE(upcast.reorder_and_upcast_attn);
  EXPECT_MENTIONS(upcast.describe()["not_applied"][1].get<std::string>(), "reorder_and_upcast_attn is not applied");
  EXPECT_EQ(parse_json_config(with(gpt2(), "n_inner", 80)).intermediate_size, 80);
}

TEST(HfConfigRefusals, PadTokenMustBeAnEmbeddingRow) {
  EXPECT_MENTIONS(refusal(with(llama(), "pad_token_id", 100)), "pad_token_id is 100: expected null or a token id in [-100, 100)");
  EXPECT_MENTIONS(refusal(with(llama(), "pad_token_id", -101)), "pad_token_id is -101");
  EXPECT_EQ(parse_json_config(with(llama(), "pad_token_id", -100)).pad_token_id, 0);
  EXPECT_FALSE(parse_json_config(with(gpt2(), "pad_token_id", 5)).pad_token_id);  // GPT-2's wte has no padding row
}

TEST(HfConfigRefusals, SlidingWindows) {
  EXPECT_MENTIONS(refusal(with(typed("mistral"), "layer_types", {"full_attention", "full_attention"})),
                  "layer_types is [\"full_attention\",\"full_attention\"]: expected absent");
  EXPECT_MENTIONS(refusal(with(typed("mistral"), "sliding_window", 0)), "sliding_window is 0");
  const json windowed = with(with(typed("qwen2"), "use_sliding_window", true), "sliding_window", 64);
  EXPECT_MENTIONS(refusal(with(windowed, "max_window_layers", 1)),
                  "use_sliding_window is true: expected false, or max_window_layers (1) >= num_hidden_layers (2)");
  EXPECT_EQ(refusal(windowed), "accepted");  // max_window_layers absent: Qwen2Config's 28 >= 2 layers, no window
  EXPECT_EQ(refusal(with(windowed, "max_window_layers", 28)), "accepted");
  EXPECT_EQ(refusal(with(with(windowed, "max_window_layers", 1), "sliding_window", nullptr)), "accepted");
  EXPECT_MENTIONS(refusal(with(without(windowed, "sliding_window"), "max_window_layers", 1)), "use_sliding_window is true");
  EXPECT_EQ(refusal(with(with(typed("qwen2"), "sliding_window", 4), "max_window_layers", 0)), "accepted");
  EXPECT_MENTIONS(refusal(with(typed("qwen2"), "layer_types", {"full_attention", "sliding_attention"})),
                  "expected 2 \"full_attention\" entries, one per layer");
  EXPECT_MENTIONS(refusal(with(typed("qwen2"), "layer_types", {"full_attention"})), "layer_types is [\"full_attention\"]");
}

TEST(HfConfigRoPE, BothSpellingsNormaliseAsTransformers5) {
  const json llama3 = {{"rope_type", "llama3"}, {"factor", 8.0}, {"low_freq_factor", 1.0}, {"high_freq_factor", 4.0}};
  // 4.x: rope_scaling + top-level theta; original_max defaults to max_position_embeddings.
  RopeConfig rope = parse_json_config(with(with(llama(), "rope_scaling", llama3), "rope_theta", 5e5)).rope;
  EXPECT_EQ(rope.type, RopeConfig::Type::Llama3);
  EXPECT_DOUBLE_EQ(rope.theta, 5e5);
  EXPECT_EQ(rope.original_max_position_embeddings, 128);
  // A top-level original_max_position_embeddings is not read by LlamaConfig's RoPE.
  EXPECT_EQ(parse_json_config(with(with(llama(), "rope_scaling", llama3), "original_max_position_embeddings", 64))
                .rope.original_max_position_embeddings, 128);
  // 5.x: rope_parameters with theta inside; a theta inside the dict beats a top-level one.
  rope = parse_json_config(with(with(llama(), "rope_parameters", with(llama3, "rope_theta", 1e4)), "rope_theta", 7.0)).rope;
  EXPECT_DOUBLE_EQ(rope.theta, 1e4);
  // Both dicts: rope_scaling wins and rope_parameters is dropped, unless rope_scaling is {} or null.
  json both = with(with(llama(), "rope_scaling", llama3), "rope_parameters", {{"rope_type", "default"}, {"rope_theta", 3.0}});
  EXPECT_EQ(parse_json_config(both).rope.type, RopeConfig::Type::Llama3);
  EXPECT_DOUBLE_EQ(parse_json_config(both).rope.theta, 10000.0);
  EXPECT_DOUBLE_EQ(parse_json_config(with(both, "rope_scaling", json::object())).rope.theta, 3.0);
  EXPECT_EQ(parse_json_config(with(both, "rope_scaling", nullptr)).rope.type, RopeConfig::Type::Default);
  // The legacy "type" key; nothing at all: default, theta 10000.
  EXPECT_EQ(parse_json_config(with(llama(), "rope_scaling", with(without(llama3, "rope_type"), "type", "llama3"))).rope.type,
            RopeConfig::Type::Llama3);
  EXPECT_DOUBLE_EQ(parse_json_config(llama()).rope.theta, 10000.0);
  EXPECT_EQ(parse_json_config(llama()).rope.type, RopeConfig::Type::Default);
}

TEST(HfConfigRoPE, RefusesWhatIsNotDefaultOrLlama3) {
  const json llama3 = {{"rope_type", "llama3"}, {"factor", 8.0}, {"low_freq_factor", 1.0}, {"high_freq_factor", 4.0}};
  for (const char* type : {"linear", "dynamic", "yarn", "longrope", "proportional", "mystery"})
    EXPECT_MENTIONS(refusal(with(llama(), "rope_scaling", {{"rope_type", type}, {"factor", 2.0}})),
                    "rope_scaling.rope_type is \"" + std::string(type) + "\": expected \"default\" or \"llama3\"");
  EXPECT_MENTIONS(refusal(with(llama(), "rope_scaling", {{"type", "linear"}, {"factor", 2.0}})),
                  "rope_scaling.type is \"linear\"");
  EXPECT_MENTIONS(refusal(with(llama(), "rope_parameters", {{"rope_type", nullptr}})), "rope_parameters.rope_type is null");
  EXPECT_MENTIONS(refusal(with(llama(), "rope_scaling", "llama3")), "rope_scaling is \"llama3\": expected an object");
  EXPECT_MENTIONS(refusal(with(llama(), "partial_rotary_factor", 0.5)), "partial_rotary_factor is 0.5: expected 1");
  EXPECT_MENTIONS(refusal(with(llama(), "rope_parameters", {{"rope_type", "default"}, {"partial_rotary_factor", 0.5}})),
                  "rope_parameters.partial_rotary_factor is 0.5");
  EXPECT_EQ(refusal(with(llama(), "partial_rotary_factor", 1.0)), "accepted");
  EXPECT_MENTIONS(refusal(with(llama(), "rope_parameters", {{"full_attention", {{"rope_type", "default"}}}})),
                  "rope_parameters.full_attention is {\"rope_type\":\"default\"}: expected a RoPE parameter");
  EXPECT_MENTIONS(refusal(with(llama(), "rope_scaling", without(llama3, "factor"))),
                  "rope_scaling.factor is missing: expected a number >= 1.0");
  EXPECT_MENTIONS(refusal(with(llama(), "rope_scaling", with(llama3, "factor", 0.5))), "rope_scaling.factor is 0.5");
  EXPECT_MENTIONS(refusal(with(llama(), "rope_scaling", with(llama3, "high_freq_factor", 1.0))),
                  "rope_scaling.high_freq_factor is 1.0: expected a number > low_freq_factor (1.0)");
  EXPECT_MENTIONS(refusal(with(llama(), "rope_scaling", with(llama3, "original_max_position_embeddings", 1.5))),
                  "rope_scaling.original_max_position_embeddings is 1.5");
  EXPECT_MENTIONS(refusal(with(llama(), "rope_theta", nullptr)), "rope_theta is null: expected a number > 0");
  EXPECT_MENTIONS(refusal(with(llama(), "rope_parameters", {{"rope_theta", -1}})), "rope_parameters.rope_theta is -1");
}

}  // namespace
}  // namespace gpubench
