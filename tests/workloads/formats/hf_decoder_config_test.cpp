// Published and tiny HF configs read to the shapes, biases, RoPE and parameter counts HF
// builds from them (counts checked against transformers 5.17 on the meta device).
#include <gtest/gtest.h>

#include <filesystem>

#include "core/config/errors.h"
#include "support/run_command.h"
#include "workloads/formats/hf_decoder_config.h"
#include "workloads/formats/safetensors_bytes.h"

namespace gpubench {
namespace {

using nlohmann::json;

#define EXPECT_MENTIONS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

DecoderConfig parse(const std::string& text) { return parse_decoder_config(json::parse(text), "/models/m/config.json"); }

// meta-llama/Llama-3.2-1B, as published (transformers-4.x spelling; copied from
// tests/workloads/hf_family_reference.py, whose --count-params checks it against HF).
const char* kLlama32_1B = R"({
  "architectures": ["LlamaForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "bos_token_id": 128000, "eos_token_id": 128001, "head_dim": 64, "hidden_act": "silu", "hidden_size": 2048,
  "initializer_range": 0.02, "intermediate_size": 8192, "max_position_embeddings": 131072, "mlp_bias": false,
  "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 16, "num_key_value_heads": 8,
  "pretraining_tp": 1, "rms_norm_eps": 1e-05,
  "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                   "original_max_position_embeddings": 8192, "rope_type": "llama3"},
  "rope_theta": 500000.0, "tie_word_embeddings": true, "torch_dtype": "bfloat16",
  "transformers_version": "4.45.0.dev0", "use_cache": true, "vocab_size": 128256})";

// HuggingFaceTB/SmolLM2-135M (same source).
const char* kSmolLM2_135M = R"({
  "architectures": ["LlamaForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "bos_token_id": 0, "eos_token_id": 0, "hidden_act": "silu", "hidden_size": 576,
  "initializer_range": 0.041666666666666664, "intermediate_size": 1536, "is_llama_config": true,
  "max_position_embeddings": 8192, "model_type": "llama", "num_attention_heads": 9, "num_hidden_layers": 30,
  "num_key_value_heads": 3, "pretraining_tp": 1, "rms_norm_eps": 1e-05, "rope_interleaved": false,
  "rope_scaling": null, "rope_theta": 100000, "tie_word_embeddings": true, "torch_dtype": "bfloat16",
  "transformers_version": "4.40.1", "use_cache": true, "vocab_size": 49152})";

// openai-community/gpt2, written from memory of the hub file (every value is GPT2Config's
// default but n_ctx and task_specific_params, which HF ignores for the LM).
const char* kGpt2 = R"({
  "activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"], "attn_pdrop": 0.1,
  "bos_token_id": 50256, "embd_pdrop": 0.1, "eos_token_id": 50256, "initializer_range": 0.02,
  "layer_norm_epsilon": 1e-05, "model_type": "gpt2", "n_ctx": 1024, "n_embd": 768, "n_head": 12, "n_layer": 12,
  "n_positions": 1024, "resid_pdrop": 0.1, "summary_activation": null, "summary_first_dropout": 0.1,
  "summary_proj_to_labels": true, "summary_type": "cls_index", "summary_use_proj": true,
  "task_specific_params": {"text-generation": {"do_sample": true, "max_length": 50}}, "vocab_size": 50257})";

// Qwen/Qwen2.5-0.5B, from memory; the values that set the count (vocab 151936, hidden 896,
// intermediate 4864, 24 layers, 14 heads, 2 kv heads, tied) give its published 494,032,768.
// Unsure: bos/eos ids and max_window_layers (irrelevant with use_sliding_window false).
const char* kQwen25_05B = R"({
  "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151643,
  "hidden_act": "silu", "hidden_size": 896, "initializer_range": 0.02, "intermediate_size": 4864,
  "max_position_embeddings": 32768, "max_window_layers": 24, "model_type": "qwen2", "num_attention_heads": 14,
  "num_hidden_layers": 24, "num_key_value_heads": 2, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
  "sliding_window": 32768, "tie_word_embeddings": true, "torch_dtype": "bfloat16", "transformers_version": "4.40.1",
  "use_cache": true, "use_sliding_window": false, "vocab_size": 151936})";

// mistralai/Mistral-7B-v0.3, from memory (vocab 32768, sliding_window null); 7,248,023,552.
const char* kMistral7B_v03 = R"({
  "architectures": ["MistralForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 1, "eos_token_id": 2,
  "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336,
  "max_position_embeddings": 32768, "model_type": "mistral", "num_attention_heads": 32, "num_hidden_layers": 32,
  "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_theta": 1000000.0, "sliding_window": null,
  "tie_word_embeddings": false, "torch_dtype": "bfloat16", "transformers_version": "4.42.0.dev0",
  "use_cache": true, "vocab_size": 32768})";

