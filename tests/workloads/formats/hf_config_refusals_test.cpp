// What a config.json may not say (UsageError "config.json 'PATH': FIELD is VALUE: expected
// WHAT"), and the two RoPE spellings read as transformers 5.17 normalises them.
#include <cmath>

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
  EXPECT_MENTIONS(refusal(with(llama(), "model_type", "cohere")),
                  "model_type is \"cohere\": expected one of \"gpt2\", \"llama\", \"mistral\", \"qwen2\", \"qwen3\"");
  EXPECT_MENTIONS(refusal(with(llama(), "model_type", "qwen3")),
                  "architectures is [\"LlamaForCausalLM\"]: expected [\"Qwen3ForCausalLM\"] for model_type \"qwen3\"");
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
  EXPECT_EQ(parse_json_config(without(llama(), "num_key_value_heads")).shape.kv_heads, 4);
  EXPECT_EQ(parse_json_config(with(typed("mistral"), "num_key_value_heads", nullptr)).shape.kv_heads, 4);
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
  EXPECT_EQ(parse_json_config(with(with(typed("mistral"), "hidden_size", 30), "head_dim", 8)).shape.head_dim, 8);
  EXPECT_MENTIONS(refusal(with(gpt2(), "n_head", 5)), "n_head is 5: expected a divisor of n_embd (32)");
  EXPECT_MENTIONS(refusal(with(gpt2(), "hidden_size", 64)), "hidden_size is 64: expected the value of n_embd (32)");
  EXPECT_EQ(parse_json_config(with(without(gpt2(), "n_embd"), "hidden_size", 64)).shape.hidden, 64);  // the alias alone
}

TEST(HfConfigRefusals, ActivationsDropoutAndGpt2Attention) {
  EXPECT_MENTIONS(refusal(with(llama(), "hidden_act", "relu")), "hidden_act is \"relu\": expected silu (swish), the tanh GELU");
  EXPECT_EQ(parse_json_config(with(llama(), "hidden_act", "swish")).shape.activation, DecoderActivation::Silu);
  EXPECT_EQ(parse_json_config(with(llama(), "hidden_act", "gelu")).shape.activation, DecoderActivation::GeluErf);
  EXPECT_MENTIONS(refusal(with(gpt2(), "activation_function", "quick_gelu")), "activation_function is \"quick_gelu\"");
  EXPECT_MENTIONS(refusal(with(gpt2(), "activation_function", "gelu_10")), "expected the tanh GELU");
  for (const char* tanh : {"gelu_new", "gelu_pytorch_tanh", "gelu_python_tanh", "gelu_accurate", "gelu_fast"})
    EXPECT_EQ(parse_json_config(with(gpt2(), "activation_function", tanh)).shape.activation, DecoderActivation::GeluTanh) << tanh;
  EXPECT_EQ(parse_json_config(with(gpt2(), "activation_function", "gelu")).shape.activation, DecoderActivation::GeluErf);
  // GPT2Config takes relu and silu; gpubench's GPT-2 does not: refused where the file is read.
  EXPECT_MENTIONS(refusal(with(gpt2(), "activation_function", "relu")), "activation_function is \"relu\": expected the tanh GELU");
  EXPECT_MENTIONS(refusal(with(gpt2(), "activation_function", "silu")), "activation_function is \"silu\"");
  // Dropout is read and not applied, as GPT-2's: the row says so.
  EXPECT_EQ(parse_json_config(with(llama(), "attention_dropout", 0.1)).not_applied,
            std::vector<std::string>{"attention_dropout 0.1 is not applied (a benchmark of the training step runs without dropout)"});
  EXPECT_MENTIONS(refusal(with(llama(), "attention_dropout", 1.5)), "attention_dropout is 1.5: expected a number in [0.0, 1.0]");
  EXPECT_TRUE(parse_json_config(with(llama(), "attention_dropout", 0)).not_applied.empty());
  EXPECT_MENTIONS(refusal(with(gpt2(), "add_cross_attention", true)), "add_cross_attention is true: expected false");
  EXPECT_MENTIONS(refusal(with(gpt2(), "scale_attn_weights", false)), "scale_attn_weights is false: expected true");
  EXPECT_MENTIONS(refusal(with(gpt2(), "scale_attn_by_inverse_layer_idx", true)),
                  "scale_attn_by_inverse_layer_idx is true: expected false");
  EXPECT_MENTIONS(refusal(with(gpt2(), "resid_pdrop", 1.5)), "resid_pdrop is 1.5: expected a number in [0.0, 1.0]");
  const DecoderConfig upcast = parse_json_config(with(gpt2(), "reorder_and_upcast_attn", true));
  EXPECT_TRUE(upcast.reorder_and_upcast_attn);
  EXPECT_MENTIONS(upcast.describe()["not_applied"][1].get<std::string>(), "reorder_and_upcast_attn is not applied");
  EXPECT_EQ(parse_json_config(with(gpt2(), "n_inner", 80)).shape.intermediate, 80);
}

