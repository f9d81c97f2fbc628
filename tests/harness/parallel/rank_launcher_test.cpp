// A peer's outcome read back from the rendezvous store, which other local users can reach:
// a value that is not what ranks write is that rank's failure with a reason, never a crash
// that loses the report and the matrix's remaining configs (issue 61, item 2).
#include "harness/parallel/rank_launcher.h"

#include <gtest/gtest.h>

namespace gpubench {
namespace {

TEST(RankLauncher, AMalformedOutcomeInTheStoreIsThatRanksFailureNotACrash) {
  const RankReport good = parsed_rank_report(R"({"ok": true, "reason": "", "peak_rss_bytes": 5, "wall_s": 1.5})");
  EXPECT_TRUE(good.ok);
  EXPECT_EQ(good.peak_rss_bytes, 5u);
  for (const std::string value : {"not-json{", "[1,2]", "\"ok\"", R"({"ok": "yes"})", R"({"ok": true, "wall_s": "x"})",
                                  R"({"ok": true, "peak_rss_bytes": -1})"}) {
    RankReport report;
    ASSERT_NO_THROW(report = parsed_rank_report(value)) << value;
    EXPECT_FALSE(report.ok) << value;
    EXPECT_NE(report.reason.find("is not what a rank writes"), std::string::npos) << value << ": " << report.reason;
    EXPECT_EQ(report.reason.find("not-json"), std::string::npos) << "the value itself is never quoted";
  }
}

}  // namespace
}  // namespace gpubench
