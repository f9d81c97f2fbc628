#include "harness/ceilings/ceilings_file.h"

#include <cstdlib>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "core/config/errors.h"

namespace gpubench {
namespace {

using nlohmann::json;

TEST(FindCeiling, ReadsDottedPathsAndSaysWhenAbsent) {
  const json c = {{"format", kCeilingsFormat},
                  {"format_version", kCeilingsFormatVersion},
                  {"matmul_tflops", {{"cpu", {{"fp32", 0.02}}}, {"cuda", json::object()}}},
                  {"loader_samples_per_s", {{"mlp", {{"2", 3000.0}}}}}};
  EXPECT_DOUBLE_EQ(find_ceiling(c, "matmul_tflops.cpu.fp32").value(), 0.02);
  EXPECT_DOUBLE_EQ(find_ceiling(c, "loader_samples_per_s.mlp.2").value(), 3000.0);
  EXPECT_FALSE(find_ceiling(c, "h2d_pinned_gb_per_s").has_value());
  EXPECT_FALSE(find_ceiling(c, "matmul_tflops.cuda").has_value());  // an object, not a number
  EXPECT_FALSE(find_ceiling(c, "matmul_tflops.cpu.fp32.").has_value());
  EXPECT_FALSE(find_ceiling(c, "").has_value());
}

TEST(UsableCeiling, IsPositiveNormalAndAtMostTheMaximum) {
  EXPECT_TRUE(usable_ceiling(24.5));
  EXPECT_TRUE(usable_ceiling(kMaxCeiling));
  EXPECT_FALSE(usable_ceiling(0));
  EXPECT_FALSE(usable_ceiling(-1));
  EXPECT_FALSE(usable_ceiling(1e-320));
  EXPECT_FALSE(usable_ceiling(2 * kMaxCeiling));
}

class LoadCeilings : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/gpubench-ceilings-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  // The UsageError's message, or "" when none was thrown.
  std::string load_error(const std::string& text) {
    try {
      load_ceilings(write("c.json", text));
    } catch (const UsageError& error) {
      return error.what();
    }
    return "";
  }
  std::string dir_;
};

TEST_F(LoadCeilings, RoundTripsWhatWriteCeilingsWrote) {
  const json c = {{"format", kCeilingsFormat}, {"format_version", kCeilingsFormatVersion}, {"d2d_gb_per_s", 3800.0},
                  {"from", {{"d2d_gb_per_s", "copy/d2d/bytes:1073741824/manual_time"}}}};
  write_ceilings(dir_ + "/ceilings.json", c);
  EXPECT_EQ(load_ceilings(dir_ + "/ceilings.json"), c);
}

TEST_F(LoadCeilings, AcceptsAMinimalHandWrittenFile) {
  EXPECT_EQ(load_error(R"({"format": "gpubench-ceilings", "format_version": 1, "h2d_pinned_gb_per_s": 24.5})"), "");
}

// Each collective gpubench-bench measures has a busbw and an algbw ceiling per backend,
// all-reduce's keys as before, all-gather's and reduce-scatter's in the same shape.
TEST_F(LoadCeilings, ReadsTheBandwidthCeilingsOfEveryCollective) {
  const std::string file = R"({"format": "gpubench-ceilings", "format_version": 1,
    "allreduce_busbw_gb_per_s": {"gloo": 2.1, "nccl": 300}, "allreduce_algbw_gb_per_s": {"gloo": 2.1, "nccl": 150},
    "allgather_busbw_gb_per_s": {"gloo": 1.2, "nccl": 280}, "allgather_algbw_gb_per_s": {"gloo": 2.4, "nccl": 320},
    "reducescatter_busbw_gb_per_s": {"gloo": 0.9}, "reducescatter_algbw_gb_per_s": {"gloo": 1.8}})";
  EXPECT_EQ(load_error(file), "");
  const json c = load_ceilings(write("collectives.json", file));
  EXPECT_DOUBLE_EQ(find_ceiling(c, "allgather_busbw_gb_per_s.nccl").value_or(0), 280);
  EXPECT_DOUBLE_EQ(find_ceiling(c, "reducescatter_algbw_gb_per_s.gloo").value_or(0), 1.8);
  const std::string head = R"({"format": "gpubench-ceilings", "format_version": 1, )";
  EXPECT_NE(load_error(head + R"("reducescatter_busbw_gb_per_s": {"mpi": 3}})")
                .find("unknown key 'reducescatter_busbw_gb_per_s.mpi', expected one of gloo,nccl"),
            std::string::npos);
  EXPECT_NE(load_error(head + R"("allgather_busbw_gb_per_s": {"gloo": 0}})").find("'allgather_busbw_gb_per_s.gloo' is 0"),
            std::string::npos);
  EXPECT_NE(load_error(head + R"("alltoall_busbw_gb_per_s": {"gloo": 1}})").find("unknown key 'alltoall_busbw_gb_per_s'"),
            std::string::npos);
}

