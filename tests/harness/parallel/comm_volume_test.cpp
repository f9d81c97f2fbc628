#include "harness/parallel/comm_volume.h"

#include <gtest/gtest.h>

namespace gpubench {
namespace {

TEST(CommVolume, TheModesMoveWhatTheZeroPaperSays) {
  const double p = 1000;  // parameter bytes
  EXPECT_DOUBLE_EQ(theory_bus_bytes(Config::parse("mlp/cpu/fp32/ddp-4"), p), 2 * 0.75 * p);
  EXPECT_DOUBLE_EQ(theory_bus_bytes(Config::parse("mlp/cpu/fp32/zero1-4"), p), 2 * 0.75 * p);
  EXPECT_DOUBLE_EQ(theory_bus_bytes(Config::parse("mlp/cpu/fp32/zero2-4"), p), 2 * 0.75 * p);
  EXPECT_DOUBLE_EQ(theory_bus_bytes(Config::parse("mlp/cpu/fp32/fsdp-4"), p), 3 * 0.75 * p);  // 1.5x DDP
  EXPECT_DOUBLE_EQ(theory_bus_bytes(Config::parse("mlp/cpu/fp32/zero2-4/acc3"), p), 4 * 0.75 * p);
  EXPECT_DOUBLE_EQ(theory_bus_bytes(Config::parse("mlp/cpu/fp32/fsdp-4/acc3"), p), 9 * 0.75 * p);
  // What fsdp keeps gathered from forward to backward (the root and last units) is gathered once.
  EXPECT_DOUBLE_EQ(theory_bus_bytes(Config::parse("mlp/cpu/fp32/fsdp-4"), p, 300), (3 * p - 300) * 0.75);
  EXPECT_DOUBLE_EQ(theory_bus_bytes(Config::parse("mlp/cpu/fp32/fsdp-1"), p), 0);
  EXPECT_DOUBLE_EQ(theory_bus_bytes(Config::parse("mlp/cpu/fp32"), p), 0);
}

TEST(CommVolume, MeasuredBusBytesAreNcclTestsConvention) {
  const nlohmann::json per_kind = {{"all_gather", {{"count", 2}, {"bytes", 2000}}}, {"reduce_scatter", {{"count", 1}, {"bytes", 1000}}}};
  const auto volume = comm_volume_json(per_kind, Config::parse("mlp/cpu/fp32/fsdp-2"), 1000);
  EXPECT_DOUBLE_EQ(volume["per_kind"]["all_gather"]["bus_bytes"].get<double>(), 1000);
  EXPECT_DOUBLE_EQ(volume["bus_bytes"].get<double>(), 1500);
  EXPECT_DOUBLE_EQ(volume["measured_over_theory"].get<double>(), 1.0);
  EXPECT_TRUE(comm_volume_json(per_kind, Config::parse("mlp/cpu/fp32/fsdp-1"), 1000)["measured_over_theory"].is_null());
}

}  // namespace
}  // namespace gpubench
