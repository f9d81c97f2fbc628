#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>

#include "core/config/errors.h"
#include "support/run_command.h"
#include "workloads/formats/safetensors_file.h"
#include "workloads/formats/safetensors_bytes.h"

namespace gpubench {
namespace {

using namespace test_support;
using nlohmann::json;

class SafetensorsFileTest : public ::testing::Test {
 protected:
  std::string dir = make_temp_dir("safetensors");
  void TearDown() override { std::filesystem::remove_all(dir); }

  std::string write(const std::string& name, const Bytes& bytes) {
    write_bytes(dir + "/" + name, bytes);
    return dir + "/" + name;
  }
  // The message of the UsageError reading the file throws, after checking that it names
  // the file; "" when it reads.
  std::string error_of(const std::string& path) {
    try {
      SafetensorsFile file(path);
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find(path), std::string::npos) << error.what();
      return error.what();
    }
    return "";
  }
  // A file whose header is `header` (a JSON value) over `data_bytes` zero bytes.
  std::string error_of_header(const json& header, std::size_t data_bytes = 8) {
    return error_of(write("h.safetensors", file_bytes(header.dump(), Bytes(data_bytes, 0))));
  }
};

#define EXPECT_MENTIONS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

TEST_F(SafetensorsFileTest, ReadsEveryWeightDtypeAsFp32AtUnalignedOffsets) {
  const auto tensors = mixed_tensors();
  const std::string path = write("m.safetensors", safetensors_bytes(tensors, {{"format", "pt"}}));
  const SafetensorsFile file(path);
  ASSERT_EQ(file.entries().size(), tensors.size());
  EXPECT_EQ(file.metadata(), (std::map<std::string, std::string>{{"format", "pt"}}));
  EXPECT_EQ(file.entries()[1].name, "b.f32");
  EXPECT_EQ(file.entries()[1].begin, 3u);  // after the 3-byte U8: not 4-aligned
  EXPECT_EQ(file.dtype("c.bf16"), "BF16");
  const auto expect_values = [&](const std::string& name, std::vector<std::int64_t> shape, std::vector<float> values) {
    const torch::Tensor t = file.tensor(name);
    EXPECT_EQ(t.scalar_type(), torch::kFloat32) << name;
    EXPECT_EQ(t.sizes().vec(), shape) << name;
    EXPECT_TRUE(torch::equal(t.flatten(), torch::tensor(values))) << name << ": " << t;
  };
  expect_values("b.f32", {2, 3}, {0.5f, -1.25f, 3, 4, 5.5f, -6});
  expect_values("c.bf16", {4}, {1.5f, -2, 0.25f, 384});
  expect_values("d.f16", {2, 1}, {-0.75f, 1024});
  expect_values("f.scalar", {}, {7});
  EXPECT_EQ(file.tensor("e.empty").sizes().vec(), (std::vector<std::int64_t>{0, 5}));
  // Tensors are copies: they outlive the file.
  torch::Tensor kept = SafetensorsFile(path).tensor("b.f32");
  EXPECT_FLOAT_EQ(kept[1][2].item<float>(), -6.0f);
}

TEST_F(SafetensorsFileTest, OtherDtypesReadAsStoredAndAreRefusedAsWeights) {
  const SafetensorsFile file(write("m.safetensors", safetensors_bytes(mixed_tensors())));
  const torch::Tensor ids = file.stored_tensor("g.i64");
  EXPECT_EQ(ids.scalar_type(), torch::kInt64);
  EXPECT_EQ(ids[1].item<std::int64_t>(), 5000000000);
  EXPECT_EQ(file.stored_tensor("c.bf16").scalar_type(), torch::kBFloat16);
  try {
    file.tensor("g.i64");
    ADD_FAILURE() << "an I64 tensor read as a weight";
  } catch (const UsageError& error) {
    EXPECT_MENTIONS(std::string(error.what()), "'g.i64' has dtype I64: expected F32, BF16 or F16");
  }
  const SafetensorsFile flags(write("b.safetensors", safetensors_bytes({{"mask", "BOOL", {2}, {1, 0}}})));
  EXPECT_THROW(flags.stored_tensor("mask"), UsageError);  // a bool byte other than 0/1 is not a torch bool
}

TEST_F(SafetensorsFileTest, UnknownNamesAreErrorsNamingTheFile) {
  const std::string path = write("m.safetensors", safetensors_bytes(mixed_tensors()));
  const SafetensorsFile file(path);
  EXPECT_EQ(file.find("nope"), nullptr);
  try {
    file.tensor("nope");
    ADD_FAILURE();
  } catch (const UsageError& error) {
    EXPECT_MENTIONS(std::string(error.what()), "safetensors file '" + path + "' has no tensor 'nope' (it holds 7)");
  }
}

TEST_F(SafetensorsFileTest, RefusesFilesTooShortOrWithABadHeaderLength) {
  EXPECT_MENTIONS(error_of(write("empty", {})), "is 0 bytes: expected at least 8");
  EXPECT_MENTIONS(error_of(write("short", {1, 0, 0, 0, 0})), "is 5 bytes: expected at least 8");
  EXPECT_MENTIONS(error_of(write("long", file_bytes("{}", {}, 1000))), "header length is 1000 bytes but only 2 follow");
  EXPECT_MENTIONS(error_of(write("huge", file_bytes("{}", {}, 100'000'001))),
                  "header length is 100000001 bytes: expected at most 100000000");
  EXPECT_MENTIONS(error_of(write("max", file_bytes("{}", {}, ~std::uint64_t{0}))), "header length is 18446744073709551615");
  EXPECT_MENTIONS(error_of(dir + "/missing"), "cannot read safetensors file");
  EXPECT_MENTIONS(error_of(dir), "is a directory");
  EXPECT_EQ(error_of(write("none", file_bytes("{}", {}))), "");  // no tensors is a valid file
}

TEST_F(SafetensorsFileTest, RefusesHeadersThatAreNotJsonObjects) {
  EXPECT_MENTIONS(error_of(write("text", file_bytes("{\"a\": ", {}))), "header: not valid JSON");
  EXPECT_MENTIONS(error_of(write("utf8", file_bytes("{\"a\xff\": 1}", {}))), "header: not valid JSON");
  EXPECT_MENTIONS(error_of(write("bom", file_bytes("\xEF\xBB\xBF{}", {}))), "it starts with a byte-order mark");
  EXPECT_MENTIONS(error_of(write("nul", file_bytes(std::string("{}\0", 3), {}))), "header: not valid JSON (UTF-8 text "
                                                                                   "expected): a NUL byte at offset 2");
  EXPECT_MENTIONS(error_of_header(json::array({1, 2})), "header is [1,2]: expected a JSON object of tensors");
  EXPECT_MENTIONS(error_of(write("deep", file_bytes(std::string(50, '[') + std::string(50, ']'), {}))),
                  "JSON nested deeper than 4 levels");
  // Two entries under one name: nlohmann alone would keep the second silently.
  const std::string twice = R"({"w": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]},
                                "w": {"dtype": "U8", "shape": [4], "data_offsets": [4, 8]}})";
  EXPECT_MENTIONS(error_of(write("twice", file_bytes(twice, Bytes(8, 0)))), "key 'w' appears twice in one JSON object");
  const std::string dtype_twice = R"({"w": {"dtype": "U8", "dtype": "I8", "shape": [8], "data_offsets": [0, 8]}})";
  EXPECT_MENTIONS(error_of(write("dtype2", file_bytes(dtype_twice, Bytes(8, 0)))), "key 'dtype' appears twice");
}

