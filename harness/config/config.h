#pragma once
#include <string>
#include <vector>

namespace gpubench {

enum class DeviceKind { Cpu, Cuda };
// Bf16 is CPU autocast to bfloat16; AmpFp16 (with GradScaler) and AmpBf16 are CUDA autocast.
enum class Precision { Fp32, Bf16, AmpFp16, AmpBf16 };
enum class HostMemory { Pageable, Pinned };
enum class ParallelMode { Single, DataParallel, Ddp };

// One point of the matrix: plain data with a stable id used as report key, NVTX name and
// compare key. Grammar:  workload/device/precision[/hostmem][/parallel]
//   cpu:  mlp/cpu/fp32   mlp/cpu/bf16   mlp/cpu/fp32/ddp-2
//   cuda: cnn/cuda/fp32/pageable   cnn/cuda/amp-fp16/pinned   cnn/cuda/fp32/pinned/dp
//         cnn/cuda/fp32/pinned/ddp-1  (host memory defaults to pinned when omitted)
struct Config {
  std::string workload;
  DeviceKind device = DeviceKind::Cpu;
  Precision precision = Precision::Fp32;
  HostMemory host_memory = HostMemory::Pageable;  // meaningful for CUDA only
  ParallelMode parallel = ParallelMode::Single;
  int world_size = 1;  // DDP ranks; 1 otherwise

  std::string id() const;
  // Throws UsageError naming the bad segment and what was expected.
  static Config parse(const std::string& id);
  bool operator==(const Config& other) const { return id() == other.id(); }
};

std::string to_string(DeviceKind device);
std::string to_string(Precision precision);
std::string to_string(HostMemory memory);
std::string to_string(ParallelMode mode);

// True for precisions that run under autocast.
bool is_mixed_precision(Precision precision);

}  // namespace gpubench
