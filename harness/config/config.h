#pragma once
#include <string>
#include <vector>

namespace gpubench {

enum class DeviceKind { Cpu, Cuda };
// Bf16 is CPU autocast to bfloat16; AmpFp16 (with GradScaler) and AmpBf16 are CUDA autocast;
// Tf32 is CUDA fp32 with TF32 tensor-core matmuls and convolutions allowed (cuBLAS, cuDNN);
// Fp8 is CUDA bf16 autocast with the Linear layers' matmuls in FP8 (gpt2's blocks).
enum class Precision { Fp32, Bf16, AmpFp16, AmpBf16, Tf32, Fp8 };
enum class HostMemory { Pageable, Pinned };
enum class ParallelMode { Single, DataParallel, Ddp };
// A tuning technique on top of a single-process config: Adam as one multi-tensor
// (_foreach_*) or fused (_fused_adam_) kernel instead of a loop over parameters, or the
// CNN's parameters and inputs in channels_last memory format, or the whole step (forward,
// backward, fused Adam) captured once in a CUDA Graph and replayed, or activation
// checkpointing (resnet50 per stage, gpt2 per block: activations recomputed in backward).
enum class Variant { None, AdamForeach, AdamFused, ChannelsLast, CudaGraph, ActivationCheckpoint };

// One point of the matrix: plain data with a stable id used as report key, NVTX name and
// compare key. Grammar:  workload/device/precision[/hostmem][/parallel][/accK][/variant]
//   cpu:  mlp/cpu/fp32   mlp/cpu/bf16   mlp/cpu/fp32/ddp-2
//   cuda: cnn/cuda/fp32/pageable   cnn/cuda/amp-fp16/pinned   cnn/cuda/fp32/pinned/dp
//         cnn/cuda/fp32/pinned/ddp-1  (host memory defaults to pinned when omitted)
//   variants (single process, fp32 or tf32): mlp/cpu/fp32/adam-foreach  mlp/cuda/fp32/pinned/adam-fused
//         cnn/cpu/fp32/channels-last (cnn, resnet50)   mlp/cuda/fp32/pinned/graph (cuda only)
//         Adam variants also under amp-fp16: mlp/cuda/amp-fp16/pinned/adam-fused
//         activation checkpointing, any precision: gpt2/cpu/fp32/ckpt  resnet50/cuda/amp-bf16/pinned/ckpt
//   tf32: cnn/cuda/tf32/pinned
//   fp8 (gpt2 only): gpt2/cuda/fp8/pinned
//   gradient accumulation, K = 2..1024 micro-batches per optimizer step: mlp/cpu/fp32/acc4
//         gpt2/cuda/amp-bf16/pinned/acc4  mlp/cpu/fp32/ddp-2/acc4 (not with graph)
struct Config {
  std::string workload;
  DeviceKind device = DeviceKind::Cpu;
  Precision precision = Precision::Fp32;
  HostMemory host_memory = HostMemory::Pageable;  // meaningful for CUDA only
  ParallelMode parallel = ParallelMode::Single;
  int world_size = 1;  // DDP ranks; 1 otherwise
  Variant variant = Variant::None;
  // Micro-batches per optimizer step (`--accumulate K`, the id's accK): the loss of each is
  // divided by K, gradients accumulate, the optimizer (and DDP's all-reduce) runs once.
  int accumulate = 1;

  std::string id() const;
  // Throws UsageError naming the bad segment and what was expected.
  static Config parse(const std::string& id);
  bool operator==(const Config& other) const { return id() == other.id(); }
};

// The workloads whose batches are 4-d images (NCHW), where channels-last applies.
bool is_image_workload(const std::string& workload);

std::string to_string(DeviceKind device);
std::string to_string(Precision precision);
std::string to_string(HostMemory memory);
std::string to_string(ParallelMode mode);
std::string to_string(Variant variant);  // "none", "adam-foreach", "adam-fused", "channels-last", "graph", "ckpt"

}  // namespace gpubench
