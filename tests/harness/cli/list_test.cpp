#include <gtest/gtest.h>

#include "support/run_command.h"

namespace gpubench {
namespace {

TEST(List, ShowsEveryConfigAndWhetherItRunsHereWithoutRunning) {
  const auto result = test_support::run_command(std::string(GPUBENCH_EXE) + " --matrix all --list");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  for (const std::string id : {"mlp/cpu/fp32", "cnn/cpu/bf16", "transformer/cuda/amp-fp16/pinned",
                               "cnn/cuda/fp32/pageable", "mlp/cuda/fp32/pinned/dp"})
    EXPECT_NE(result.output.find(id), std::string::npos) << id;
  EXPECT_NE(result.output.find("runs here"), std::string::npos);
#if !GPUBENCH_TORCH_CUDA
  // This machine class (CI) has no GPU: the reason is the CUDA runtime's own words.
  EXPECT_NE(result.output.find("skip: no CUDA device"), std::string::npos) << result.output;
#endif
}

}  // namespace
}  // namespace gpubench