TEST(HfDecoderConfig, Llama32_1BHasItsPublishedShapeAndCount) {
  const DecoderConfig c = parse(kLlama32_1B);
  EXPECT_EQ(c.parameter_count(), 1'235'814'400);
  EXPECT_EQ(c.family, DecoderFamily::Decoder);
  EXPECT_EQ(c.model_type, "llama");
  EXPECT_EQ(c.shape.head_dim, 64);
  EXPECT_EQ(c.shape.kv_heads, 8);
  EXPECT_TRUE(c.shape.tie_word_embeddings);
  EXPECT_DOUBLE_EQ(c.shape.norm_eps, 1e-5);
  EXPECT_FALSE(c.shape.qkv_bias || c.shape.o_bias || c.shape.mlp_bias);
  EXPECT_EQ(c.shape.ropes[0].type, RopeShape::Type::Llama3);
  EXPECT_DOUBLE_EQ(c.shape.ropes[0].theta, 500000.0);
  EXPECT_DOUBLE_EQ(c.shape.ropes[0].factor, 32.0);
  EXPECT_DOUBLE_EQ(c.shape.ropes[0].low_freq_factor, 1.0);
  EXPECT_DOUBLE_EQ(c.shape.ropes[0].high_freq_factor, 4.0);
  EXPECT_EQ(c.shape.ropes[0].original_max_positions, 8192);
  EXPECT_FALSE(c.shape.pad_token_id);
  EXPECT_TRUE(c.shape.layer_attention.empty()) << "every layer full, one RoPE";
}

TEST(HfDecoderConfig, SmolLM2_135MHasItsPublishedCount) {
  const DecoderConfig c = parse(kSmolLM2_135M);
  EXPECT_EQ(c.parameter_count(), 134'515'008);
  EXPECT_EQ(c.shape.head_dim, 64);  // 576 / 9, no head_dim key
  EXPECT_EQ(c.shape.ropes[0].type, RopeShape::Type::Default);
  EXPECT_DOUBLE_EQ(c.shape.ropes[0].theta, 100000.0);  // an integer in the file
}

TEST(HfDecoderConfig, Gpt2SmallHas124MAndItsDropoutIsRecordedNotApplied) {
  const DecoderConfig c = parse(kGpt2);
  EXPECT_EQ(c.parameter_count(), 124'439'808);
  EXPECT_EQ(c.family, DecoderFamily::Gpt2);
  EXPECT_EQ(c.shape.activation, DecoderActivation::GeluTanh);
  EXPECT_EQ(c.shape.intermediate, 3072);  // n_inner absent: 4 * n_embd
  EXPECT_EQ(c.shape.max_positions, 1024);
  EXPECT_TRUE(c.shape.tie_word_embeddings && c.shape.qkv_bias && c.shape.o_bias && c.shape.mlp_bias);
  EXPECT_DOUBLE_EQ(c.dropout_ignored.resid_pdrop, 0.1);
  EXPECT_DOUBLE_EQ(c.dropout_ignored.embd_pdrop, 0.1);
  EXPECT_DOUBLE_EQ(c.dropout_ignored.attn_pdrop, 0.1);
  const json row = c.describe();
  EXPECT_EQ(row["parameter_count"], 124'439'808);
  EXPECT_EQ(row["family"], "gpt2");
  EXPECT_EQ(row["dropout_ignored"]["attn_pdrop"], 0.1);
  ASSERT_EQ(row["not_applied"].size(), 1u);
  EXPECT_EQ(row["not_applied"][0],
            "dropout is not applied (a benchmark of the training step; HF's config asks for resid 0.1, embd 0.1, attn 0.1)");
  EXPECT_NO_THROW(c.check_sequence_length(1024));
  try {
    c.check_sequence_length(1025);
    ADD_FAILURE();
  } catch (const UsageError& error) {
    EXPECT_MENTIONS(std::string(error.what()), "config.json '/models/m/config.json': a sequence of 1025 tokens is longer "
                                               "than n_positions (1024)");
  }
}

TEST(HfDecoderConfig, Qwen25AndMistralHaveTheirPublishedCounts) {
  const DecoderConfig qwen = parse(kQwen25_05B);
  EXPECT_EQ(qwen.parameter_count(), 494'032'768);
  EXPECT_TRUE(qwen.shape.qkv_bias);
  EXPECT_FALSE(qwen.shape.o_bias || qwen.shape.mlp_bias);
  EXPECT_TRUE(qwen.shape.layer_attention.empty());  // use_sliding_window false: sliding_window 32768 means nothing
  EXPECT_DOUBLE_EQ(qwen.shape.ropes[0].theta, 1e6);
  const DecoderConfig mistral = parse(kMistral7B_v03);
  EXPECT_EQ(mistral.parameter_count(), 7'248'023'552);
  EXPECT_FALSE(mistral.shape.qkv_bias || mistral.shape.o_bias || mistral.shape.mlp_bias);
  EXPECT_TRUE(mistral.shape.layer_attention.empty());  // sliding_window null: no window
  EXPECT_EQ(mistral.describe()["layers"], json::array());
}

TEST(HfDecoderConfig, MistralsWindowIsEveryLayers) {
  json v01 = json::parse(kMistral7B_v03);  // Mistral-7B-v0.1: vocab 32000, window 4096, theta 1e4
  v01["vocab_size"] = 32000;
  v01["sliding_window"] = 4096;
  const DecoderConfig c = parse_decoder_config(v01, "/m/config.json");
  EXPECT_EQ(c.parameter_count(), 7'241'732'096);
  ASSERT_EQ(c.shape.layer_attention.size(), 32u);
  for (const LayerAttention& layer : c.shape.layer_attention) EXPECT_EQ(layer.window, 4096);
  EXPECT_NO_THROW(c.check_sequence_length(8192)) << "windowed attention is computed, at any length";
  v01.erase("sliding_window");  // absent: MistralConfig's default window, 4096
  EXPECT_EQ(parse_decoder_config(v01, "/m/config.json").shape.attention_of(0).window, 4096);
}

// The tiny models tests/workloads/hf_family_reference.py saves with transformers 5.17
// (config.json as written there); counts are HF's sum over model.parameters().
TEST(HfDecoderConfig, TinyReferenceConfigsGiveHfsCounts) {
  const DecoderConfig untied = parse(R"({"architectures": ["LlamaForCausalLM"], "attention_bias": false,
    "attention_dropout": 0.0, "bos_token_id": 1, "dtype": "float32", "eos_token_id": 2, "head_dim": 8,
    "hidden_act": "silu", "hidden_size": 32, "initializer_range": 0.02, "intermediate_size": 64,
    "max_position_embeddings": 128, "mlp_bias": false, "model_type": "llama", "num_attention_heads": 4,
    "num_hidden_layers": 2, "num_key_value_heads": 2, "pad_token_id": null, "pretraining_tp": 1,
    "rms_norm_eps": 1e-05, "rope_parameters": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
    "original_max_position_embeddings": 64, "rope_theta": 10000.0, "rope_type": "llama3"},
    "tie_word_embeddings": false, "transformers_version": "5.17.0", "use_cache": true, "vocab_size": 101})");
  EXPECT_EQ(untied.parameter_count(), 25056);
  EXPECT_EQ(untied.shape.ropes[0].original_max_positions, 64);
  const DecoderConfig qwen = parse(R"({"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0,
    "hidden_act": "silu", "hidden_size": 32, "intermediate_size": 64, "layer_types": ["full_attention",
    "full_attention"], "max_position_embeddings": 128, "max_window_layers": 28, "model_type": "qwen2",
    "num_attention_heads": 4, "num_hidden_layers": 2, "num_key_value_heads": 2, "pad_token_id": null,
    "rms_norm_eps": 1e-05, "rope_parameters": {"rope_theta": 1000000.0, "rope_type": "default"},
    "sliding_window": null, "tie_word_embeddings": true, "use_cache": true, "use_sliding_window": false,
    "vocab_size": 101})");
  EXPECT_EQ(qwen.parameter_count(), 21952);
  const DecoderConfig mistral = parse(R"({"architectures": ["MistralForCausalLM"], "attention_dropout": 0.0,
    "head_dim": 16, "hidden_act": "silu", "hidden_size": 32, "intermediate_size": 64,
    "max_position_embeddings": 128, "model_type": "mistral", "num_attention_heads": 4, "num_hidden_layers": 2,
    "num_key_value_heads": 2, "pad_token_id": null, "rms_norm_eps": 1e-05,
    "rope_parameters": {"rope_theta": 1000000.0, "rope_type": "default"}, "sliding_window": null,
    "tie_word_embeddings": false, "vocab_size": 101})");
  EXPECT_EQ(mistral.parameter_count(), 31200);
  EXPECT_EQ(mistral.shape.head_dim, 16);  // != hidden / heads, as Mistral-Nemo
  const DecoderConfig pad = parse(R"({"model_type": "llama", "head_dim": 8, "hidden_size": 32,
    "intermediate_size": 64, "max_position_embeddings": 128, "num_attention_heads": 4, "num_hidden_layers": 2,
    "num_key_value_heads": 2, "pad_token_id": 3, "rms_norm_eps": 1e-05,
    "rope_parameters": {"rope_theta": 10000.0, "rope_type": "default"}, "tie_word_embeddings": false,
    "vocab_size": 101})");
  EXPECT_EQ(pad.parameter_count(), 25056);
  EXPECT_EQ(pad.shape.pad_token_id, 3);
  const DecoderConfig gpt2 = parse(R"({"activation_function": "gelu_new", "add_cross_attention": false,
    "architectures": ["GPT2LMHeadModel"], "attn_pdrop": 0.0, "embd_pdrop": 0.0, "layer_norm_epsilon": 1e-05,
    "model_type": "gpt2", "n_embd": 32, "n_head": 2, "n_inner": null, "n_layer": 2, "n_positions": 64,
    "reorder_and_upcast_attn": false, "resid_pdrop": 0.0, "scale_attn_by_inverse_layer_idx": false,
    "scale_attn_weights": true, "tie_word_embeddings": true, "vocab_size": 101})");
  EXPECT_EQ(gpt2.parameter_count(), 30752);
  EXPECT_FALSE(gpt2.dropout_ignored.any());
  EXPECT_TRUE(gpt2.describe()["not_applied"].empty());
}

