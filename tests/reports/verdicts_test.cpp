#include "reports/verdicts.h"

#include <algorithm>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace gpubench {
namespace {

// A synthetic ok row with the given phase shares (data, h2d, forward, backward, optimizer).
nlohmann::json row(const std::string& id, double data, double h2d, double forward, double backward, double optimizer) {
  const auto slash = id.find('/');
  const std::string device = id.substr(slash + 1, id.find('/', slash + 1) - slash - 1);
  nlohmann::json r = {{"config_id", id}, {"status", "ok"},
                      {"config", {{"workload", id.substr(0, slash)}, {"device", device}, {"precision", "fp32"},
                                  {"host_memory", "pageable"}, {"parallel", "single"}}}};
  r["phases"] = {{"data", {{"share", data}}}, {"h2d", {{"share", h2d}}}, {"forward", {{"share", forward}}},
                 {"backward", {{"share", backward}}}, {"optimizer", {{"share", optimizer}}}};
  r["workload"] = {{"workers", 0}};
  r["step_ms"] = {{"cv", 0.02}};
  r["loss"] = {{"fell", true}, {"first_quarter_mean", 2.3}, {"last_quarter_mean", 1.0},
               {"curve", {2.3, 2.2, 2.0, 1.9, 1.7, 1.5, 1.4, 1.2, 1.1, 1.0}}};
  r["steps"] = {{"warmup", 2}, {"measured", 18}};
  return r;
}

TEST(Verdict, InputBoundNamesTheShareAndWorkers) {
  const auto v = bottleneck_verdict(row("mlp/cpu/fp32", 0.38, 0, 0.3, 0.2, 0.1));
  EXPECT_EQ(v["kind"], "input-bound");
  EXPECT_EQ(v["evidence"], "38% of each step waits for the DataLoader (workers=0)");
  EXPECT_EQ(v["suggestion"], "try --workers 2");
}

TEST(Verdict, H2dBoundQuotesBandwidthAndSuggestsPinned) {
  auto r = row("cnn/cuda/fp32/pageable", 0.05, 0.30, 0.3, 0.3, 0.05);
  r["h2d"] = {{"gb_per_s", 9.0}};
  const auto v = bottleneck_verdict(r);
  EXPECT_EQ(v["kind"], "h2d-bound");
  EXPECT_EQ(v["evidence"], "30% of each step copies batches to the GPU from pageable memory at 9.0 GB/s");
  EXPECT_NE(v["suggestion"].get<std::string>().find("pinned"), std::string::npos);
}

TEST(Verdict, LaunchBoundAndComputeBoundFromCupti) {
  auto r = row("mlp/cuda/fp32/pinned", 0.02, 0.02, 0.4, 0.4, 0.1);
  r["cupti"] = {{"status", "ok"}, {"gpu_busy_share_overall", 0.41}, {"kernels_per_step", {{"median", 1900}}}};
  EXPECT_EQ(bottleneck_verdict(r)["text"], "launch-bound: GPU busy 41%, 1900 kernels per step");
  r["cupti"]["gpu_busy_share_overall"] = 0.93;
  EXPECT_EQ(bottleneck_verdict(r)["text"], "compute-bound: GPU busy 93%");
}

TEST(Verdict, CommBoundOptimizerBoundCpuComputeAndBalanced) {
  auto ddp = row("mlp/cpu/fp32/ddp-2", 0.01, 0, 0.3, 0.3, 0.05);
  ddp["ddp"] = {{"exposed_comm_share", 0.4}};
  EXPECT_EQ(bottleneck_verdict(ddp)["kind"], "comm-bound");
  // The sharded modes on NCCL wait on the stream only: their exposed share is unknown.
  auto unknown = ddp;
  unknown["ddp"]["exposed_comm_share"] = nullptr;
  EXPECT_NE(bottleneck_verdict(unknown)["kind"], "comm-bound");
  EXPECT_EQ(bottleneck_verdict(row("mlp/cpu/fp32", 0.01, 0, 0.2, 0.3, 0.45))["kind"], "optimizer-bound");
  EXPECT_EQ(bottleneck_verdict(row("cnn/cpu/fp32", 0.01, 0, 0.36, 0.62, 0.01))["text"],
            "compute-bound: forward + backward take 98% of each step on the CPU");
  EXPECT_EQ(bottleneck_verdict(row("mlp/cpu/fp32", 0.1, 0, 0.3, 0.3, 0.2))["kind"], "balanced");
}

// A row measured while other processes took the CPU (its "interference" object, as the
// host probe writes it): never called compute-bound, its warning in the row's warnings.
TEST(Verdict, ADisturbedRowIsNotComputeBoundAndWarns) {
  auto r = row("cnn/cpu/fp32", 0.01, 0, 0.36, 0.62, 0.01);
  const std::string warning = "other processes took 61% of the machine's CPU during the measured steps (over 25%)";
  r["interference"] = {{"other_cpu_share", 0.61}, {"steal_share", 0.0}, {"judged", true}, {"disturbed", true},
                       {"warning", warning}};
  const auto v = bottleneck_verdict(r);
  EXPECT_EQ(v["kind"], "disturbed");
  EXPECT_EQ(v["evidence"], "other processes took 61% of the machine's CPU during the steps (steal 0%); its phases alone "
                           "read compute-bound: forward + backward take 98% of each step on the CPU");
  const auto w = row_warnings(r);
  EXPECT_NE(std::find(w.begin(), w.end(), warning), w.end()) << w.dump();
  // The same figures under the thresholds: the phases decide, and nothing is said.
  r["interference"]["other_cpu_share"] = 0.05;
  r["interference"]["disturbed"] = false;
  r["interference"]["warning"] = nullptr;
  EXPECT_EQ(bottleneck_verdict(r)["kind"], "compute-bound");
  EXPECT_TRUE(row_warnings(r).empty()) << row_warnings(r).dump();
}

TEST(Warnings, PitfallsOfOneRow) {
  auto r = row("mlp/cuda/amp-fp16/pinned", 0, 0, 0.5, 0.4, 0.1);
  EXPECT_TRUE(row_warnings(r).empty());
  r["loss"]["fell"] = false;
  r["placement"] = {{"parameters_on_device", false}, {"batch_on_device", true}};
  r["grad_scaler"] = {{"skipped_steps", 4}};
  r["step_ms"]["cv"] = 0.25;
  const auto w = row_warnings(r);
  ASSERT_EQ(w.size(), 4u) << w.dump();
  EXPECT_NE(w[0].get<std::string>().find("loss did not fall"), std::string::npos);
  EXPECT_NE(w[1].get<std::string>().find("parameters are not on the configured device"), std::string::npos);
  EXPECT_EQ(w[2], "GradScaler skipped 20% of optimizer steps (inf/NaN gradients)");
  EXPECT_NE(w[3].get<std::string>().find("CV 25%"), std::string::npos);

  auto dp = row("mlp/cuda/fp32/pinned/dp", 0, 0, 0.5, 0.4, 0.1);
  dp["config"]["parallel"] = "dp";
  dp["parallel"] = {{"devices", 1}};
  EXPECT_NE(row_warnings(dp)[0].get<std::string>().find("DataParallel on one device"), std::string::npos);
}

// The row's one warning ("" and a test failure when there is not exactly one).
std::string only_warning(const nlohmann::json& r) {
  const auto w = row_warnings(r);
  EXPECT_EQ(w.size(), 1u) << w.dump();
  return w.size() == 1 ? w[0].get<std::string>() : "";
}

TEST(Warnings, ASlowStepStopSaysMinStepsWasNotReached) {
  auto r = row("transformer/cpu/bf16", 0, 0, 0.5, 0.4, 0.1);
  r["steps"] = {{"warmup", 1}, {"measured", 1}};
  r["step_ms"] = {{"cv", 0.0}, {"max", 31200.0}};
  r["stopping"] = {{"reason", "slow_step"}, {"budget_s", 8.0}, {"min_steps", 3}};
  EXPECT_EQ(only_warning(r), "one step (31.2 s) outlasts the whole 8 s budget: stopped after 1 measured step(s), below the "
                  "preset's minimum of 3; the median's spread is unknown");
}

TEST(Warnings, HostRssStillGrowingThroughTheMeasuredStepsIsNamed) {
  auto r = row("transformer/cpu/fp32", 0, 0, 0.5, 0.4, 0.1);
  constexpr double kMiB = 1 << 20;
  nlohmann::json rss = nlohmann::json::array(), measured = nlohmann::json::array();
  for (int i = 0; i < 12; ++i) {
    rss.push_back((1500 + (i < 2 ? -300 : 10 * i)) * kMiB);  // warm-up lower, then a settled +7%
    measured.push_back(i >= 2);
  }
  r["memory"] = {{"rss_bytes_per_step", rss}, {"measured_per_sample", measured}};
  EXPECT_TRUE(row_warnings(r).empty()) << row_warnings(r).dump();
  for (int i = 2; i < 12; ++i) rss[i] = (1500 + 60 * i) * kMiB;  // 60 MiB more every step
  r["memory"]["rss_bytes_per_step"] = rss;
  EXPECT_EQ(only_warning(r), "host RSS grew from 1650 to 2130 MiB over the measured steps: a leak, or a fragmenting heap "
                  "(try --host-malloc glibc)");
}

TEST(Warnings, AVariantMustTrainLikeItsBaselineEitherWay) {
  auto base = row("mlp/cpu/fp32", 0, 0, 0.5, 0.4, 0.1);
  auto fused = row("mlp/cpu/fp32/adam-fused", 0, 0, 0.5, 0.4, 0.05);
  nlohmann::json results = {base, fused};
  annotate_results(results);
  EXPECT_TRUE(results[1]["warnings"].empty()) << "same curve: " << results[1]["warnings"].dump();
  nlohmann::json lower = fused;
  for (auto& value : lower["loss"]["curve"]) value = value.get<double>() * 0.9;  // 10% lower is a difference too
  results = {base, lower};
  annotate_results(results);
  ASSERT_EQ(results[1]["warnings"].size(), 1u) << results[1]["warnings"].dump();
  EXPECT_NE(results[1]["warnings"][0].get<std::string>().find("adam-fused late loss differs by -10.0% from mlp/cpu/fp32"),
            std::string::npos)
      << results[1]["warnings"][0];
}

// In a stack each same-math part is held against the stack without it.
TEST(Warnings, EachPartOfAStackThatKeepsTheMathIsHeldAgainstTheStackWithoutIt) {
  auto without_fused = row("cnn/cpu/bf16/channels-last", 0, 0, 0.5, 0.4, 0.1);
  auto without_channels_last = row("cnn/cpu/bf16/adam-fused", 0, 0, 0.5, 0.4, 0.1);
  auto stack = row("cnn/cpu/bf16/adam-fused/channels-last", 0, 0, 0.5, 0.4, 0.1);
  for (auto& value : without_fused["loss"]["curve"]) value = value.get<double>() * 1.05;
  nlohmann::json results = {without_fused, without_channels_last, stack};
  annotate_results(results);
  ASSERT_EQ(results[2]["warnings"].size(), 1u) << results[2]["warnings"].dump();
  EXPECT_NE(results[2]["warnings"][0].get<std::string>().find("adam-fused late loss differs by -4.8% from "
                                                              "cnn/cpu/bf16/channels-last's"),
            std::string::npos)
      << results[2]["warnings"][0];
}

// fp8 against amp-bf16 (the same model but for its FP8 matmuls), past 2% either way; not
// against fp32, whose 10% bar would hide what FP8 changes.
TEST(Warnings, Fp8LossParityAgainstAmpBf16PastTwoPercentEitherWay) {
  auto bf16 = row("gpt2/cuda/amp-bf16/pinned", 0, 0, 0.5, 0.4, 0.1);
  bf16["config"]["precision"] = "amp-bf16";
  bf16["config"]["host_memory"] = "pinned";
  auto fp8 = row("gpt2/cuda/fp8/pinned", 0, 0, 0.5, 0.4, 0.1);
  fp8["config"]["precision"] = "fp8";
  fp8["config"]["host_memory"] = "pinned";
  const auto warnings_with = [&](double factor) {
    nlohmann::json candidate = fp8;
    for (auto& value : candidate["loss"]["curve"]) value = value.get<double>() * factor;
    nlohmann::json results = {bf16, candidate};
    annotate_results(results);
    return results[1]["warnings"];
  };
  EXPECT_TRUE(warnings_with(1.01).empty()) << warnings_with(1.01).dump();
  EXPECT_TRUE(warnings_with(0.99).empty());
  for (const double factor : {1.03, 0.97}) {
    const auto warnings = warnings_with(factor);
    ASSERT_EQ(warnings.size(), 1u) << warnings.dump();
    EXPECT_NE(warnings[0].get<std::string>().find(fmt::format("fp8 late loss differs by {:+.1f}% from "
                                                              "gpt2/cuda/amp-bf16/pinned's", (factor - 1) * 100)),
              std::string::npos)
        << warnings[0];
  }
  // Suffixes carry over to the baseline; a row without an id is left alone, not thrown on.
  nlohmann::json accumulating = fp8, bf16_accumulating = bf16;
  accumulating["config_id"] = "gpt2/cuda/fp8/pinned/acc4";
  bf16_accumulating["config_id"] = "gpt2/cuda/amp-bf16/pinned/acc4";
  for (auto& value : accumulating["loss"]["curve"]) value = value.get<double>() * 1.05;
  nlohmann::json results = {bf16_accumulating, accumulating};
  annotate_results(results);
  ASSERT_EQ(results[1]["warnings"].size(), 1u) << results[1]["warnings"].dump();
  EXPECT_NE(results[1]["warnings"][0].get<std::string>().find("from gpt2/cuda/amp-bf16/pinned/acc4's"), std::string::npos);
  nlohmann::json nameless = fp8;
  nameless.erase("config_id");
  results = {bf16, nameless};
  EXPECT_NO_THROW(annotate_results(results));
}

TEST(Warnings, AmpLossParityAgainstFp32OnTheSameData) {
  auto fp32 = row("mlp/cuda/fp32/pinned", 0, 0, 0.5, 0.4, 0.1);
  fp32["config"]["host_memory"] = "pinned";
  auto amp = row("mlp/cuda/amp-fp16/pinned", 0, 0, 0.5, 0.4, 0.1);
  amp["config"]["host_memory"] = "pinned";
  amp["config"]["precision"] = "amp-fp16";
  fp32["loss"]["curve"] = {2.3, 1.5, 1.1, 1.0, 1.0, 0.9, 0.8, 0.7};
  amp["loss"]["curve"] = {2.3, 1.6, 1.4, 1.3};  // stopped earlier: compared over steps 0..3 only
  nlohmann::json results = {fp32, amp};
  annotate_results(results);
  ASSERT_EQ(results[1]["warnings"].size(), 1u) << results[1].dump();
  EXPECT_EQ(results[1]["warnings"][0], "amp-fp16 late loss is 30% above fp32's over the same steps, same seed and data");
  EXPECT_TRUE(results[0]["warnings"].empty());
  EXPECT_TRUE(results[0].contains("verdict"));
}

}  // namespace
}  // namespace gpubench
