#include "reports/ceiling_shares.h"

#include <gtest/gtest.h>

namespace gpubench {
namespace {

TEST(CeilingShares, RowsAreSharesOfTheMeasuredCeilings) {
  const nlohmann::json ceilings = {{"train_step_samples_per_s", {{"cpu", {{"mlp", 800.0}}}}},
                                   {"h2d_pinned_gb_per_s", 50.0}};
  nlohmann::json results = nlohmann::json::array();
  results.push_back({{"status", "ok"},
                     {"config", {{"device", "cpu"}, {"workload", "mlp"}, {"host_memory", "pageable"}}},
                     {"throughput", {{"samples_per_s", {{"median", 600.0}}}}}});
  results.push_back({{"status", "ok"},
                     {"config", {{"device", "cuda"}, {"workload", "cnn"}, {"host_memory", "pinned"}}},
                     {"throughput", {{"samples_per_s", {{"median", 9000.0}}}}},
                     {"h2d", {{"gb_per_s", 40.0}}}});
  results.push_back({{"status", "skipped"}, {"config", {{"device", "cuda"}, {"workload", "mlp"}}}});
  apply_ceilings(results, ceilings);
  EXPECT_DOUBLE_EQ(results[0]["vs_ceilings"]["train_step_share"].get<double>(), 0.75);
  EXPECT_FALSE(results[0]["vs_ceilings"].contains("h2d_share"));
  EXPECT_DOUBLE_EQ(results[1]["vs_ceilings"]["h2d_share"].get<double>(), 0.8);
  EXPECT_FALSE(results[1]["vs_ceilings"].contains("train_step_share")) << "no cuda cnn step ceiling";
  EXPECT_FALSE(results[2].contains("vs_ceilings"));
}

}  // namespace
}  // namespace gpubench
