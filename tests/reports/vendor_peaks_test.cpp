#include "reports/vendor_peaks.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace gpubench {
namespace {

TEST(VendorPeaks, KnownGpusByTheNameCudaReportsDensePeaksWithTheirSource) {
  const auto h200 = vendor_peak("NVIDIA H200", "bf16");
  ASSERT_TRUE(h200.has_value());
  EXPECT_DOUBLE_EQ(h200->tflops, 989.5);
  EXPECT_NE(h200->source.find("H200 SXM datasheet"), std::string::npos);
  EXPECT_DOUBLE_EQ(vendor_peak("NVIDIA H200", "fp32")->tflops, 67);
  EXPECT_DOUBLE_EQ(vendor_peak("NVIDIA H200 NVL", "fp16")->tflops, 835.5) << "the variant before its family";
  EXPECT_DOUBLE_EQ(vendor_peak("NVIDIA H100 80GB HBM3", "tf32")->tflops, 494.5);
  EXPECT_DOUBLE_EQ(vendor_peak("NVIDIA H100 PCIe", "bf16")->tflops, 756);
  EXPECT_DOUBLE_EQ(vendor_peak("NVIDIA A100-SXM4-80GB", "bf16")->tflops, 312);
  EXPECT_DOUBLE_EQ(vendor_peak("NVIDIA L4", "fp16")->tflops, 121);
  EXPECT_DOUBLE_EQ(vendor_peak("NVIDIA GeForce RTX 4090", "bf16")->tflops, 165.2);
  EXPECT_DOUBLE_EQ(vendor_peak("NVIDIA H200", "fp8")->tflops, 1979) << "twice bf16's";
  EXPECT_DOUBLE_EQ(vendor_peak("NVIDIA H100 PCIe", "fp8")->tflops, 1513);
  EXPECT_DOUBLE_EQ(vendor_peak("NVIDIA L4", "fp8")->tflops, 242.5);
}

// The name the lent H100 reports (nvidia-smi and CUDA alike) carries no "SXM": it must reach
// the SXM row through the H100* family, not the PCIe or NVL variants with their lower peaks.
TEST(VendorPeaks, TheLentH100sNameSelectsTheSxmRow) {
  const std::string lent = "NVIDIA H100 80GB HBM3";
  const std::vector<std::pair<std::string, double>> sxm = {
      {"fp32", 67}, {"tf32", 494.5}, {"fp16", 989.5}, {"bf16", 989.5}, {"fp8", 1979}};
  for (const auto& [precision, tflops] : sxm) {
    const auto peak = vendor_peak(lent, precision);
    ASSERT_TRUE(peak.has_value()) << precision;
    EXPECT_DOUBLE_EQ(peak->tflops, tflops) << precision;
    EXPECT_NE(peak->source.find("H100 SXM datasheet"), std::string::npos) << precision << ": " << peak->source;
  }
  EXPECT_NE(vendor_peak("NVIDIA H100 PCIe", "bf16")->source.find("PCIe"), std::string::npos);
  EXPECT_NE(vendor_peak("NVIDIA H100 NVL", "bf16")->source.find("NVL"), std::string::npos);
}

TEST(VendorPeaks, UnknownGpusAndPrecisionsHaveNone) {
  EXPECT_FALSE(vendor_peak("NVIDIA L40S", "bf16").has_value()) << "L4 is matched exactly, not as a prefix";
  EXPECT_FALSE(vendor_peak("Tesla T4", "fp16").has_value());
  EXPECT_FALSE(vendor_peak("NVIDIA H200", "int8").has_value());
  EXPECT_FALSE(vendor_peak("NVIDIA A100-SXM4-80GB", "fp8").has_value()) << "Ampere has no FP8 tensor cores";
  EXPECT_FALSE(vendor_peak("", "fp32").has_value());
}

}  // namespace
}  // namespace gpubench