TEST_F(SafetensorsFileTest, RefusesEntriesWithMissingOrMistypedFields) {
  const json good = {{"dtype", "U8"}, {"shape", {8}}, {"data_offsets", {0, 8}}};
  const auto with = [&](const std::string& key, const json& value) {
    json entry = good;
    entry[key] = value;
    return json{{"w", entry}};
  };
  const auto without = [&](const std::string& key) {
    json entry = good;
    entry.erase(key);
    return json{{"w", entry}};
  };
  EXPECT_MENTIONS(error_of_header({{"w", 5}}), "tensor 'w' is 5: expected an object with dtype, shape, data_offsets");
  EXPECT_MENTIONS(error_of_header(without("dtype")), "tensor 'w' has no \"dtype\"");
  EXPECT_MENTIONS(error_of_header(without("shape")), "tensor 'w' has no \"shape\"");
  EXPECT_MENTIONS(error_of_header(without("data_offsets")), "tensor 'w' has no \"data_offsets\"");
  EXPECT_MENTIONS(error_of_header(with("dtype", 4)), "has dtype 4: expected a string");
  EXPECT_MENTIONS(error_of_header(with("dtype", "Q4")), "has dtype 'Q4': expected a byte-sized safetensors dtype");
  EXPECT_MENTIONS(error_of_header(with("dtype", "F4")), "gpubench reads F32, BF16 and F16 as weights)");
  EXPECT_EQ(error_of_header(with("dtype", "F8_E8M0")), "");  // readable as a file; tensor() refuses it
  EXPECT_MENTIONS(error_of_header(with("shape", "8")), "has shape \"8\": expected an array");
  EXPECT_MENTIONS(error_of_header(with("shape", {-8})), "has shape [-8]: expected every dimension an integer >= 0");
  EXPECT_MENTIONS(error_of_header(with("shape", {8.0})), "has shape [8.0]: expected every dimension an integer >= 0");
  EXPECT_MENTIONS(error_of_header(with("shape", json::array({true}))), "expected every dimension an integer >= 0");
  EXPECT_MENTIONS(error_of_header(with("shape", std::vector<int>(65, 1))), "has 65 dimensions: expected at most 64");
  // A shape of a million entries is refused while the header is read, before a DOM holds it
  // (49.5M entries took 2.69 GB and 7.9 s, then the rank refused it; issue 61, item 16).
  EXPECT_MENTIONS(error_of_header(with("shape", std::vector<int>(1000000, 1))),
                  "a JSON array of more than 4096 items: expected at most 4096");
  EXPECT_MENTIONS(error_of_header(with("data_offsets", {8})), "has data_offsets [8]: expected [begin, end]");
  EXPECT_MENTIONS(error_of_header(with("data_offsets", {0, 4, 8})), "expected [begin, end], integers >= 0");
  EXPECT_MENTIONS(error_of_header(with("data_offsets", {-1, 8})), "has data_offsets [-1,8]");
  EXPECT_MENTIONS(error_of_header(with("data_offsets", {"0", 8})), "expected [begin, end], integers >= 0");
  EXPECT_MENTIONS(error_of_header({{"__metadata__", {{"format", 1}}}}, 0), "__metadata__ 'format' is 1: expected a string");
  EXPECT_MENTIONS(error_of_header({{"__metadata__", {1}}}, 0), "__metadata__ is [1]: expected an object of strings");
  EXPECT_EQ(error_of_header({{"__metadata__", nullptr}}, 0), "");
  json extra = good;  // unknown keys inside an entry are ignored, as the reference reader does
  extra["note"] = {{"k", 1}};
  EXPECT_EQ(error_of_header({{"w", extra}}), "");
}

