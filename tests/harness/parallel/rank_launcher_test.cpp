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

// Issue 61, item 1: an outcome the launcher's store holds is a peer's only when it carries
// the run's seal: a well-formed "failed" outcome written by anyone else fails the config as
// unauthenticated, its own reason never shown.
TEST(RankLauncher, AnOutcomeWithoutTheRunsSealIsThatRanksAuthenticationFailure) {
  const StoreSeal seal(std::string("the-run-secret-0123456789"));
  const std::string key = "gpubench/attempt0/config0/report/1";
  const std::string outcome = R"({"ok": true, "reason": "", "peak_rss_bytes": 5, "wall_s": 1.5})";
  EXPECT_TRUE(opened_rank_report(seal, key, 1, seal.seal(key, outcome)).ok);
  const RankReport forged = opened_rank_report(seal, key, 1, R"({"ok": false, "reason": "FORGED: out of memory"})");
  EXPECT_FALSE(forged.ok);
  EXPECT_EQ(forged.reason.rfind("rank 1's report failed authentication: it carries no HMAC", 0), 0u) << forged.reason;
  EXPECT_EQ(forged.reason.find("FORGED"), std::string::npos) << forged.reason;
}

}  // namespace
}  // namespace gpubench
