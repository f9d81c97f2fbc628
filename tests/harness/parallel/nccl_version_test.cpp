#include "harness/parallel/nccl_version.h"

#include <gtest/gtest.h>

namespace gpubench {
namespace {

TEST(NcclVersion, DecodesBothEncodings) {
  const NcclVersion current = decode_nccl_version(22803);  // NCCL_VERSION(2, 28, 3)
  EXPECT_EQ(current.major, 2);
  EXPECT_EQ(current.minor, 28);
  EXPECT_EQ(current.patch, 3);
  EXPECT_EQ(current.to_string(), "2.28.3");
  EXPECT_EQ(decode_nccl_version(2804).to_string(), "2.8.4");  // before 2.9: major*1000
  EXPECT_EQ(decode_nccl_version(20900).to_string(), "2.9.0");
  EXPECT_EQ(decode_nccl_version(30001).to_string(), "3.0.1");
}

TEST(NcclVersion, PatchDifferencesPass) {
  EXPECT_FALSE(nccl_header_mismatch(22803, 22809).has_value());
  EXPECT_FALSE(nccl_header_mismatch(22803, 22803).has_value());
}

TEST(NcclVersion, UnknownLoadedVersionPasses) { EXPECT_FALSE(nccl_header_mismatch(22803, std::nullopt).has_value()); }

TEST(NcclVersion, MinorOrMajorDifferenceIsRefusedWithBothVersionsAndTheFix) {
  const auto minor = nccl_header_mismatch(22803, 22703);
  ASSERT_TRUE(minor.has_value());
  EXPECT_NE(minor->find("nccl.h of NCCL 2.28.3"), std::string::npos) << *minor;
  EXPECT_NE(minor->find("LibTorch loaded NCCL 2.27.3"), std::string::npos) << *minor;
  EXPECT_NE(minor->find("GPUBENCH_NCCL_INCLUDE_DIR"), std::string::npos) << *minor;
  EXPECT_TRUE(nccl_header_mismatch(22803, 30003).has_value());
  EXPECT_TRUE(nccl_header_mismatch(2804, 20900).has_value());
}

}  // namespace
}  // namespace gpubench
