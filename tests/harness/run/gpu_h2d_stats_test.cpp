#include <gtest/gtest.h>

#include "harness/run/pinned_batch_source.h"

// H2dCopyStats needs no GPU (the sources that feed it do): built and run everywhere.
namespace gpubench {
namespace {

TEST(H2dCopyStats, KnowsWhichStepsAreMeasured) {
  H2dCopyStats stats("pinned");
  EXPECT_FALSE(stats.measuring());
  stats.step_begin(0, false);
  EXPECT_FALSE(stats.measuring());
  stats.step_begin(1, true);
  EXPECT_TRUE(stats.measuring());
}

TEST(H2dCopyStats, RunEndDrainsTheSourcesLastCopiesOnce) {
  H2dCopyStats stats("pinned");
  int drains = 0;
  stats.set_drain([&] {
    ++drains;
    stats.record(1'000, 0.1, true);
  });
  stats.run_end();
  EXPECT_EQ(drains, 1);
  EXPECT_EQ(stats.copies(), 1u);
  stats.set_drain(nullptr);  // the source is gone: nothing to drain
  stats.run_end();
  EXPECT_EQ(drains, 1);
}

TEST(H2dCopyStats, SummarisesMeasuredCopiesOnly) {
  H2dCopyStats stats("pageable: blocking copy");
  stats.record(4'000'000, 100.0, /*measured=*/false);  // warm-up: first copy is slow
  stats.record(1'000'000, 0.4, true);
  stats.record(1'000'000, 0.5, true);
  stats.record(1'000'000, 0.6, true);
  EXPECT_EQ(stats.copies(), 3u);
  nlohmann::json result;
  stats.write_result(result);
  const auto& h2d = result.at("h2d");
  EXPECT_EQ(h2d.at("mode").get<std::string>(), "pageable: blocking copy");
  EXPECT_EQ(h2d.at("copies").get<int>(), 3);
  EXPECT_EQ(h2d.at("warmup_copies").get<int>(), 1);
  EXPECT_EQ(h2d.at("bytes_per_step").get<std::uint64_t>(), 1'000'000u);
  EXPECT_DOUBLE_EQ(h2d.at("median_ms").get<double>(), 0.5);
  EXPECT_GT(h2d.at("p90_ms").get<double>(), h2d.at("p10_ms").get<double>());
  // 1 MB in 0.5 ms is 2 GB/s.
  EXPECT_DOUBLE_EQ(h2d.at("gb_per_s").get<double>(), 2.0);
  EXPECT_EQ(h2d.at("copy_ms").at("count").get<int>(), 3);
}

TEST(H2dCopyStats, SaysSoWhenNothingWasMeasured) {
  H2dCopyStats stats("pinned");
  nlohmann::json result;
  stats.write_result(result);
  EXPECT_EQ(result.at("h2d").at("copies").get<int>(), 0);
  EXPECT_FALSE(result.at("h2d").contains("gb_per_s"));
}

}  // namespace
}  // namespace gpubench
