// Stacks of techniques on a real device (label gpu; each test skips here with LibTorch's
// reason): DDP over NCCL under AMP, a CUDA Graph under AMP, resnet50's recipe, and every
// legal pair of CUDA techniques against the plain config.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>

#include "core/config/errors.h"
#include "core/config/stack_parts.h"
#include "support/quick_row.h"
#include "support/require_cuda.h"
#include "support/technique_pairs.h"

namespace gpubench {
namespace {

// A ddp-1 config runs in this process as rank 0 of 1 (one rank needs no rendezvous store).
class OneRank {
 public:
  OneRank() {
    setenv("RANK", "0", 1);
    setenv("WORLD_SIZE", "1", 1);
  }
  ~OneRank() {
    unsetenv("RANK");
    unsetenv("WORLD_SIZE");
  }
};

nlohmann::json run_row(const std::string& id, int batch = 8) {
  if (Config::parse(id).parallel == ParallelMode::Ddp) {
    OneRank rank;
    return run_quick_row(id, {/*steps=*/4, /*warmup=*/1, batch});
  }
  return run_quick_row(id, {/*steps=*/4, /*warmup=*/1, batch});
}

// The candidate's late loss over the baseline's, over the steps both ran (a graph warms up
// longer): the last quarter of the common prefix.
double late_ratio(const nlohmann::json& base, const nlohmann::json& candidate) {
  const auto& a = base["loss"]["curve"];
  const auto& b = candidate["loss"]["curve"];
  const std::size_t n = std::min(a.size(), b.size()), quarter = std::max<std::size_t>(1, n / 4);
  double x = 0, y = 0;
  for (std::size_t i = n - quarter; i < n; ++i) {
    x += a[i].get<double>();
    y += b[i].get<double>();
  }
  return y / x;
}

void expect_same_curve(const nlohmann::json& a, const nlohmann::json& b, double tolerance) {
  const auto& x = a["loss"]["curve"];
  const auto& y = b["loss"]["curve"];
  ASSERT_EQ(x.size(), y.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    EXPECT_NEAR(y[i].get<double>(), x[i].get<double>(), tolerance * std::abs(x[i].get<double>())) << "step " << i;
}

// ddp-1 over NCCL under bf16 and fp16 autocast: GradScaler unscales after the all-reduce,
// and one rank trains as the single process does.
TEST(GpuStacks, DdpOverNcclWithAmpTrainsAsOneProcess) {
  REQUIRE_CUDA();
  for (const std::string precision : {"amp-bf16", "amp-fp16"}) {
    SCOPED_TRACE(precision);
    const nlohmann::json single = run_row("mlp/cuda/" + precision + "/pinned");
    const nlohmann::json ddp = run_row("mlp/cuda/" + precision + "/pinned/ddp-1");
    EXPECT_EQ(ddp["ddp"]["backend"], "nccl");
    EXPECT_TRUE(ddp["ddp"]["final_parameters_identical"].get<bool>());
    expect_same_curve(single, ddp, 1e-3);
    if (precision == "amp-fp16") {
      EXPECT_EQ(ddp["grad_scaler"]["steps"].get<int>(), 5);
    }
  }
}

// A graph under autocast replays what eager fused Adam runs; under fp16 the GradScaler's
// check, unscale, skip and scale update are in the capture (nothing read back per step).
TEST(GpuStacks, GraphUnderAmpTrainsAsEagerFusedAdam) {
  REQUIRE_CUDA();
  for (const std::string precision : {"amp-bf16", "amp-fp16"}) {
    SCOPED_TRACE(precision);
    const nlohmann::json eager = run_quick_row("mlp/cuda/" + precision + "/pinned/adam-fused", {6, 3, 8});
    const nlohmann::json graph = run_quick_row("mlp/cuda/" + precision + "/pinned/graph", {6, 3, 8});
    ASSERT_TRUE(graph.contains("cuda_graph")) << graph.dump();
    EXPECT_EQ(graph["cuda_graph"]["replays"].get<int>(), 6);
    expect_same_curve(eager, graph, 1e-3);
    if (precision == "amp-fp16") {
      EXPECT_EQ(graph["grad_scaler"]["steps"].get<int>(), 9) << "3 eager steps and 6 replays";
      EXPECT_EQ(graph["grad_scaler"]["skipped_steps"], eager["grad_scaler"]["skipped_steps"]);
    }
  }
}

// The recipe published ResNet-50 numbers use, with fused Adam and a graph: it trains like
// the fp32 row (within AMP's 10%) and runs faster.
TEST(GpuStacks, Resnet50RecipeTrainsAndRunsFasterThanFp32) {
  REQUIRE_CUDA();
  const nlohmann::json fp32 = run_quick_row("resnet50/cuda/fp32/pinned", {6, 3, 32});
  const nlohmann::json recipe = run_quick_row("resnet50/cuda/amp-bf16/pinned/channels-last/graph", {6, 3, 32});
  EXPECT_TRUE(recipe.contains("cuda_graph"));
  EXPECT_EQ(recipe["config"]["adam_kernel"], "adam-fused");
  EXPECT_LT(late_ratio(fp32, recipe), 1.10);
  const double speedup = recipe["throughput"]["samples_per_s"]["median"].get<double>() /
                         fp32["throughput"]["samples_per_s"]["median"].get<double>();
  std::cout << "resnet50 recipe / fp32 at batch 32: " << speedup << "x\n";
  EXPECT_GT(speedup, 1.0);
}

// Every legal pair of CUDA techniques runs and trains as the plain config: same-math pairs
// within 2% of the late loss, a lower precision within AMP's 10%. The whole set takes
// minutes on a GPU: GPUBENCH_PAIRS_EVERY=K trains every Kth legal pair (the device run's
// sample, issue 47 finding 5); each pair's result is printed as it ends, so a run cut
// short by its time limit still says which ran.
TEST(GpuStacks, EveryLegalCudaPairTrainsAsThePlainConfig) {
  REQUIRE_CUDA();
  const char* every_text = std::getenv("GPUBENCH_PAIRS_EVERY");
  const int every = every_text != nullptr ? std::max(1, std::atoi(every_text)) : 1;
  std::map<std::pair<std::string, int>, nlohmann::json> plain;  // by id and global batch
  int legal = 0, ran = 0, sampled = 0;
  for (const auto& pair : test_support::technique_pairs(DeviceKind::Cuda)) {
    Config config;
    try {
      config = Config::parse(pair.id);
    } catch (const UsageError&) {
      continue;  // refused by the table: TechniqueRules checks the reason
    }
    if (workload_rule_broken(config, test_support::pair_workload_traits().at(pair.workload))) continue;
    if (legal++ % every != 0) continue;
    ++sampled;
    SCOPED_TRACE(pair.id);
    const int batch = pair.workload == "gpt2" ? 2 : 8;
    const nlohmann::json row = run_row(pair.id, batch);
    if (row.value("status", "") != "ok") continue;  // run_quick_row failed the test, naming the reason
    ++ran;
    // Against the plain config at the same global batch (accumulation's K micro-batches).
    const auto key = std::make_pair(plain_config(config.workload, DeviceKind::Cuda).id(), batch * config.accumulate);
    if (!plain.count(key)) plain[key] = run_row(key.first, key.second);
    const double lower_precision = config.precision == Precision::Fp32 ? 0.02 : 0.10;
    const double ratio = late_ratio(plain[key], row);
    EXPECT_NEAR(ratio, 1.0, lower_precision);
    std::cout << "pair " << pair.id << ": late loss / plain " << ratio << std::endl;
  }
  EXPECT_EQ(legal, 76);
  EXPECT_EQ(ran, sampled);
}

}  // namespace
}  // namespace gpubench