TEST(HfConfigRefusals, PadTokenMustBeAnEmbeddingRow) {
  EXPECT_MENTIONS(refusal(with(llama(), "pad_token_id", 100)), "pad_token_id is 100: expected null or a token id in [-100, 100)");
  EXPECT_MENTIONS(refusal(with(llama(), "pad_token_id", -101)), "pad_token_id is -101");
  EXPECT_EQ(parse_json_config(with(llama(), "pad_token_id", -100)).shape.pad_token_id, 0);
  EXPECT_FALSE(parse_json_config(with(gpt2(), "pad_token_id", 5)).shape.pad_token_id);  // GPT-2's wte has no padding row
}

// Windows as each family places them: Mistral every layer (layer_types refused: MistralConfig
// ignores it), Qwen2 from max_window_layers on or as layer_types says.
std::vector<std::optional<std::int64_t>> windows_of(const json& config) {
  const DecoderShape shape = parse_json_config(config).shape;
  std::vector<std::optional<std::int64_t>> out;
  for (std::int64_t i = 0; i < shape.layers; ++i) out.push_back(shape.attention_of(i).window);
  return out;
}

TEST(HfConfigRefusals, SlidingWindows) {
  using Windows = std::vector<std::optional<std::int64_t>>;
  EXPECT_MENTIONS(refusal(with(typed("mistral"), "layer_types", {"full_attention", "full_attention"})),
                  "layer_types is [\"full_attention\",\"full_attention\"]: expected absent");
  EXPECT_MENTIONS(refusal(with(typed("mistral"), "sliding_window", 0)), "sliding_window is 0");
  EXPECT_EQ(windows_of(without(typed("mistral"), "sliding_window")), (Windows{4096, 4096}));  // MistralConfig's default
  EXPECT_EQ(windows_of(with(typed("mistral"), "sliding_window", nullptr)), (Windows{std::nullopt, std::nullopt}));
  const json windowed = with(with(typed("qwen2"), "use_sliding_window", true), "sliding_window", 64);
  EXPECT_EQ(windows_of(with(windowed, "max_window_layers", 1)), (Windows{std::nullopt, 64}));
  EXPECT_EQ(windows_of(windowed), (Windows{std::nullopt, std::nullopt}));  // Qwen2Config's 28 >= 2 layers
  EXPECT_EQ(windows_of(with(with(windowed, "max_window_layers", 1), "sliding_window", nullptr)), (Windows{std::nullopt, std::nullopt}));
  EXPECT_EQ(windows_of(with(without(windowed, "sliding_window"), "max_window_layers", 0)), (Windows{4096, 4096}));
  EXPECT_EQ(windows_of(with(with(typed("qwen2"), "sliding_window", 4), "max_window_layers", 0)),
            (Windows{std::nullopt, std::nullopt}));  // use_sliding_window false
  EXPECT_EQ(windows_of(with(windowed, "layer_types", {"sliding_attention", "full_attention"})), (Windows{64, std::nullopt}));
  EXPECT_MENTIONS(refusal(with(typed("qwen2"), "layer_types", {"full_attention", "sliding_attention"})),
                  "sliding_window is missing: expected an integer >= 1 (layer_types names sliding-window layers)");
  EXPECT_MENTIONS(refusal(with(typed("qwen2"), "layer_types", {"full_attention"})),
                  "layer_types is [\"full_attention\"]: expected 2 entries, each \"full_attention\" or \"sliding_attention\"");
}

