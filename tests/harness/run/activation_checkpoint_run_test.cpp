// The ckpt variant through the whole config (issue 29): gpt2 on the CPU trains the same as
// its plain row, in fp32 to 1e-5 relative, with the same seed and data; the cnn in bf16.
#include <gtest/gtest.h>

#include <cmath>

#include "support/quick_row.h"

namespace gpubench {
namespace {

// The ckpt row's checkpoint round trip is checked; the plain row's would only cost time.
nlohmann::json run_gpt2(const std::string& id, bool round_trip) { return run_quick_row(id, {2, 0, 0, round_trip}); }

TEST(ActivationCheckpointRun, Gpt2TrainsAsItsPlainRowOnTheCpu) {
  const nlohmann::json plain = run_gpt2("gpt2/cpu/fp32", /*round_trip=*/false);
  const nlohmann::json ckpt = run_gpt2("gpt2/cpu/fp32/ckpt", /*round_trip=*/true);
  EXPECT_EQ(ckpt["config"]["techniques"], nlohmann::json::array({"ckpt"}));
  const auto& a = plain["loss"]["curve"];
  const auto& b = ckpt["loss"]["curve"];
  ASSERT_EQ(a.size(), b.size());
  ASSERT_GE(a.size(), 2u);
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_NEAR(b[i].get<double>(), a[i].get<double>(), 1e-5 * std::abs(a[i].get<double>())) << "step " << i;
  EXPECT_EQ(ckpt["checkpoint"]["parameters_equal"], true) << ckpt["checkpoint"].dump();
}

// The same under CPU bf16 autocast (issue 47, finding 6), where the recompute's casts of the
// weights stayed cached and the next step's forward trained on weights from before the
// update: the cnn's ckpt row trains as its plain row.
TEST(ActivationCheckpointRun, CnnUnderBf16TrainsAsItsPlainRowOnTheCpu) {
  const nlohmann::json plain = run_quick_row("cnn/cpu/bf16", {/*steps=*/4});
  const nlohmann::json ckpt = run_quick_row("cnn/cpu/bf16/ckpt", {/*steps=*/4});
  const auto& a = plain["loss"]["curve"];
  const auto& b = ckpt["loss"]["curve"];
  ASSERT_EQ(a.size(), b.size());
  ASSERT_GE(a.size(), 3u);
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_NEAR(b[i].get<double>(), a[i].get<double>(), 1e-4 * std::abs(a[i].get<double>())) << "step " << i;
}

}  // namespace
}  // namespace gpubench