TEST_F(SafetensorsFileTest, RefusesRangesThatDisagreeWithShapesOrTheDataSection) {
  const auto entry = [](const char* dtype, json shape, std::uint64_t begin, std::uint64_t end) {
    return json{{"dtype", dtype}, {"shape", shape}, {"data_offsets", {begin, end}}};
  };
  EXPECT_MENTIONS(error_of_header({{"w", entry("F32", {3}, 0, 8)}}),
                  "tensor 'w' has shape [3] of F32 (12 bytes) but data_offsets [0, 8] hold 8: expected the two to agree");
  EXPECT_MENTIONS(error_of_header({{"w", entry("U8", {0}, 8, 0)}}), "has data_offsets [8, 0]: expected begin <= end");
  EXPECT_MENTIONS(error_of_header({{"w", entry("U8", {16}, 0, 16)}}),
                  "tensor 'w' ends at byte 16 of the data section: expected at most 8");
  EXPECT_MENTIONS(error_of_header({{"w", entry("F32", {std::int64_t{1} << 62, 8}, 0, 8)}}),
                  "whose element count overflows 64 bits");
  EXPECT_MENTIONS(error_of_header({{"w", entry("F64", {std::int64_t{1} << 61}, 0, 8)}}),
                  "whose size in bytes overflows 64 bits");
  // Even for an empty tensor the other dims must multiply within int64, or torch could not
  // lay it out; within that, an empty tensor of large dims is fine.
  EXPECT_MENTIONS(error_of_header({{"w", entry("F32", {std::int64_t{1} << 62, 2, 0}, 0, 0)}, {"v", entry("U8", {8}, 0, 8)}}),
                  "whose element count overflows 64 bits");
  const std::string wide = write("wide.safetensors", file_bytes(json{{"w", entry("F32", {std::int64_t{1} << 62, 0}, 0, 0)}}.dump(), {}));
  EXPECT_EQ(SafetensorsFile(wide).tensor("w").sizes().vec(), (std::vector<std::int64_t>{std::int64_t{1} << 62, 0}));
  EXPECT_MENTIONS(error_of_header({{"a", entry("U8", {6}, 0, 6)}, {"b", entry("U8", {4}, 4, 8)}}),
                  "tensor 'b' at bytes [4, 8) overlaps tensor 'a', which ends at 6");
  EXPECT_MENTIONS(error_of_header({{"a", entry("U8", {2}, 0, 2)}, {"b", entry("U8", {4}, 4, 8)}}),
                  "data bytes [2, 4) belong to no tensor (a hole before 'b')");
  EXPECT_MENTIONS(error_of_header({{"a", entry("U8", {6}, 0, 6)}}), "data bytes [6, 8) at the end belong to no tensor");
  EXPECT_MENTIONS(error_of_header({{"a", entry("U8", {8}, 0, 8)}, {"b", entry("U8", {8}, 0, 8)}}), "overlaps tensor");
  // Empty tensors take no bytes and may sit at any boundary.
  EXPECT_EQ(error_of_header({{"a", entry("U8", {8}, 0, 8)}, {"b", entry("F32", {0, 3}, 8, 8)}}), "");
}