TEST(HfConfigRoPE, BothSpellingsNormaliseAsTransformers5) {
  const json llama3 = {{"rope_type", "llama3"}, {"factor", 8.0}, {"low_freq_factor", 1.0}, {"high_freq_factor", 4.0}};
  // 4.x: rope_scaling + top-level theta; original_max defaults to max_position_embeddings.
  RopeShape rope = parse_json_config(with(with(llama(), "rope_scaling", llama3), "rope_theta", 5e5)).shape.ropes[0];
  EXPECT_EQ(rope.type, RopeShape::Type::Llama3);
  EXPECT_DOUBLE_EQ(rope.theta, 5e5);
  EXPECT_EQ(rope.original_max_positions, 128);
  // A top-level original_max_position_embeddings is not read by LlamaConfig's RoPE.
  EXPECT_EQ(parse_json_config(with(with(llama(), "rope_scaling", llama3), "original_max_position_embeddings", 64))
                .shape.ropes[0].original_max_positions, 128);
  // 5.x: rope_parameters with theta inside; a theta inside the dict beats a top-level one.
  rope = parse_json_config(with(with(llama(), "rope_parameters", with(llama3, "rope_theta", 1e4)), "rope_theta", 7.0)).shape.ropes[0];
  EXPECT_DOUBLE_EQ(rope.theta, 1e4);
  // Both dicts: rope_scaling wins and rope_parameters is dropped, unless rope_scaling is {} or null.
  json both = with(with(llama(), "rope_scaling", llama3), "rope_parameters", {{"rope_type", "default"}, {"rope_theta", 3.0}});
  EXPECT_EQ(parse_json_config(both).shape.ropes[0].type, RopeShape::Type::Llama3);
  EXPECT_DOUBLE_EQ(parse_json_config(both).shape.ropes[0].theta, 10000.0);
  EXPECT_DOUBLE_EQ(parse_json_config(with(both, "rope_scaling", json::object())).shape.ropes[0].theta, 3.0);
  EXPECT_EQ(parse_json_config(with(both, "rope_scaling", nullptr)).shape.ropes[0].type, RopeShape::Type::Default);
  // The legacy "type" key; nothing at all: default, theta 10000.
  EXPECT_EQ(parse_json_config(with(llama(), "rope_scaling", with(without(llama3, "rope_type"), "type", "llama3"))).shape.ropes[0].type,
            RopeShape::Type::Llama3);
  EXPECT_DOUBLE_EQ(parse_json_config(llama()).shape.ropes[0].theta, 10000.0);
  EXPECT_EQ(parse_json_config(llama()).shape.ropes[0].type, RopeShape::Type::Default);
}