TEST(HfDecoderConfig, BiasesAreResolvedPerFamily) {
  json llama = json::parse(kSmolLM2_135M);
  llama["attention_bias"] = true;
  DecoderConfig c = parse_decoder_config(llama, "c");
  EXPECT_TRUE(c.shape.qkv_bias && c.shape.o_bias && !c.shape.mlp_bias);
  llama["mlp_bias"] = true;
  EXPECT_TRUE(parse_decoder_config(llama, "c").shape.mlp_bias);
  json qwen = json::parse(kQwen25_05B);  // Qwen2 and Mistral ignore the keys
  qwen["attention_bias"] = false;
  qwen["mlp_bias"] = true;
  c = parse_decoder_config(qwen, "c");
  EXPECT_TRUE(c.shape.qkv_bias && !c.shape.o_bias && !c.shape.mlp_bias);
  json mistral = json::parse(kMistral7B_v03);
  mistral["attention_bias"] = true;
  c = parse_decoder_config(mistral, "c");
  EXPECT_FALSE(c.shape.qkv_bias || c.shape.o_bias || c.shape.mlp_bias);
}

TEST(HfDecoderConfig, DescribesTheRowWithRopeAndPadding) {
  json smol = json::parse(kSmolLM2_135M);
  smol["pad_token_id"] = -1;  // nn.Embedding reads a negative padding_idx from the end
  const DecoderConfig c = parse_decoder_config(smol, "/m/config.json");
  EXPECT_EQ(c.shape.pad_token_id, 49151);
  const json row = c.describe();
  EXPECT_EQ(row["config"], "/m/config.json");
  EXPECT_EQ(row["family"], "decoder");
  EXPECT_EQ(row["ropes"], (json::array({{{"type", "default"}, {"theta", 100000.0}}})));
  EXPECT_EQ(row["pad_token_id"], 49151);
  EXPECT_EQ(row["bias"], (json{{"qkv", false}, {"o", false}, {"mlp", false}}));
  EXPECT_EQ(row["activation"], "silu");
  EXPECT_EQ(row["parameter_count"], 134'515'008);
}

TEST(HfDecoderConfig, ReadsAFileAndRefusesUnreadableOnes) {
  const std::string dir = test_support::make_temp_dir("hf-config");
  test_support::write_text(dir + "/config.json", kGpt2);
  EXPECT_EQ(read_decoder_config(dir + "/config.json").parameter_count(), 124'439'808);
  const auto error_of = [&](const std::string& text) {
    test_support::write_text(dir + "/config.json", text);
    try {
      read_decoder_config(dir + "/config.json");
    } catch (const UsageError& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  EXPECT_MENTIONS(error_of("{\"model_type\": \"gpt2\", "), "config.json '" + dir + "/config.json': not valid JSON");
  EXPECT_MENTIONS(error_of(R"({"model_type": "gpt2", "n_embd": 8, "n_embd": 16})"), "key 'n_embd' appears twice");
  EXPECT_MENTIONS(error_of("[]"), "config.json '" + dir + "/config.json': is []: expected a JSON object");
  EXPECT_THROW(read_decoder_config(dir + "/missing.json"), UsageError);
  EXPECT_THROW(read_decoder_config(dir), UsageError);  // a directory
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpubench
