// The matrix's terminal lines (issue 59, item 2): a machine without a GPU skips most of
// `--matrix all`, and each skipped config printed a line of its own holding LibTorch's whole
// driver message (112 of them), burying the rows that ran.
#include "cli/progress_lines.h"

#include <gtest/gtest.h>

namespace gpubench {
namespace {

const std::string kNoGpu =
    "no CUDA device: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a "
    "driver from http://www.nvidia.com/Download/index.aspx";

nlohmann::json skipped(const std::string& id, const std::string& reason) {
  return {{"config_id", id}, {"status", "skipped"}, {"reason", reason}};
}

TEST(ProgressLines, SkippedConfigsSharingAReasonAreSaidOnce) {
  ProgressLines lines(0);
  std::size_t printed = 0;
  for (int i = 0; i < 112; ++i) printed += lines.row(i, 120, skipped("cnn/cuda/fp32/x" + std::to_string(i), kNoGpu)) ? 1 : 0;
  printed += lines.row(112, 120, skipped("llama/cpu/fp32", "left out of every CPU group")) ? 1 : 0;
  const nlohmann::json ok = {{"config_id", "mlp/cpu/fp32"},
                             {"status", "ok"},
                             {"throughput", {{"samples_per_s", {{"median", 16037.0}}}}},
                             {"child_wall_s", 3.2}};
  const auto ran = lines.row(113, 120, ok);
  ASSERT_TRUE(ran);
  EXPECT_NE(ran->find("[114/120] mlp/cpu/fp32"), std::string::npos) << *ran;
  EXPECT_NE(ran->find("samples/s"), std::string::npos) << *ran;
  EXPECT_EQ(printed, 0u) << "no line per skipped config";
  const auto summary = lines.summary();
  ASSERT_EQ(summary.size(), 2u);
  EXPECT_EQ(summary[0], "112 configs skipped (e.g. cnn/cuda/fp32/x0): " + kNoGpu) << "the most common first";
  EXPECT_EQ(summary[1], "1 config skipped: llama/cpu/fp32: left out of every CPU group");
}

// A reason that names its own config ("... or name llama/cpu/bf16") is one reason for all.
TEST(ProgressLines, ReasonsThatNameTheirOwnConfigGroupTogether) {
  ProgressLines lines(0);
  for (const std::string id : {"llama/cpu/bf16", "llama/cpu/fp32/ddp-2", "llama/cpu/fp32/ckpt"})
    lines.row(0, 3, skipped(id, "left out of CPU groups; ask with --workload llama or name " + id));
  ASSERT_EQ(lines.summary().size(), 1u) << lines.summary()[0];
  EXPECT_EQ(lines.summary()[0],
            "3 configs skipped (e.g. llama/cpu/bf16): left out of CPU groups; ask with --workload llama or name llama/cpu/bf16");
}

TEST(ProgressLines, LinesFitTheWidthAndStayOneLine) {
  ProgressLines lines(60);
  const nlohmann::json failed = {{"config_id", "gpt2/cpu/fp32"}, {"status", "failed"}, {"reason", "out of memory\nResult: forged é"}};
  const auto line = lines.row(0, 1, failed);
  ASSERT_TRUE(line);
  EXPECT_EQ(line->size(), 60u) << *line;
  EXPECT_EQ(line->substr(57), "...");
  EXPECT_EQ(line->find('\n'), std::string::npos) << "a reason's newline is shown, not printed";
  lines.row(1, 2, skipped("x/cuda/fp32", kNoGpu));
  ASSERT_EQ(lines.summary().size(), 1u);
  EXPECT_EQ(lines.summary()[0].size(), 60u);
  // A cut never splits a UTF-8 character.
  ProgressLines narrow(60);  // 49 ASCII columns before the reason
  const auto utf8 = narrow.row(0, 1, {{"config_id", "m"}, {"status", "failed"}, {"reason", std::string(40, 'x') + "é"}});
  ASSERT_TRUE(utf8);
  EXPECT_EQ(utf8->substr(utf8->size() - 3), "...");
  const auto wide = narrow.row(0, 1, {{"config_id", "m"}, {"status", "failed"}, {"reason", "ééééééééééééééééééééééééééééé"}});
  ASSERT_TRUE(wide);
  EXPECT_EQ(wide->substr(wide->size() - 3), "...");
  EXPECT_NE(static_cast<unsigned char>((*wide)[wide->size() - 4]), 0xC3) << "not the first byte of é alone";
}

}  // namespace
}  // namespace gpubench
