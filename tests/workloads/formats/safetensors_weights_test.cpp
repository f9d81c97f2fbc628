#include <gtest/gtest.h>

#include <filesystem>

#include "core/config/errors.h"
#include "support/run_command.h"
#include "workloads/formats/safetensors_bytes.h"
#include "workloads/formats/safetensors_weights.h"

namespace gpubench {
namespace {

using namespace test_support;
using nlohmann::json;

#define EXPECT_MENTIONS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

StoredTensor f32(const std::string& name, std::vector<double> values) {
  return {name, "F32", {std::int64_t(values.size())}, tensor_bytes(values, torch::kFloat32)};
}

class SafetensorsWeightsTest : public ::testing::Test {
 protected:
  std::string dir = make_temp_dir("weights");
  void TearDown() override { std::filesystem::remove_all(dir); }

  void shard(const std::string& name, const std::vector<StoredTensor>& tensors) {
    write_bytes(dir + "/" + name, safetensors_bytes(tensors));
  }
  void index(const json& weight_map) {
    write_text(dir + "/model.safetensors.index.json", json{{"metadata", {{"total_size", 0}}}, {"weight_map", weight_map}}.dump());
  }
  // Two shards and an index that agree: a, b in the first, c in the second.
  void sharded() {
    shard("model-00001-of-00002.safetensors", {f32("a", {1, 2}), f32("b", {3})});
    shard("model-00002-of-00002.safetensors", {{"c", "BF16", {2}, tensor_bytes({0.5, -4}, torch::kBFloat16)}});
    index({{"a", "model-00001-of-00002.safetensors"}, {"b", "model-00001-of-00002.safetensors"},
           {"c", "model-00002-of-00002.safetensors"}});
  }
  std::string error_of_open() {
    try {
      SafetensorsWeights::open(dir);
    } catch (const UsageError& error) {
      return error.what();
    }
    return "";
  }
  std::string index_path() const { return dir + "/model.safetensors.index.json"; }
};

TEST_F(SafetensorsWeightsTest, AFolderWithoutWeightsHasNone) { EXPECT_FALSE(SafetensorsWeights::open(dir).has_value()); }

TEST_F(SafetensorsWeightsTest, ReadsTheSingleFile) {
  shard("model.safetensors", {f32("x", {1, 2, 3}), {"y", "F16", {1}, tensor_bytes({2}, torch::kFloat16)}});
  const auto weights = SafetensorsWeights::open(dir);
  ASSERT_TRUE(weights);
  EXPECT_EQ(weights->names(), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(weights->listing(), dir + "/model.safetensors");
  EXPECT_EQ(weights->source("y"), dir + "/model.safetensors");
  EXPECT_EQ(weights->dtype("y"), "F16");
  EXPECT_EQ(weights->shape("x"), (std::vector<std::int64_t>{3}));
  EXPECT_TRUE(torch::equal(weights->tensor("y"), torch::tensor({2.0f})));
  EXPECT_TRUE(weights->contains("x"));
  try {
    weights->tensor("z");
    ADD_FAILURE();
  } catch (const UsageError& error) {
    EXPECT_MENTIONS(std::string(error.what()), "model weights '" + dir + "/model.safetensors' have no tensor 'z' (they hold 2)");
  }
}

TEST_F(SafetensorsWeightsTest, ReadsShardsThroughTheIndex) {
  sharded();
  const auto weights = SafetensorsWeights::open(dir);
  ASSERT_TRUE(weights);
  EXPECT_EQ(weights->listing(), index_path());
  EXPECT_EQ(weights->names(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(weights->source("a"), dir + "/model-00001-of-00002.safetensors");
  EXPECT_EQ(weights->source("c"), dir + "/model-00002-of-00002.safetensors");
  EXPECT_EQ(weights->dtype("c"), "BF16");
  EXPECT_TRUE(torch::equal(weights->tensor("c"), torch::tensor({0.5f, -4.0f})));
  EXPECT_TRUE(torch::equal(weights->tensor("a"), torch::tensor({1.0f, 2.0f})));
  // Moved (as a caller keeps it in a shared_ptr), it still reads.
  const SafetensorsWeights moved = std::move(*SafetensorsWeights::open(dir));
  EXPECT_TRUE(torch::equal(moved.tensor("b"), torch::tensor({3.0f})));
}

TEST_F(SafetensorsWeightsTest, TheSingleFileWinsOverAnIndexAsInHuggingFace) {
  sharded();
  shard("model.safetensors", {f32("only", {1})});
  EXPECT_EQ(SafetensorsWeights::open(dir)->names(), (std::vector<std::string>{"only"}));
}

TEST_F(SafetensorsWeightsTest, RefusesShardNamesOutsideTheFolder) {
  std::filesystem::create_directory(dir + "/sub");
  shard("sub/s.safetensors", {f32("a", {1})});
  for (const json& bad : {json("../s.safetensors"), json("/etc/passwd"), json("sub/s.safetensors"), json(""),
                          json(".."), json("."), json(5), json(std::string("s\0x", 3))}) {
    index({{"a", bad}});
    const std::string message = error_of_open();
    EXPECT_MENTIONS(message, "safetensors index '" + index_path() + "': weight_map gives tensor 'a' the shard ");
    EXPECT_MENTIONS(message, bad.dump());
    EXPECT_MENTIONS(message, "expected the name of a file in the index's folder (no '/', not '..')");
  }
}

TEST_F(SafetensorsWeightsTest, RefusesMalformedIndexes) {
  write_text(index_path(), "{\"weight_map\": ");
  EXPECT_MENTIONS(error_of_open(), "safetensors index '" + index_path() + "': not valid JSON");
  write_text(index_path(), R"({"metadata": {}})");
  EXPECT_MENTIONS(error_of_open(), "has no \"weight_map\" object");
  write_text(index_path(), R"({"weight_map": ["a"]})");
  EXPECT_MENTIONS(error_of_open(), "has no \"weight_map\" object");
  write_text(index_path(), R"({"weight_map": {}})");
  EXPECT_MENTIONS(error_of_open(), "expected one with at least one tensor");
  shard("s1", {f32("a", {1})});
  shard("s2", {f32("a", {1})});
  write_text(index_path(), R"({"weight_map": {"a": "s1", "a": "s2"}})");
  EXPECT_MENTIONS(error_of_open(), "key 'a' appears twice in one JSON object");
}

TEST_F(SafetensorsWeightsTest, RefusesAMissingShard) {
  sharded();
  std::filesystem::remove(dir + "/model-00002-of-00002.safetensors");
  EXPECT_MENTIONS(error_of_open(), "safetensors index '" + index_path() + "' maps tensor 'c' to shard '" + dir +
                                       "/model-00002-of-00002.safetensors', which does not exist");
}

TEST_F(SafetensorsWeightsTest, RefusesADamagedShardNamingIt) {
  sharded();
  write_bytes(dir + "/model-00002-of-00002.safetensors", {1, 2, 3});
  EXPECT_MENTIONS(error_of_open(), "safetensors file '" + dir + "/model-00002-of-00002.safetensors': is 3 bytes");
}

TEST_F(SafetensorsWeightsTest, RefusesIndexAndShardsThatDisagree) {
  const std::string first = dir + "/model-00001-of-00002.safetensors", second = dir + "/model-00002-of-00002.safetensors";
  sharded();  // listed, but not in its shard
  index({{"a", "model-00001-of-00002.safetensors"}, {"b", "model-00001-of-00002.safetensors"},
         {"c", "model-00002-of-00002.safetensors"}, {"d", "model-00002-of-00002.safetensors"}});
  EXPECT_MENTIONS(error_of_open(), "safetensors index '" + index_path() + "' maps tensor 'd' to shard '" + second +
                                       "', which has no tensor of that name");
  index({{"a", "model-00001-of-00002.safetensors"}, {"c", "model-00002-of-00002.safetensors"}});  // b unlisted
  EXPECT_MENTIONS(error_of_open(), "safetensors shard '" + first + "' holds tensor 'b', which safetensors index '" +
                                       index_path() + "' does not list");
  shard("model-00002-of-00002.safetensors", {f32("b", {9}), f32("c", {1, 2})});  // b in both, listed in the first
  index({{"a", "model-00001-of-00002.safetensors"}, {"b", "model-00001-of-00002.safetensors"},
         {"c", "model-00002-of-00002.safetensors"}});
  EXPECT_MENTIONS(error_of_open(), "safetensors shard '" + second + "' holds tensor 'b', which safetensors index '" +
                                       index_path() + "' maps to shard 'model-00001-of-00002.safetensors'");
}

TEST_F(SafetensorsWeightsTest, FollowsSymlinkedShardsAsTheHuggingFaceCacheHasThem) {
  std::filesystem::create_directory(dir + "/blobs");
  write_bytes(dir + "/blobs/1234", safetensors_bytes({f32("a", {4})}));
  std::filesystem::create_directory(dir + "/snapshot");
  std::filesystem::create_symlink("../blobs/1234", dir + "/snapshot/model.safetensors");
  const auto weights = SafetensorsWeights::open(dir + "/snapshot");
  ASSERT_TRUE(weights);
  EXPECT_TRUE(torch::equal(weights->tensor("a"), torch::tensor({4.0f})));
}

// Weights that are there but cannot be found were read as "the folder has none": the model
// trained from random init, its row the only place that said so.
TEST_F(SafetensorsWeightsTest, ADanglingLinkIsADownloadThatDidNotFinishNotNoWeights) {
  for (const std::string file : {"model.safetensors", "model.safetensors.index.json"}) {
    SCOPED_TRACE(file);
    std::filesystem::create_symlink("../blobs/abc.incomplete", dir + "/" + file);
    const std::string message = error_of_open();
    EXPECT_MENTIONS(message, "model weights '" + dir + "/" + file + "' are a symbolic link to '../blobs/abc.incomplete', "
                             "which does not exist (a download that did not finish?)");
    EXPECT_MENTIONS(message, "--weights random");
    std::filesystem::remove(dir + "/" + file);
  }
}

TEST_F(SafetensorsWeightsTest, ShardsWithoutTheirIndexAreRefused) {
  sharded();
  std::filesystem::remove(index_path());
  const std::string message = error_of_open();
  EXPECT_MENTIONS(message, "model folder '" + dir + "' holds 2 safetensors file(s) (model-00001-of-00002.safetensors, "
                           "model-00002-of-00002.safetensors) but neither model.safetensors nor model.safetensors.index.json");
  EXPECT_MENTIONS(message, "--weights random");
}

TEST_F(SafetensorsWeightsTest, SameValuesComparesStoredTensors) {
  const std::vector<double> values(3 << 20, 0.25);  // 12 MiB of F32: more than one chunk
  std::vector<double> other = values;
  other.back() = 0.5;
  shard("model.safetensors", {{"e", "F32", {3, 1 << 20}, tensor_bytes(values, torch::kFloat32)},
                              {"h", "F32", {3, 1 << 20}, tensor_bytes(values, torch::kFloat32)},
                              {"o", "F32", {3, 1 << 20}, tensor_bytes(other, torch::kFloat32)},
                              {"b", "BF16", {3, 1 << 20}, tensor_bytes(values, torch::kBFloat16)},
                              {"t", "F32", {1 << 20, 3}, tensor_bytes(values, torch::kFloat32)}});
  const auto weights = SafetensorsWeights::open(dir);
  ASSERT_TRUE(weights);
  EXPECT_TRUE(weights->same_values("e", "h"));
  EXPECT_FALSE(weights->same_values("e", "o")) << "the last element differs";
  EXPECT_TRUE(weights->same_values("e", "b")) << "0.25 in BF16 is 0.25";
  EXPECT_FALSE(weights->same_values("e", "t")) << "another shape";
}

}  // namespace
}  // namespace gpubench
