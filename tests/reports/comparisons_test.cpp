#include "reports/comparisons.h"

#include <gtest/gtest.h>

#include "reports/report_format.h"

namespace gpubench {
namespace {

nlohmann::json row(const std::string& id, const std::string& status, double rate, double rss, double gpu = -1) {
  nlohmann::json r = {{"config_id", id}, {"config", {{"workload", id.substr(0, id.find('/'))}}}, {"status", status}, {"reason", ""}};
  if (status != "ok") return r;
  r["throughput"]["samples_per_s"] = {{"median", rate}, {"p10", rate * 0.9}, {"p90", rate * 1.1}};
  r["step_ms"] = {{"median", 1000.0 / rate}};
  r["memory"]["host_peak_rss_bytes"] = rss;
  if (gpu >= 0) r["memory"]["cuda_peak_allocated_bytes"] = gpu;
  r["phases"] = {{"data", {{"share", 0.1}}}, {"forward", {{"share", 0.3}}}};
  r["loss"] = {{"first", 2.3}, {"last", 1.1}, {"curve", {2.3, 1.6, 1.1}}};
  return r;
}

// On the CPU a row's process peak also holds the checkpoint round trip; where both rows
// have the training steps' own peak, the ratio uses it (ckpt_vs_plain is about that).
TEST(Comparisons, HostRatiosUseTheTrainingPeakWhereBothRowsHaveIt) {
  nlohmann::json plain = row("gpt2/cpu/fp32", "ok", 0.19, 5000);
  nlohmann::json ckpt = row("gpt2/cpu/fp32/ckpt", "ok", 0.07, 5000);
  plain["memory"]["host_peak_rss_bytes_training"] = 4000.0;
  ckpt["memory"]["host_peak_rss_bytes_training"] = 3000.0;
  const auto comparisons = compute_comparisons(nlohmann::json::array({plain, ckpt}));
  ASSERT_EQ(comparisons.size(), 1u);
  EXPECT_EQ(comparisons[0]["kind"], "ckpt_vs_plain");
  EXPECT_EQ(comparisons[0]["memory_metric"], "host_peak_rss_bytes_training");
  EXPECT_DOUBLE_EQ(comparisons[0]["memory_ratio"].get<double>(), 0.75);
}

TEST(Comparisons, SpeedupAndMemoryRatioForEveryPairThatRan) {
  const nlohmann::json results = {row("mlp/cpu/fp32", "ok", 1000, 200), row("mlp/cpu/bf16", "ok", 250, 100),
                                  row("mlp/cuda/fp32/pageable", "ok", 4000, 900, 50),
                                  row("mlp/cuda/fp32/pinned", "ok", 5000, 900, 60),
                                  row("mlp/cuda/amp-fp16/pinned", "failed", 0, 0)};
  const auto comparisons = compute_comparisons(results);
  ASSERT_EQ(comparisons.size(), 3u);  // bf16 vs fp32, gpu vs cpu, pinned vs pageable; amp failed
  EXPECT_EQ(comparisons[0]["kind"], "bf16_vs_fp32");
  EXPECT_DOUBLE_EQ(comparisons[0]["speedup"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(comparisons[0]["memory_ratio"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(comparisons[0]["loss_ratio"].get<double>(), 1.0) << "same curves: parity";
  EXPECT_EQ(comparisons[1]["kind"], "gpu_vs_cpu");
  EXPECT_EQ(comparisons[1]["memory_metric"], "host_peak_rss_bytes") << "never a GPU/host ratio";
  EXPECT_EQ(comparisons[2]["kind"], "pinned_vs_pageable");
  EXPECT_DOUBLE_EQ(comparisons[2]["speedup"].get<double>(), 1.25);
  EXPECT_EQ(comparisons[2]["memory_metric"], "cuda_peak_allocated_bytes");
  EXPECT_DOUBLE_EQ(comparisons[2]["memory_ratio"].get<double>(), 1.2);
}

// A decoder's CPU row trains a shorter default sequence than its GPU row: samples of two
// lengths are not the same work, so gpu_vs_cpu is not computed between them.
TEST(Comparisons, RowsOfDifferentSequenceLengthsAreNotCompared) {
  nlohmann::json cpu = row("smol/cpu/fp32", "ok", 2, 200), gpu = row("smol/cuda/fp32/pinned", "ok", 40, 900, 50);
  cpu["workload"]["seq_len"] = 256;
  gpu["workload"]["seq_len"] = 2048;
  EXPECT_TRUE(compute_comparisons(nlohmann::json{cpu, gpu}).empty());
  cpu["workload"]["seq_len"] = 2048;
  EXPECT_EQ(compute_comparisons(nlohmann::json{cpu, gpu}).size(), 1u) << "one length: compared";
}

TEST(Comparisons, PairsStayWithinTheirWorkload) {
  const nlohmann::json results = {row("mlp/cpu/fp32", "ok", 1000, 200), row("cnn/cpu/bf16", "ok", 250, 100)};
  EXPECT_TRUE(compute_comparisons(results).empty());
}

// CUDA DDP runs one rank per visible device, so its id is ddp-N for any N.
TEST(Comparisons, CudaDdpPairsWhateverItsRankCount) {
  const nlohmann::json results = {row("cnn/cuda/fp32/pinned", "ok", 1000, 1, 10), row("cnn/cuda/fp32/pinned/dp", "ok", 1500, 1, 10),
                                  row("cnn/cuda/fp32/pinned/ddp-8", "ok", 6000, 1, 10)};
  const auto comparisons = compute_comparisons(results);
  ASSERT_EQ(comparisons.size(), 3u);
  EXPECT_EQ(comparisons[1]["kind"], "ddp_vs_single");
  EXPECT_EQ(comparisons[1]["candidate"], "cnn/cuda/fp32/pinned/ddp-8");
  EXPECT_DOUBLE_EQ(comparisons[1]["speedup"].get<double>(), 6.0);
  EXPECT_EQ(comparisons[2]["kind"], "ddp_vs_dp");
  EXPECT_DOUBLE_EQ(comparisons[2]["speedup"].get<double>(), 4.0);
}

// A graph replays fused Adam's kernels: it is compared with the eager fused-Adam row, so the
// ratio is the launch overhead saved, not the optimizer change; AMP + fused with AMP.
TEST(Comparisons, GraphAgainstEagerFusedAdamAndFusedUnderAmp) {
  const nlohmann::json results = {row("mlp/cuda/fp32/pinned", "ok", 1000, 1, 10),
                                  row("mlp/cuda/amp-fp16/pinned", "ok", 1500, 1, 8),
                                  row("mlp/cuda/fp32/pinned/adam-fused", "ok", 1200, 1, 10),
                                  row("mlp/cuda/amp-fp16/pinned/adam-fused", "ok", 1800, 1, 8),
                                  row("mlp/cuda/fp32/pinned/graph", "ok", 3000, 1, 12)};
  const auto comparisons = compute_comparisons(results);
  const auto find = [&](const std::string& candidate, const std::string& kind = "") {
    for (const auto& c : comparisons)
      if (c["candidate"] == candidate && (kind.empty() || c["kind"] == kind)) return c;
    return nlohmann::json();
  };
  EXPECT_EQ(find("mlp/cuda/fp32/pinned/graph")["kind"], "graph_vs_eager");
  EXPECT_EQ(find("mlp/cuda/fp32/pinned/graph")["baseline"], "mlp/cuda/fp32/pinned/adam-fused");
  EXPECT_DOUBLE_EQ(find("mlp/cuda/fp32/pinned/graph")["speedup"].get<double>(), 2.5);
  EXPECT_EQ(find("mlp/cuda/amp-fp16/pinned/adam-fused", "adam_fused_vs_loop")["baseline"], "mlp/cuda/amp-fp16/pinned");
  EXPECT_DOUBLE_EQ(find("mlp/cuda/amp-fp16/pinned/adam-fused", "adam_fused_vs_loop")["speedup"].get<double>(), 1.2);
  // and the same stack without AMP
  EXPECT_EQ(find("mlp/cuda/amp-fp16/pinned/adam-fused", "amp_fp16_vs_fp32")["baseline"], "mlp/cuda/fp32/pinned/adam-fused");
}

// fp8 is held against the same bf16 autocast model without its FP8 matmuls, not fp32.
TEST(Comparisons, Fp8AgainstAmpBf16) {
  const nlohmann::json results = {row("gpt2/cuda/fp32/pinned", "ok", 100, 1, 40),
                                  row("gpt2/cuda/amp-bf16/pinned", "ok", 250, 1, 20),
                                  row("gpt2/cuda/fp8/pinned", "ok", 325, 1, 18)};
  const auto comparisons = compute_comparisons(results);
  ASSERT_EQ(comparisons.size(), 2u);
  EXPECT_EQ(comparisons[1]["kind"], "fp8_vs_bf16");
  EXPECT_EQ(comparisons[1]["baseline"], "gpt2/cuda/amp-bf16/pinned");
  EXPECT_EQ(comparisons[1]["candidate"], "gpt2/cuda/fp8/pinned");
  EXPECT_DOUBLE_EQ(comparisons[1]["speedup"].get<double>(), 1.3);
  EXPECT_DOUBLE_EQ(comparisons[1]["memory_ratio"].get<double>(), 0.9);
}

// A stack is compared with the same stack without each of its parts, when that row ran.
TEST(Comparisons, EachPartOfAStackAgainstTheStackWithoutIt) {
  const nlohmann::json results = {row("resnet50/cuda/amp-bf16/pinned/adam-fused/channels-last", "ok", 900, 1, 10),
                                  row("resnet50/cuda/fp32/pinned/channels-last/graph", "ok", 500, 1, 20),
                                  row("resnet50/cuda/amp-bf16/pinned/graph", "ok", 800, 1, 12),
                                  row("resnet50/cuda/amp-bf16/pinned/channels-last/graph", "ok", 1000, 1, 10)};
  const auto comparisons = compute_comparisons(results);
  std::vector<std::string> kinds;
  for (const auto& c : comparisons)
    if (c["candidate"] == "resnet50/cuda/amp-bf16/pinned/channels-last/graph")
      kinds.push_back(c["kind"].get<std::string>() + " vs " + c["baseline"].get<std::string>());
  EXPECT_EQ(kinds, (std::vector<std::string>{
                       "amp_bf16_vs_fp32 vs resnet50/cuda/fp32/pinned/channels-last/graph",
                       "channels_last_vs_contiguous vs resnet50/cuda/amp-bf16/pinned/graph",
                       "graph_vs_eager vs resnet50/cuda/amp-bf16/pinned/adam-fused/channels-last"}));
  // Ids of another grammar compare with nothing, and do not stop the others.
  nlohmann::json odd = results;
  odd.push_back(row("resnet50/cuda/what/pinned", "ok", 1, 1, 1));
  EXPECT_EQ(compute_comparisons(odd).size(), comparisons.size());
}

TEST(ReportFormat, TableAndMarkdownShowRowsReasonsAndSpeedups) {
  nlohmann::json report = {{"tool", {{"version", "0.1.0"}, {"git_commit", "abc"}}},
                           {"env", {{"cpu_model", "Test CPU"}, {"torch_version", "1.13.0"}, {"threads", 2}}},
                           {"matrix", {{"preset", "quick"}}}};
  report["results"] = {row("mlp/cpu/fp32", "ok", 1000, 200 * 1024 * 1024), row("mlp/cpu/bf16", "ok", 250, 100),
                       row("mlp/cuda/fp32/pinned", "skipped", 0, 0)};
  report["results"][2]["reason"] = "no CUDA device: driver | missing";
  report["comparisons"] = compute_comparisons(report["results"]);
  const std::string table = format_report(report, "table", 200);
  EXPECT_NE(table.find("mlp/cpu/fp32"), std::string::npos);
  EXPECT_NE(table.find("1000.0 [900.0-1100.0]"), std::string::npos) << table;
  EXPECT_NE(table.find("200.0 MiB (rss)"), std::string::npos) << table;
  EXPECT_NE(table.find("no CUDA device"), std::string::npos);
  EXPECT_NE(table.find("0.25x"), std::string::npos);
  const std::string markdown = format_report(report, "markdown");
  EXPECT_NE(markdown.find("## mlp"), std::string::npos);
  EXPECT_NE(markdown.find("| mlp/cpu/bf16 | ok | 250.0 [225.0-275.0] | 0.25x vs mlp/cpu/fp32 |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("driver \\| missing"), std::string::npos) << "pipes escaped";
  EXPECT_EQ(nlohmann::json::parse(format_report(report, "json")), report);
  EXPECT_THROW(format_report(report, "html"), std::exception);
}

// A row's reason (an OS or library message, a path) with a newline, a right-to-left
// override and markup: the table shows it on its row's line, escaped; markdown shows text,
// not an image or a link.
TEST(ReportFormat, ReasonsAreShownOnOneLineAndAsTextInMarkdown) {
  nlohmann::json report = {{"tool", {{"version", "0.1.0"}, {"git_commit", "abc"}}},
                           {"env", {{"cpu_model", "Test CPU"}, {"torch_version", "1.13.0"}, {"threads", 2}}},
                           {"matrix", {{"preset", "quick"}}}};
  report["results"] = {row("mlp/cpu/fp32", "failed", 0, 0)};
  report["results"][0]["reason"] = "boom\nmlp/cpu/bf16 ok 9999.0\xe2\x80\xae <img src=x> [a](https://x.example)";
  report["comparisons"] = nlohmann::json::array();
  for (const std::string format : {"table", "markdown"}) {
    const std::string text = format_report(report, format, 200);
    EXPECT_EQ(text.find("\nmlp/cpu/bf16"), std::string::npos) << format << ": a forged row\n" << text;
    EXPECT_NE(text.find("boom\\"), std::string::npos) << format << ": the newline escaped\n" << text;
    EXPECT_EQ(text.find("\xe2\x80\xae"), std::string::npos) << format << ": U+202E raw\n" << text;
  }
  const std::string markdown = format_report(report, "markdown");
  EXPECT_EQ(markdown.find(" <img"), std::string::npos) << "unescaped: " << markdown;
  EXPECT_EQ(markdown.find(" [a]("), std::string::npos) << "unescaped: " << markdown;
  EXPECT_NE(markdown.find("\\<img src=x\\> \\[a\\](https\\://x.example)"), std::string::npos) << markdown;
}

TEST(ReportFormat, Units) {
  EXPECT_EQ(format_bytes(0), "-");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(3.0 * 1024 * 1024 * 1024), "3.0 GiB");
  EXPECT_EQ(format_rate(12345.6), "12346");
  EXPECT_EQ(format_rate(7.126), "7.13");
}

}  // namespace
}  // namespace gpubench
