// The ckpt variant on a real device (label gpu): the same training as the plain row, in
// less device memory (the point of recomputing activations).
#include <gtest/gtest.h>

#include <cmath>

#include "support/quick_row.h"
#include "support/require_cuda.h"

namespace gpubench {
namespace {

nlohmann::json run_quick(const std::string& id) { return run_quick_row(id, {/*steps=*/4, /*warmup=*/1, /*batch_size=*/4}); }

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
