#pragma once
#include <optional>
#include <string>

namespace gpubench {

// A GPU's dense peak matrix throughput as its vendor states it (no 2:4 sparsity), per
// precision, with the document it comes from.
struct VendorPeak {
  double tflops = 0;
  std::string source;
};

// `device_name` as CUDA reports it ("NVIDIA H200", "NVIDIA A100-SXM4-80GB"); precision is
// "fp32" (CUDA cores), "tf32", "fp16", "bf16" or "fp8" (tensor cores, fp32 accumulate). Nullopt
// for a GPU or precision the table does not hold.
std::optional<VendorPeak> vendor_peak(const std::string& device_name, const std::string& precision);

}  // namespace gpubench
