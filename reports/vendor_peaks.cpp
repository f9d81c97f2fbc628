#include "reports/vendor_peaks.h"

#include <vector>

namespace gpubench {
namespace {

struct GpuPeaks {
  const char* name;  // CUDA's device name without the "NVIDIA " prefix; matched exactly, or as a prefix when ending in '*'
  double fp32, tf32, fp16, bf16, fp8;  // fp8: 0 where the GPU has no FP8 tensor cores
  const char* source;
};

// Dense tensor-core figures are the datasheets' sparse figures halved where the sheet
// quotes only those. First match wins: variants before their family.
const std::vector<GpuPeaks>& table() {
  static const std::vector<GpuPeaks> peaks = {
      {"H200 NVL", 60, 417.5, 835.5, 835.5, 1670.5, "NVIDIA H200 NVL datasheet (2024): dense, half the sparse tensor figures"},
      {"H200", 67, 494.5, 989.5, 989.5, 1979, "NVIDIA H200 SXM datasheet (2024): dense, half the sparse tensor figures"},
      {"H100 PCIe", 51, 378, 756, 756, 1513, "NVIDIA H100 PCIe datasheet (2023): dense, half the sparse tensor figures"},
      {"H100 NVL", 60, 417.5, 835.5, 835.5, 1670.5, "NVIDIA H100 NVL datasheet (2023): dense, half the sparse tensor figures"},
      {"H100*", 67, 494.5, 989.5, 989.5, 1979, "NVIDIA H100 SXM datasheet (2023): dense, half the sparse tensor figures"},
      {"A100*", 19.5, 156, 312, 312, 0, "NVIDIA A100 datasheet (2021): dense tensor figures"},
      {"L4", 30.3, 60, 121, 121, 242.5, "NVIDIA L4 datasheet (2023): dense, half the sparse tensor figures"},
      {"GeForce RTX 4090", 82.6, 82.6, 165.2, 165.2, 330.3,
       "NVIDIA Ada Lovelace architecture whitepaper (2022), RTX 4090: dense, fp32 accumulate"},
  };
  return peaks;
}

bool matches(const std::string& pattern, const std::string& name) {
  if (!pattern.empty() && pattern.back() == '*') return name.rfind(pattern.substr(0, pattern.size() - 1), 0) == 0;
  return name == pattern;
}

}  // namespace

std::optional<VendorPeak> vendor_peak(const std::string& device_name, const std::string& precision) {
  const std::string prefix = "NVIDIA ";
  const std::string name = device_name.rfind(prefix, 0) == 0 ? device_name.substr(prefix.size()) : device_name;
  for (const auto& gpu : table()) {
    if (!matches(gpu.name, name)) continue;
    const double tflops = precision == "fp32"   ? gpu.fp32
                          : precision == "tf32" ? gpu.tf32
                          : precision == "fp16" ? gpu.fp16
                          : precision == "bf16" ? gpu.bf16
                          : precision == "fp8"  ? gpu.fp8
                                                : 0;
    if (tflops <= 0) return std::nullopt;
    return VendorPeak{tflops, gpu.source};
  }
  return std::nullopt;
}

}  // namespace gpubench
