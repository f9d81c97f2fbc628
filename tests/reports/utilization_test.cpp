#include "reports/utilization.h"

#include <gtest/gtest.h>

#include "reports/verdicts.h"

namespace gpubench {
namespace {

nlohmann::json ok_row(const std::string& device, const std::string& precision, const std::string& parallel,
                      int world_size, double tflops) {
  return {{"config_id", "mlp/" + device + "/" + precision},
          {"status", "ok"},
          {"config", {{"workload", "mlp"}, {"device", device}, {"precision", precision}, {"parallel", parallel},
                      {"world_size", world_size}, {"host_memory", "pinned"}}},
          {"throughput", {{"samples_per_s", {{"median", 1000.0}}}, {"tflops_per_s", {{"median", tflops}}}}}};
}

const nlohmann::json kCpuCeilings = {{"format", "gpubench-ceilings"},
                                     {"format_version", 1},
                                     {"matmul_tflops", {{"cpu", {{"fp32", 0.2}, {"bf16", 0.001}}}, {"cuda", {{"bf16", 700.0}}}}}};
const nlohmann::json kH200Env = {{"cuda", {{"devices", {{{"name", "NVIDIA H200"}}}}}}};

TEST(Utilization, CpuRowsAreHeldAgainstTheMeasuredMatmulCeilingOfTheirPrecision) {
  nlohmann::json results = {ok_row("cpu", "fp32", "single", 1, 0.15), ok_row("cpu", "bf16", "single", 1, 0.004)};
  apply_utilization(results, nlohmann::json::object(), kCpuCeilings);
  const auto& fp32 = results[0]["utilization"];
  EXPECT_DOUBLE_EQ(fp32["tflops_per_s"].get<double>(), 0.15);
  EXPECT_EQ(fp32["peak_precision"], "fp32");
  EXPECT_DOUBLE_EQ(fp32["mfu_vs_measured"].get<double>(), 0.75);
  EXPECT_FALSE(fp32.contains("mfu_vs_vendor")) << "no datasheet peak for a CPU";
  const auto& bf16 = results[1]["utilization"];
  EXPECT_DOUBLE_EQ(bf16["mfu_vs_measured"].get<double>(), 4.0);
  EXPECT_NE(bf16["notes"][0].get<std::string>().find("above the measured peak"), std::string::npos) << bf16.dump();
}

TEST(Utilization, GpuRowsGetBothSharesScaledByTheirDevices) {
  nlohmann::json results = {ok_row("cuda", "amp-bf16", "ddp", 2, 350.0)};
  apply_utilization(results, kH200Env, kCpuCeilings);
  const auto& u = results[0]["utilization"];
  EXPECT_EQ(u["peak_precision"], "bf16");
  EXPECT_EQ(u["devices"], 2);
  EXPECT_DOUBLE_EQ(u["measured_peak_tflops"].get<double>(), 1400.0);
  EXPECT_DOUBLE_EQ(u["mfu_vs_measured"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(u["vendor_peak_tflops"].get<double>(), 2 * 989.5);
  EXPECT_NEAR(u["mfu_vs_vendor"].get<double>(), 350.0 / 1979.0, 1e-12);
  EXPECT_NE(u["vendor_peak_source"].get<std::string>().find("H200"), std::string::npos);
}

// fp8 rows against the FP8 peak, saying that only part of their matmuls can reach it.
TEST(Utilization, Fp8RowsAgainstTheFp8PeakWithTheirBf16ShareSaid) {
  nlohmann::json results = {ok_row("cuda", "fp8", "single", 1, 400.0)};
  apply_utilization(results, kH200Env, kCpuCeilings);
  const auto& u = results[0]["utilization"];
  EXPECT_EQ(u["peak_precision"], "fp8");
  EXPECT_DOUBLE_EQ(u["vendor_peak_tflops"].get<double>(), 1979);
  EXPECT_NEAR(u["mfu_vs_vendor"].get<double>(), 400.0 / 1979.0, 1e-12);
  const std::string notes = u["notes"].dump();
  EXPECT_NE(notes.find("matmul_tflops.cuda.fp8 not in the ceilings file"), std::string::npos) << notes;
  EXPECT_NE(notes.find("only the blocks' Linear matmuls run in FP8"), std::string::npos) << notes;
}

TEST(Utilization, MissingPeaksAreSaidAndOldRowsLeftAlone) {
  nlohmann::json results = {ok_row("cuda", "amp-fp16", "single", 1, 10.0), ok_row("cpu", "fp32", "single", 1, 0.1)};
  results[1]["throughput"].erase("tflops_per_s");  // a report from before FLOPs
  apply_utilization(results, {{"cuda", {{"devices", {{{"name", "Tesla T4"}}}}}}}, nullptr);
  const auto& notes = results[0]["utilization"]["notes"];
  ASSERT_EQ(notes.size(), 2u) << notes.dump();
  EXPECT_EQ(notes[0], "no --ceilings file: no measured peak");
  EXPECT_EQ(notes[1], "no datasheet peak known for 'Tesla T4' fp16");
  EXPECT_FALSE(results[1].contains("utilization"));
}

TEST(Utilization, TheVerdictSaysHowFarFromThePeak) {
  nlohmann::json results = {ok_row("cpu", "fp32", "single", 1, 0.018)};
  results[0]["phases"] = {{"forward", {{"share", 0.4}}}, {"backward", {{"share", 0.5}}}};
  apply_utilization(results, nlohmann::json::object(), kCpuCeilings);
  const auto v = bottleneck_verdict(results[0]);
  EXPECT_EQ(v["kind"], "compute-bound");
  EXPECT_EQ(v["text"], "compute-bound at 9.0% MFU (measured fp32 peak): forward + backward take 90% of each step on the CPU");
  EXPECT_DOUBLE_EQ(v["mfu"].get<double>(), 0.09);
}

}  // namespace
}  // namespace gpubench