TEST_F(SafetensorsFileTest, LongNamesAreShortenedInMessages) {
  const std::string name(5000, 'n');
  const std::string message = error_of_header({{name, 5}});
  EXPECT_MENTIONS(message, "...' (5000 bytes)");
  EXPECT_LT(message.size(), 600u);
}

#ifdef GPUBENCH_PYTHON
// The reference implementation (Python's safetensors) and this reader agree both ways: a
// file it writes reads here with the same values, and a file these tests write loads there.
TEST_F(SafetensorsFileTest, AgreesWithPythonSafetensorsBothWays) {
  const std::string theirs = dir + "/theirs.safetensors", ours = write("ours.safetensors", safetensors_bytes(mixed_tensors()));
  const std::string script = dir + "/round_trip.py";
  write_text(script, R"(import sys, torch
from safetensors.torch import save_file, load_file
t = {"w": (torch.arange(12, dtype=torch.float32) - 5.5).reshape(3, 4) / 4,
     "h": (torch.arange(6, dtype=torch.float32) * 0.75).to(torch.bfloat16).reshape(2, 3),
     "f": (torch.arange(3, dtype=torch.float32) - 1).to(torch.float16), "ids": torch.tensor([7, -1])}
save_file(t, sys.argv[1], metadata={"format": "pt"})
got = load_file(sys.argv[2])
assert got["b.f32"].flatten().tolist() == [0.5, -1.25, 3, 4, 5.5, -6]
assert got["c.bf16"].dtype == torch.bfloat16 and got["c.bf16"].tolist() == [1.5, -2, 0.25, 384]
assert got["g.i64"].tolist() == [-3, 5000000000] and got["e.empty"].shape == (0, 5) and got["f.scalar"].item() == 7
print("python ok")
)");
  const auto result = run_command(std::string("PYTHONWARNINGS=ignore ") + GPUBENCH_PYTHON + " " + script + " " + theirs + " " + ours);
  if (result.output.find("No module named") != std::string::npos) GTEST_SKIP() << result.output;
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const SafetensorsFile file(theirs);
  EXPECT_EQ(file.metadata().at("format"), "pt");
  EXPECT_TRUE(torch::equal(file.tensor("w"), (torch::arange(12, torch::kFloat32) - 5.5).reshape({3, 4}) / 4));
  EXPECT_TRUE(torch::equal(file.tensor("h"), (torch::arange(6, torch::kFloat32) * 0.75).reshape({2, 3})));
  EXPECT_TRUE(torch::equal(file.tensor("f"), torch::arange(3, torch::kFloat32) - 1));
  EXPECT_EQ(file.stored_tensor("ids")[1].item<std::int64_t>(), -1);
}
#endif

}  // namespace
}  // namespace gpubench
