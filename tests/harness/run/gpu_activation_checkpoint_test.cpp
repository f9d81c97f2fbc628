// The ckpt variant on a real device (label gpu): the same training as the plain row, in
// less device memory (the point of recomputing activations).
#include <gtest/gtest.h>

#include <cmath>

#include "config/run_settings.h"
#include "run/config_runner.h"
#include "support/require_cuda.h"

namespace gpubench {
namespace {

nlohmann::json run_quick(const std::string& id) {
  RunSettings settings;
  settings.preset = Preset::Quick;
  settings.steps = 4;
  settings.warmup = 1;
  settings.batch_size = 4;
  settings.seed = 42;
  settings.cupti = false;
  const nlohmann::json row = run_config_in_process(Config::parse(id), settings);
  EXPECT_EQ(row.value("status", ""), "ok") << id << ": " << row.value("reason", "");
  return row;
}

TEST(GpuActivationCheckpoint, TrainsAsThePlainRowInLessDeviceMemory) {
  REQUIRE_CUDA();
  for (const std::string workload : {"gpt2", "resnet50"}) {
    SCOPED_TRACE(workload);
    const nlohmann::json plain = run_quick(workload + "/cuda/fp32/pinned");
    const nlohmann::json ckpt = run_quick(workload + "/cuda/fp32/pinned/ckpt");
    const auto& a = plain["loss"]["curve"];
    const auto& b = ckpt["loss"]["curve"];
    ASSERT_EQ(a.size(), b.size());
    // cuDNN and cuBLAS may pick other algorithms for the recompute: close, not bitwise.
    for (std::size_t i = 0; i < a.size(); ++i)
      EXPECT_NEAR(b[i].get<double>(), a[i].get<double>(), 1e-3 * std::abs(a[i].get<double>())) << "step " << i;
    EXPECT_LT(ckpt["memory"]["cuda_peak_allocated_bytes"].get<double>(),
              plain["memory"]["cuda_peak_allocated_bytes"].get<double>())
        << "activations are recomputed, not kept";
  }
}

}  // namespace
}  // namespace gpubench
