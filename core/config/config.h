#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace gpubench {

enum class DeviceKind { Cpu, Cuda };
// Bf16 is CPU autocast to bfloat16; AmpFp16 (with GradScaler) and AmpBf16 are CUDA autocast;
// Tf32 is CUDA fp32 with TF32 tensor-core matmuls and convolutions allowed (cuBLAS, cuDNN);
// Fp8 is CUDA bf16 autocast with the Linear layers' matmuls in FP8 (gpt2's blocks).
enum class Precision { Fp32, Bf16, AmpFp16, AmpBf16, Tf32, Fp8 };
enum class HostMemory { Pageable, Pinned };
// Ddp keeps a whole replica a rank; the sharded modes (docs/sharding.md) split what a rank
// holds: Zero1 the optimizer state, Zero2 that and the gradients, Fsdp that and the
// parameters (each unit gathered around its use). Every multi-rank mode runs one process
// per rank, started as ddp-N's are.
enum class ParallelMode { Single, DataParallel, Ddp, Zero1, Zero2, Fsdp };
// Adam's update: LibTorch's loop over parameters (~10 small ops each), one multi-tensor
// pass of _foreach_* ops, or one fused _fused_adam_ kernel.
enum class AdamKernel { Loop, Foreach, Fused };

// One point of the matrix: plain data with a stable id used as report key, NVTX name and
// compare key. A config is workload/device/precision[/hostmem] plus a *set* of techniques:
//   parallel      dp | ddp-N | zero1-N | zero2-N | fsdp-N
//                                     (cuda dp; the rest one process a rank, over Gloo on
//                                      the CPU, NCCL on cuda)
//   accumulation  accK, K = 2..1024   micro-batches per optimizer step
//   optimizer     adam-foreach | adam-fused
//   memory format channels-last       (workloads with image batches)
//   recompute     ckpt                (activation checkpointing, per segment of the model)
//   capture       graph               (cuda: the whole step replayed from a CUDA Graph;
//                                      it replays fused Adam, so graph implies adam-fused)
//   experts       ep-K                (a mixture of experts' experts split over groups of K
//                                      ranks of the multi-rank mode, N a multiple of K)
//   compile       compile             (forward, loss and backward exported as one joint graph,
//                                      compiled ahead of time by Inductor: docs/techniques.md)
// The segments after the precision may come in any order; id() prints the canonical one:
//   workload/device/precision[/pinned|pageable][/dp|ddp-N|zero1-N|zero2-N|fsdp-N][/ep-K][/accK][/adam-*][/channels-last][/ckpt][/graph][/compile]
// (host memory defaults to pinned on cuda and is printed there; graph prints no adam-fused).
// Every id of the one-technique grammar keeps its meaning and spelling.
// Which techniques cannot combine, and why, is config/technique_rules.h's table.
//   mlp/cpu/fp32   mlp/cpu/bf16/ddp-2/adam-fused   cnn/cuda/amp-fp16/pinned
//   resnet50/cuda/amp-bf16/pinned/adam-fused/channels-last/graph   gpt2/cuda/fp8/pinned/ddp-8/ckpt
//   llama/cuda/amp-bf16/pinned/fsdp-8/ckpt   gpt2/cpu/fp32/zero2-2
struct Config {
  std::string workload;
  DeviceKind device = DeviceKind::Cpu;
  Precision precision = Precision::Fp32;
  HostMemory host_memory = HostMemory::Pageable;  // meaningful for CUDA only
  ParallelMode parallel = ParallelMode::Single;
  int world_size = 1;  // ranks of ddp-N, zero1-N, zero2-N, fsdp-N; 1 otherwise
  // Micro-batches per optimizer step (`--accumulate K`, the id's accK): the loss of each is
  // divided by K, gradients accumulate, the optimizer (and DDP's all-reduce) runs once.
  int accumulate = 1;
  AdamKernel adam = AdamKernel::Loop;  // as written; adam_kernel() is what runs
  bool channels_last = false;          // parameters and batches in NHWC
  bool checkpoint = false;             // activations recomputed in backward (ckpt)
  bool graph = false;                  // the step captured once in a CUDA Graph, replayed
  // Expert parallel (ep-K): ranks per group that split a mixture of experts' experts; 1 is
  // none. Composes with ddp-N, zero1-N, zero2-N and fsdp-N whose N is a multiple of K.
  int expert_parallel = 1;
  bool compile = false;                // the step run from an ahead-of-time compiled package

  std::string id() const;
  // Throws UsageError naming the bad segment and what was expected, or the rule of
  // technique_rules.h the combination breaks.
  static Config parse(const std::string& id);
  bool operator==(const Config& other) const { return id() == other.id(); }

  // One process a rank (ddp-N and the sharded modes), started by gpubench's launcher,
  // torchrun or Slurm.
  bool multi_rank() const { return parallel == ParallelMode::Ddp || sharded(); }
  // zero1-N, zero2-N or fsdp-N: each rank holds a 1/N shard of some of the model's state.
  bool sharded() const {
    return parallel == ParallelMode::Zero1 || parallel == ParallelMode::Zero2 || parallel == ParallelMode::Fsdp;
  }
  // A GPU rank of fsdp-N or ep-K builds the model on the host and moves only its share to
  // its device, unit by unit (issue 55, finding 8): built on the device, the whole fp32 model
  // would bind the start, not training. Every other config builds where it trains.
  bool model_built_on_host() const {
    return device == DeviceKind::Cuda && (parallel == ParallelMode::Fsdp || expert_parallel > 1);
  }
  // The largest piece of such a host-built tensor staged on the device at once, for rank 0's
  // broadcast (harness/parallel/host_built_model.h); the memory estimate's start counts it.
  static constexpr std::int64_t kHostStagingBytes = std::int64_t{256} << 20;
  // The Adam kernel the step runs: a graph replays fused Adam (its step counts on the device).
  AdamKernel adam_kernel() const { return graph ? AdamKernel::Fused : adam; }
  // The technique segments of id(), in canonical order ("ddp-2", "acc4", "adam-fused", ...).
  std::vector<std::string> technique_segments() const;
};

// Appends `config` unless an equal one is there already (lists keep first-seen order).
void add_unique(std::vector<Config>& configs, const Config& config);

std::string to_string(DeviceKind device);
std::string to_string(Precision precision);
std::string to_string(HostMemory memory);
std::string to_string(ParallelMode mode);  // "single", "dp", "ddp", "zero1", "zero2", "fsdp"
std::string to_string(AdamKernel kernel);  // "loop", "adam-foreach", "adam-fused"

}  // namespace gpubench