TEST_F(LoadCeilings, NamesTheFileAndTheProblem) {
  try {
    load_ceilings(dir_ + "/missing.json");
    FAIL() << "no error for a missing file";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("missing.json"), std::string::npos) << error.what();
  }
  EXPECT_NE(load_error("{not json").find("is not JSON"), std::string::npos);
  EXPECT_NE(load_error("[]").find("expected a JSON object"), std::string::npos);
  EXPECT_NE(load_error(R"({"format": "other", "format_version": 1})").find("'format'"), std::string::npos);
  EXPECT_NE(load_error(R"({"format_version": 1})").find("missing"), std::string::npos);
  EXPECT_NE(load_error(R"({"format": "gpubench-ceilings", "format_version": 2})").find("reads version 1"),
            std::string::npos);
  // 2^32 + 1 is not version 1 (a 32-bit read would truncate it to 1).
  EXPECT_NE(load_error(R"({"format": "gpubench-ceilings", "format_version": 4294967297})").find("reads version 1"),
            std::string::npos);
  const std::string head = R"({"format": "gpubench-ceilings", "format_version": 1, )";
  EXPECT_NE(load_error(head + R"("h2d_gb_per_s": 3})").find("unknown key 'h2d_gb_per_s'"), std::string::npos);
  EXPECT_NE(load_error(head + R"("d2d_gb_per_s": -1})").find("'d2d_gb_per_s' is -1"), std::string::npos);
  EXPECT_NE(load_error(head + R"("d2d_gb_per_s": 1e400})").find("is not JSON"), std::string::npos);  // overflow
  EXPECT_NE(load_error(head + R"("d2d_gb_per_s": 1e-320})").find("'d2d_gb_per_s' is"), std::string::npos);  // denormal
  EXPECT_NE(load_error(head + R"("d2d_gb_per_s": "fast"})").find("expected a number above 0 and at most 1e9"),
            std::string::npos);
  // A 0 was accepted, then reported "not in the file"; 1e308 gave subnormal shares.
  EXPECT_NE(load_error(head + R"("d2d_gb_per_s": 0})").find("'d2d_gb_per_s' is 0, expected a number above 0"),
            std::string::npos);
  EXPECT_NE(load_error(head + R"("d2d_gb_per_s": 1e308})").find("at most 1e9"), std::string::npos);
  // Unknown keys are refused at every level, not only the top one.
  EXPECT_NE(load_error(head + R"("matmul_tflops": {"tpu": {"fp32": 3}}})")
                .find("unknown key 'matmul_tflops.tpu', expected one of cpu,cuda"),
            std::string::npos);
  EXPECT_NE(load_error(head + R"("allreduce_busbw_gb_per_s": {"mpi": 3}})").find("expected one of gloo,nccl"),
            std::string::npos);
  EXPECT_NE(load_error(head + R"("loader_samples_per_s": {"mlp": {"two workers": 3}}})")
                .find("unknown key 'loader_samples_per_s.mlp.two workers'"),
            std::string::npos);
  // A context is copied into every report rewrite: bounded, as the file is.
  EXPECT_NE(load_error(head + R"("context": {"padding": ")" + std::string(70000, 'x') + R"("}})")
                .find("bytes, expected at most 65536 (Google Benchmark's run context)"),
            std::string::npos);
  EXPECT_NE(load_error(head + R"("context": {"padding": ")" + std::string(2 << 20, 'x') + R"("}})")
                .find("bytes, expected at most 1048576"),
            std::string::npos);
  EXPECT_NE(load_error(head + R"("matmul_tflops": {"cpu": 3}})").find("'matmul_tflops.cpu' is 3, expected an object"),
            std::string::npos);
  EXPECT_NE(load_error(head + R"("matmul_tflops": {"cpu": {"fp32": null}}})").find("matmul_tflops.cpu.fp32"),
            std::string::npos);
  EXPECT_NE(load_error(head + R"("skipped": {"d2d_gb_per_s": 1}})").find("expected a string"), std::string::npos);
}

}  // namespace
}  // namespace gpubench
