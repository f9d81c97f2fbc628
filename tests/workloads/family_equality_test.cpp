// A user's model by its config.json equals Hugging Face's: for each tiny case that
// tests/workloads/hf_family_reference.py (and hf_family_cases.py) saved with transformers
// 5.17 (save_pretrained: a real config.json and model.safetensors; GPT-2, Llama with GQA and
// every RoPE type, Qwen2/3, Mistral, Gemma 2/3 with windows and softcaps, a multimodal
// Gemma 3's text decoder, Phi-3 with LongRoPE and partial rotary, OLMo 2, SmolLM3, Granite,
// StarCoder2, GPT-NeoX; the mixtures of experts Mixtral, Qwen2/3-MoE, OLMoE, gpt-oss with
// sinks and its clamped experts, DeepSeek-V3 with latent attention and group-limited
// sigmoid routing), gpubench reads the folder as `--model` does and gives the same
// logits, loss and every parameter's gradient (fp32, CPU, one thread, to 1e-5 relative).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <gtest/gtest.h>

#include "workloads/config_model.h"
#include "workloads/formats/safetensors_file.h"
#include "workloads/reference_weights.h"

namespace gpubench {
namespace {

constexpr double kRelative = 1e-5;

double relative_error(const torch::Tensor& actual, const torch::Tensor& expected) {
  const double scale = expected.abs().max().item<double>();
  const double error = (actual - expected).abs().max().item<double>();
  return scale > 0 ? error / scale : error;
}

// The case's model (its experts' GEMMs as `gemms` says) against the reference; returns the
// model after its backward, for what the caller checks beyond the numbers.
Model expect_equal_to_transformers(const std::string& root, const std::string& name, ExpertGemms gemms) {
  const std::string dir = root + "/" + name;
  EXPECT_TRUE(std::filesystem::exists(dir + "/reference.safetensors")) << dir << ": the reference side did not run";
  at::set_num_threads(1);  // as the reference side
  const DecoderLmSpec spec = read_config_model(name, dir, std::nullopt, /*random_weights=*/false);
  ModelTechniques techniques;
  techniques.expert_gemms = gemms;
  Model model = spec.make_model(techniques);
  const SafetensorsFile reference(dir + "/reference.safetensors");
  const torch::Tensor ids = reference.stored_tensor("input_ids");
  model.module->train();
  const torch::Tensor logits = model.forward(ids);
  EXPECT_LE(relative_error(logits, reference.tensor("logits")), kRelative) << "logits";
  const auto vocab = logits.size(-1);
  torch::Tensor loss = torch::nn::functional::cross_entropy(
      logits.narrow(1, 0, ids.size(1) - 1).reshape({-1, vocab}), ids.narrow(1, 1, ids.size(1) - 1).reshape({-1}));
  // A mixture of experts with output_router_logits: HF's loss adds the load-balancing loss.
  if (reference.find("ce_loss") != nullptr) {
    EXPECT_LE(relative_error(loss, reference.tensor("ce_loss")), kRelative) << "the cross-entropy part";
  }
  if (model.auxiliary_loss) {
    EXPECT_NE(reference.find("aux_loss"), nullptr) << "gpubench adds a load-balancing loss HF does not";
    loss = loss + model.auxiliary_loss();
  }
  EXPECT_LE(relative_error(loss, reference.tensor("loss")), kRelative)
      << "loss " << loss.item<double>() << " vs " << reference.tensor("loss").item<double>();
  loss.backward();
  const DecoderConfig config = read_decoder_config(dir + "/config.json");
  const WeightMapping mapping =
      config.family == DecoderFamily::Decoder ? huggingface_decoder_names(config.weight_names) : huggingface_gpt2_names();
  int compared = 0;
  double worst = 0;
  for (const auto& item : model.module->named_parameters()) {
    const WeightMapping::Name name = mapping.to_reference(item.key());
    if (reference.find("grad." + name.reference_name) == nullptr) {
      ADD_FAILURE() << item.key() << " has no reference gradient";
      continue;
    }
    if (!item.value().grad().defined()) {
      ADD_FAILURE() << item.key() << " got no gradient";
      continue;
    }
    const double error = relative_error(item.value().grad(), mapping.to_ours(name, reference.tensor("grad." + name.reference_name)));
    EXPECT_LE(error, kRelative) << item.key();
    worst = std::max(worst, error);
    ++compared;
  }
  int references = 0;
  for (const auto& entry : reference.entries()) references += entry.name.rfind("grad.", 0) == 0 ? 1 : 0;
  EXPECT_EQ(compared, references) << "every reference gradient has its parameter";
  EXPECT_EQ(static_cast<std::int64_t>(model.parameter_count()), spec.parameters) << "the config's count is the model's";
  std::cout << name << ": worst gradient relative error " << worst << " over " << compared << " parameters\n";
  return model;
}

const char* reference_root() { return std::getenv("GPUBENCH_FAMILY_REFERENCE_DIR"); }

class FamilyEquality : public ::testing::TestWithParam<std::string> {};

TEST_P(FamilyEquality, LogitsLossAndGradientsEqualTransformers) {
  if (reference_root() == nullptr) GTEST_SKIP() << "GPUBENCH_FAMILY_REFERENCE_DIR is not set: ctest runs hf_family_reference.py first";
  expect_equal_to_transformers(reference_root(), GetParam(), ExpertGemms::Auto);
}

// Every case but gemma2_softcap_sdpa: HF's default SDPA attention drops Gemma 2's score cap
// (tests/workloads/hf_family_cases.py says so); gpubench computes the capped, eager one.
INSTANTIATE_TEST_SUITE_P(Cases, FamilyEquality,
                         ::testing::Values("gpt2_gelu_new", "llama_gqa_llama3_tied", "llama_gqa_llama3_untied",
                                           "qwen2_qkv_bias", "mistral_no_window", "llama_v4_spelling_llama3",
                                           "llama_v4_spelling_default", "llama_pad_token", "llama_linear_rope",
                                           "llama_yarn", "qwen3_qk_norm", "qwen3_yarn", "qwen3_window",
                                           "gemma2_softcap_window", "gemma3_text_layer_types", "gemma3_multimodal",
                                           "phi3_longrope_partial", "phi3_longrope_short", "olmo2_post_norm",
                                           "smollm3_no_rope", "granite_multipliers", "starcoder2_window",
                                           "gpt_neox_parallel", "gpt_neox_sequential", "mixtral_moe",
                                           "mixtral_moe_window_noaux", "qwen2_moe_shared", "qwen3_moe", "olmoe",
                                           "gpt_oss_sinks_clamp", "deepseek_v3_mla", "deepseek_v3_no_q_lora"));

// The mixtures of experts again with every sparse layer's experts through torch::_grouped_mm
// (LibTorch's CPU kernel here; the fused CUDA one on sm90+ under bf16, which the default picks
// there): the same numbers as HF, and the row says the grouped GEMM ran.
class GroupedExpertsEquality : public ::testing::TestWithParam<std::string> {};

TEST_P(GroupedExpertsEquality, GroupedGemmsEqualTransformers) {
  if (reference_root() == nullptr) GTEST_SKIP() << "GPUBENCH_FAMILY_REFERENCE_DIR is not set: ctest runs hf_family_reference.py first";
  const Model model = expect_equal_to_transformers(reference_root(), GetParam(), ExpertGemms::Grouped);
  ASSERT_TRUE(model.run_report);
  const nlohmann::json report = model.run_report();
  EXPECT_NE(report.at("experts_computed_as").get<std::string>().find("torch::_grouped_mm"), std::string::npos) << report.dump();
}

INSTANTIATE_TEST_SUITE_P(Cases, GroupedExpertsEquality,
                         ::testing::Values("mixtral_moe", "mixtral_moe_window_noaux", "qwen2_moe_shared", "qwen3_moe", "olmoe",
                                           "gpt_oss_sinks_clamp", "deepseek_v3_mla"));

// Published shapes (tests/workloads/hf_published_configs.py writes their config.json and
// transformers' own count of each, on the meta device): gpubench's reader counts the same.
TEST(PublishedShapes, EveryConfigCountsWhatTransformersCounts) {
  const char* root = std::getenv("GPUBENCH_FAMILY_REFERENCE_DIR");
  if (root == nullptr) GTEST_SKIP() << "GPUBENCH_FAMILY_REFERENCE_DIR is not set: ctest runs hf_family_reference.py first";
  const std::string dir = std::string(root) + "/published";
  std::ifstream in(dir + "/counts.json");
  ASSERT_TRUE(in) << dir << "/counts.json: the reference side did not write it";
  const nlohmann::json counts = nlohmann::json::parse(in);
  ASSERT_GE(counts.size(), 9u);
  for (const auto& [repo, count] : counts.items()) {
    std::string folder = repo;
    folder.replace(folder.find('/'), 1, "__");
    const DecoderConfig config = read_decoder_config(dir + "/" + folder + "/config.json");
    EXPECT_EQ(config.parameter_count(), count.get<std::int64_t>()) << repo;
  }
  // What MFU counts of the mixtures of experts: a token meets k experts of each sparse layer
  // (DeepSeek-V3: 8 of 256 on 58 layers, "37B activated"; gpt-oss-20b: 4 of 32 on 24, 3.6B
  // active besides its untied input embedding).
  const auto active = [&](const std::string& folder) {
    return read_decoder_config(dir + "/" + folder + "/config.json").shape.active_parameters();
  };
  EXPECT_EQ(active("deepseek-ai__DeepSeek-V3"), 37'552'282'624);
  EXPECT_EQ(active("openai__gpt-oss-20b") - 201088 * 2880, 3'608'307'264);
}

}  // namespace
}  // namespace gpubench