TEST(HfConfigRoPE, RefusesWhatIsNotImplemented) {
  const json llama3 = {{"rope_type", "llama3"}, {"factor", 8.0}, {"low_freq_factor", 1.0}, {"high_freq_factor", 4.0}};
  for (const char* type : {"dynamic", "proportional", "mystery"})
    EXPECT_MENTIONS(refusal(with(llama(), "rope_scaling", {{"rope_type", type}, {"factor", 2.0}})),
                    "rope_scaling.rope_type is \"" + std::string(type) + "\": expected \"default\", \"linear\", \"llama3\", \"yarn\" or \"longrope\"");
  EXPECT_MENTIONS(refusal(with(llama(), "rope_scaling", {{"type", "dynamic"}, {"factor", 2.0}})),
                  "rope_scaling.type is \"dynamic\"");
  EXPECT_EQ(parse_json_config(with(llama(), "rope_scaling", {{"type", "linear"}, {"factor", 2.0}})).shape.ropes[0].type,
            RopeShape::Type::Linear);
  EXPECT_MENTIONS(refusal(with(llama(), "rope_scaling", {{"rope_type", "longrope"}, {"short_factor", {1.0}}, {"long_factor", {1.0}}})),
                  "rope_scaling.short_factor is [1.0]: expected a list of 4 numbers > 0 (one per rotated channel pair)");
  EXPECT_MENTIONS(refusal(with(llama(), "rope_parameters", {{"rope_type", nullptr}})), "rope_parameters.rope_type is null");
  EXPECT_MENTIONS(refusal(with(llama(), "rope_scaling", "llama3")), "rope_scaling is \"llama3\": expected an object");
  EXPECT_MENTIONS(refusal(with(llama(), "partial_rotary_factor", 0.5)), "partial_rotary_factor is 0.5: expected 1 or absent (this family's RoPE rotates every channel");
  EXPECT_MENTIONS(refusal(with(llama(), "rope_parameters", {{"rope_type", "default"}, {"partial_rotary_factor", 0.5}})),
                  "rope_parameters.partial_rotary_factor is 0.5");
  EXPECT_EQ(refusal(with(llama(), "partial_rotary_factor", 1.0)), "accepted");
  EXPECT_MENTIONS(refusal(with(llama(), "rope_parameters", {{"full_attention", {{"rope_type", "default"}}}})),
                  "rope_parameters.full_attention is {\"rope_type\":\"default\"}: expected a RoPE parameter (one RoPE for every layer");
  EXPECT_MENTIONS(refusal(with(llama(), "rope_scaling", without(llama3, "factor"))),
                  "rope_scaling.factor is missing: expected a number >= 1.0");
  EXPECT_MENTIONS(refusal(with(llama(), "rope_scaling", with(llama3, "factor", 0.5))), "rope_scaling.factor is 0.5");
  EXPECT_MENTIONS(refusal(with(llama(), "rope_scaling", with(llama3, "high_freq_factor", 1.0))),
                  "rope_scaling.high_freq_factor is 1.0: expected a number > low_freq_factor (1.0)");
  EXPECT_MENTIONS(refusal(with(llama(), "rope_scaling", with(llama3, "original_max_position_embeddings", 1.5))),
                  "rope_scaling.original_max_position_embeddings is 1.5");
  EXPECT_MENTIONS(refusal(with(llama(), "rope_theta", nullptr)), "rope_theta is null: expected a number > 0");
  // One bound, said the same for every value that breaks it (issue 61, item 26: -1 was told
  // ">= 0.0", and 0 then "> 0").
  EXPECT_MENTIONS(refusal(with(llama(), "rope_theta", -1)), "rope_theta is -1: expected a number > 0");
  EXPECT_MENTIONS(refusal(with(llama(), "rope_theta", 0)), "rope_theta is 0: expected a number > 0");
  EXPECT_MENTIONS(refusal(with(llama(), "rope_parameters", {{"rope_theta", -1}})), "rope_parameters.rope_theta is -1");
}

json gpt_oss() {
  return {{"model_type", "gpt_oss"}, {"vocab_size", 100}, {"hidden_size", 32}, {"intermediate_size", 24},
          {"num_hidden_layers", 2}, {"num_attention_heads", 4}, {"num_key_value_heads", 2}, {"head_dim", 8},
          {"max_position_embeddings", 128}, {"num_local_experts", 4}, {"num_experts_per_tok", 2}};
}
json deepseek_v3() {
  return {{"model_type", "deepseek_v3"}, {"vocab_size", 100}, {"hidden_size", 32}, {"intermediate_size", 48},
          {"num_hidden_layers", 2}, {"num_attention_heads", 4}, {"max_position_embeddings", 128},
          {"q_lora_rank", nullptr}, {"kv_lora_rank", 12}, {"qk_rope_head_dim", 4}, {"qk_nope_head_dim", 6},
          {"v_head_dim", 8}, {"n_routed_experts", 8}, {"num_experts_per_tok", 2}, {"moe_intermediate_size", 16},
          {"n_shared_experts", 1}, {"n_group", 4}, {"topk_group", 2}, {"first_k_dense_replace", 1}};
}

// gpt-oss's defaults as GptOssConfig fills them (YaRN, even layers sliding at 128), and what
// 5.17 would not compute: another clamp limit.
TEST(HfConfigMoe, GptOssResolvesItsClassDefaultsAndRefusesAnotherClamp) {
  const DecoderShape s = parse_json_config(gpt_oss()).shape;
  EXPECT_TRUE(s.attention_sinks && s.qkv_bias && s.o_bias);
  EXPECT_EQ(s.ropes[0].type, RopeShape::Type::Yarn);
  EXPECT_EQ(s.ropes[0].theta, 150000.0);
  EXPECT_EQ(s.ropes[0].original_max_positions, 4096);
  EXPECT_FALSE(s.ropes[0].truncate);
  ASSERT_EQ(s.layer_attention.size(), 2u);
  EXPECT_EQ(s.layer_attention[0].window, std::optional<std::int64_t>(128));
  EXPECT_FALSE(s.layer_attention[1].window);
  EXPECT_EQ(s.moe.router, MoeShape::Router::TopKSoftmax);
  EXPECT_EQ(s.moe.layout, MoeShape::Experts::Stacked);
  EXPECT_EQ(s.moe.swiglu_limit, std::optional<double>(7.0));
  EXPECT_EQ(refusal(with(gpt_oss(), "swiglu_limit", 7.0)), "accepted");
  EXPECT_MENTIONS(refusal(with(gpt_oss(), "swiglu_limit", 3.0)), "swiglu_limit is 3.0: expected 7.0 or absent");
  EXPECT_MENTIONS(refusal(without(gpt_oss(), "head_dim")), "GptOssConfig would silently assume 64");
  EXPECT_MENTIONS(refusal(without(gpt_oss(), "num_local_experts")), "GptOssConfig would silently assume 128");
}

// DeepSeek-V3: latent attention's head_dim is its RoPE's, the mscale folds into the scale,
// dense layers come first; the keys HF never reads must say what it computes.
TEST(HfConfigMoe, DeepseekV3ResolvesLatentAttentionAndGroupRouting) {
  json config = deepseek_v3();
  config["rope_parameters"] = {{"rope_type", "yarn"}, {"factor", 4.0}, {"mscale", 1.0}, {"mscale_all_dim", 0.8},
                               {"original_max_position_embeddings", 32}, {"rope_theta", 10000.0}};
  const DecoderShape s = parse_json_config(config).shape;
  ASSERT_TRUE(s.latent);
  EXPECT_EQ(s.latent->q_lora_rank, 0);
  EXPECT_EQ(s.head_dim, 4);
  EXPECT_TRUE(s.rope_interleave);
  const double mscale = 0.1 * 0.8 * std::log(4.0) + 1.0;
  EXPECT_NEAR(*s.attention_scale, mscale * mscale / std::sqrt(10.0), 1e-12);
  EXPECT_EQ(s.moe.router, MoeShape::Router::Sigmoid);
  EXPECT_EQ(s.moe.sparse, (std::vector<bool>{false, true}));
  EXPECT_EQ(s.moe.shared_intermediate, 16);
  EXPECT_FALSE(s.moe.shared_expert_gate);
  EXPECT_EQ(s.moe.routed_scaling, 2.5);
  EXPECT_MENTIONS(refusal(without(deepseek_v3(), "q_lora_rank")), "q_lora_rank is missing");
  EXPECT_MENTIONS(refusal(without(deepseek_v3(), "first_k_dense_replace")), "DeepseekV3Config would silently assume 3");
  EXPECT_MENTIONS(refusal(with(deepseek_v3(), "n_group", 3)), "n_group is 3: expected a divisor of n_routed_experts (8)");
  EXPECT_MENTIONS(refusal(with(deepseek_v3(), "topk_group", 5)), "topk_group is 5: expected at most n_group (4)");
  EXPECT_MENTIONS(refusal(with(deepseek_v3(), "scoring_func", "softmax")), "scoring_func is \"softmax\": expected \"sigmoid\"");
  EXPECT_EQ(refusal(with(deepseek_v3(), "topk_method", "noaux_tc")), "accepted");
  EXPECT_EQ(refusal(with(deepseek_v3(), "num_key_value_heads", 4)), "accepted");
  EXPECT_MENTIONS(refusal(with(deepseek_v3(), "num_key_value_heads", 2)), "num_key_value_heads is 2: expected num_attention_heads (4)");
  const DecoderConfig noted = parse_json_config(with(with(deepseek_v3(), "num_nextn_predict_layers", 1), "output_router_logits", true));
  EXPECT_EQ(noted.not_applied.size(), 2u);
}

}  // namespace
}  // namespace gpubench
