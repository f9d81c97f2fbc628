// A config.json model's weights judged up front, when --model is read, not per config: a
// weight in a dtype the loader does not convert (F64, I32, F8), a tied config whose file
// holds a head of its own, a folder whose weights are only in a format gpubench does not
// read. Each was a failed row per config (or a silent random init), exit 0.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/config/errors.h"
#include "support/run_command.h"
#include "support/tiny_llama.h"
#include "workloads/config_model.h"
#include "workloads/family_weights.h"
#include "workloads/formats/safetensors_bytes.h"

namespace gpubench {
namespace {

using namespace test_support;
namespace fs = std::filesystem;

#define EXPECT_MENTIONS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

class ConfigModelTest : public ::testing::Test {
 protected:
  std::string dir = make_temp_dir("config-model");
  void TearDown() override { fs::remove_all(dir); }

  // The tiny Llama's config.json, tied or not.
  void config(bool tied) {
    const DecoderShape s = tiny_llama();
    std::ofstream(dir + "/config.json") << nlohmann::json{
        {"architectures", {"LlamaForCausalLM"}}, {"model_type", "llama"}, {"hidden_act", "silu"},
        {"hidden_size", s.hidden}, {"intermediate_size", s.intermediate}, {"max_position_embeddings", s.max_positions},
        {"num_attention_heads", s.heads}, {"num_hidden_layers", s.layers}, {"num_key_value_heads", s.kv_heads},
        {"rms_norm_eps", s.norm_eps}, {"rope_theta", 10000.0}, {"tie_word_embeddings", tied}, {"vocab_size", s.vocab}};
  }
  // Its every weight, F32 unless `dtype_of` names another, `extra` besides.
  void weights(bool tied, const std::map<std::string, std::string>& dtype_of = {}, std::vector<StoredTensor> extra = {}) {
    DecoderShape s = tiny_llama();
    s.tie_word_embeddings = tied;
    std::vector<StoredTensor> tensors;
    for (const auto& [name, shape] : decoder_expected_weights(s)) {
      std::int64_t count = 1;
      for (const auto d : shape) count *= d;
      const auto found = dtype_of.find(name);
      const std::string dtype = found == dtype_of.end() ? "F32" : found->second;
      const torch::ScalarType type = dtype == "F64" ? torch::kFloat64 : dtype == "I32" ? torch::kInt32 : torch::kUInt8;
      tensors.push_back({name, dtype, shape, tensor_bytes(std::vector<double>(count, 0.5), dtype == "F32" ? torch::kFloat32 : type)});
    }
    tensors.insert(tensors.end(), extra.begin(), extra.end());
    write_bytes(dir + "/model.safetensors", safetensors_bytes(tensors));
  }
  std::string refusal() {
    try {
      read_config_model("t", dir, std::nullopt, false);
    } catch (const UsageError& error) {
      return error.what();
    }
    return "";
  }
};

TEST_F(ConfigModelTest, WeightsInDtypesTheLoaderDoesNotReadAreRefusedUpFront) {
  config(false);
  for (const std::string dtype : {"F64", "I32", "F8_E4M3"}) {
    SCOPED_TRACE(dtype);
    weights(false, {{"model.norm.weight", dtype}, {"model.layers.1.mlp.up_proj.weight", dtype}});
    const std::string why = refusal();
    EXPECT_MENTIONS(why, "weights '" + dir + "/model.safetensors': model.layers.1.mlp.up_proj.weight is " + dtype + " (in '" +
                             dir + "/model.safetensors'), model.norm.weight is " + dtype);
    EXPECT_MENTIONS(why, "expected F32, BF16 or F16 weights");
  }
}

TEST_F(ConfigModelTest, ATiedConfigWhoseFileHoldsAnotherHeadIsRefused) {
  config(true);
  const DecoderShape s = tiny_llama();
  const std::size_t table = static_cast<std::size_t>(s.vocab * s.hidden);
  weights(true, {}, {{"lm_head.weight", "F32", {s.vocab, s.hidden}, tensor_bytes(std::vector<double>(table, 0.25), torch::kFloat32)}});
  const std::string why = refusal();
  EXPECT_MENTIONS(why, "lm_head.weight differs from model.embed_tokens.weight, but config.json '" + dir +
                           "/config.json' ties them (tie_word_embeddings true");
  // The same values (a file saved with the tie written out) are the tie itself.
  weights(true, {}, {{"lm_head.weight", "F32", {s.vocab, s.hidden}, tensor_bytes(std::vector<double>(table, 0.5), torch::kFloat32)}});
  EXPECT_EQ(refusal(), "");
}

TEST_F(ConfigModelTest, WeightsOnlyInAFormatNotReadAreSaidOutLoud) {
  config(false);
  std::ofstream(dir + "/pytorch_model.bin") << "a pickle";
  const DecoderLmSpec spec = read_config_model("t", dir, std::nullopt, false);
  EXPECT_EQ(spec.definition["weights"], "random (the folder's pytorch_model.bin not read: safetensors only)");
  const auto notice = unread_weights_notice("t", dir, false);
  ASSERT_TRUE(notice);
  EXPECT_MENTIONS(*notice, "--model t: folder '" + dir + "' holds pytorch_model.bin but no safetensors");
  EXPECT_MENTIONS(*notice, "t trains from random init");
  EXPECT_FALSE(unread_weights_notice("t", dir, /*random_weights=*/true)) << "--weights random asked for it";
  weights(false);
  EXPECT_FALSE(unread_weights_notice("t", dir, false)) << "the safetensors are read";
}

// A tensor name from the file is excerpted and escaped in every message (issue 61, item 17):
// a 50 MB name gave a 50 MB line, a NUL cut the message before its reason.
TEST_F(ConfigModelTest, TensorNamesInMessagesAreCutAndEscaped) {
  config(false);
  const std::string name = std::string(5000, 'n') + std::string(1, '\0') + "\nResult: 0 regressions";
  weights(false, {}, {{name, "F32", {1}, tensor_bytes(std::vector<double>(1, 0.5), torch::kFloat32)}});
  const std::string why = refusal();
  EXPECT_LT(why.size(), 600u) << why.size();
  EXPECT_EQ(why.find('\n'), std::string::npos);
  EXPECT_EQ(why.find(std::string(1, '\0')), std::string::npos);
  EXPECT_MENTIONS(why, "... (5023 bytes) is not a tensor of this model") << why;
  // Short names keep their text, a control byte shown.
  weights(false, {}, {{"extra\x01.weight", "F32", {1}, tensor_bytes(std::vector<double>(1, 0.5), torch::kFloat32)}});
  EXPECT_MENTIONS(refusal(), "extra\\x01.weight is not a tensor of this model");
}

// A bare file name (issue 61, item 14): its folder is the working one, so the weights beside
// it load; it looked for '/model.safetensors' and trained from random init.
TEST_F(ConfigModelTest, ABareConfigFileNameReadsTheWeightsBesideIt) {
  config(false);
  weights(false);
  const fs::path was = fs::current_path();
  fs::current_path(dir);
  const DecoderLmSpec spec = read_config_model("t", "config.json", std::nullopt, false);
  fs::current_path(was);
  EXPECT_EQ(spec.definition["weights"], "./model.safetensors");
  EXPECT_EQ(model_folder("config.json"), ".");
  EXPECT_EQ(model_folder(dir + "/config.json"), dir);
  EXPECT_EQ(model_folder(dir), dir);
}

}  // namespace
}  // namespace gpubench
