#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gpubench {

enum class Preset { Quick, Default, Full };

std::string to_string(Preset preset);
Preset parse_preset(const std::string& text);  // throws UsageError

// --host-malloc: how glibc's allocator keeps freed tensor memory (device/host_malloc.h).
enum class HostMalloc { Retain, Glibc };
std::string to_string(HostMalloc mode);
HostMalloc parse_host_malloc(const std::string& text);  // throws UsageError

// --checkpoint-check: where the checkpoint round trip (save model + Adam state, load,
// compare) runs. Auto: every config of a model under kCheckpointEveryBelowParameters
// parameters, once per workload above (a 1.2B model's round trip writes 15 GB).
enum class CheckpointPolicy { Auto, Every, Once, Off };
std::string to_string(CheckpointPolicy policy);
CheckpointPolicy parse_checkpoint_policy(const std::string& text);  // throws UsageError
constexpr std::int64_t kCheckpointEveryBelowParameters = 300'000'000;

// --expert-gemms: how a mixture of experts computes its routed experts (workloads/
// grouped_experts.h). Auto: torch::_grouped_mm where LibTorch fuses it into one kernel (CUDA
// sm90/sm100, bf16), a loop of one GEMM per expert elsewhere; the others force either.
enum class ExpertGemms { Auto, Grouped, Loop };
std::string to_string(ExpertGemms gemms);
ExpertGemms parse_expert_gemms(const std::string& text);  // throws UsageError

// What every config of one matrix run shares. Zero means "the workload's preset value".
struct RunSettings {
  Preset preset = Preset::Default;
  int steps = 0;          // measured steps
  int warmup = -1;        // excluded steps; -1 = preset value
  int batch_size = 0;     // per process
  int threads = 0;        // intra-op threads; 0 = all cores
  int workers = 0;        // DataLoader worker threads
  HostMalloc host_malloc = HostMalloc::Retain;
  std::uint64_t seed = 42;
  // --data: real data per workload (mlp: MNIST IDX folder, resnet50: ImageFolder tree,
  // gpt2: train.bin); a workload without an entry trains on synthetic data. The key ""
  // holds a --data PATH that named no workload until the matrix says which one it is for.
  std::map<std::string, std::string> data_paths;
  // --max-image-pixels: an ImageFolder image above it is refused from its header, a file
  // above 3 bytes per pixel of it plus 16 MiB unread; 0 = kDefaultMaxImagePixels
  // (workloads/data/image_decode.h).
  std::int64_t max_image_pixels = 0;
  // --model NAME=PATH: a decoder LM from a Hugging Face config.json (PATH its folder or the
  // file) added to the run as workload NAME (workloads/model_registry.h).
  std::map<std::string, std::string> model_paths;
  // --seq-len [NAME=]N: tokens per sample of the decoder LMs ("" = every one of them).
  std::map<std::string, std::int64_t> seq_lens;
  bool random_weights = false;  // --weights random: a --model's safetensors are not loaded
  ExpertGemms expert_gemms = ExpertGemms::Auto;
  // A TorchScript --model's task: --input NAME=CxHxW with --classes NAME=N (classification),
  // or --vocab NAME=N (language modelling, --seq-len NAME=T); --flops-per-sample NAME=F.
  std::map<std::string, std::vector<std::int64_t>> model_inputs;
  std::map<std::string, std::int64_t> model_classes, model_vocabs;
  std::map<std::string, double> model_flops;
  CheckpointPolicy checkpoint_policy = CheckpointPolicy::Auto;
  // Child side: why the parent (run/checkpoint_plan.h) left this config's round trip out;
  // empty: it runs.
  std::string checkpoint_skip_reason;
  double config_timeout_s = 1800;
  // DDP
  double bucket_mb = 25;        // gradient bucket cap (PyTorch's bucket_cap_mb)
  double comm_timeout_s = 60;   // bound on rendezvous, every collective wait, the final gather
  // Profiling
  std::string profile_steps;  // "A:B": cudaProfilerStart/Stop around these steps
  bool cupti = true;          // CUPTI activity collection on CUDA configs
  // Every phase of a CUDA step ends with a stream sync (attribution), instead of running as
  // a Python loop runs: no sync inside a step, the loss read a step late (the default).
  bool sync_phases = false;
  // --oversubscribe: a named CPU config of more ranks than cores runs (its rows say their
  // timings are the scheduler's, not the machine's) instead of being refused.
  bool oversubscribe = false;
  std::string trace_path;     // child side: where to hand its trace spans to the parent
  std::string hta_dir;        // --hta-dir: every rank writes its config's Kineto-style trace here
  // Child side: the parent's private directory (where --child-result lies). Scratch files
  // (the checkpoint round trip) go in a directory under it, so a child killed mid-write
  // leaves nothing the parent does not remove.
  std::string scratch_dir;
  // --overhead: alternate bare and instrumented steps, report what the probes cost.
  bool overhead = false;
  // Test-only (hidden flag): sleep this long in every forward phase, a known slowdown for
  // the end-to-end regression test of `gpubench compare`.
  double test_step_delay_ms = 0;
};

// The preset's scale: how long to measure and how large a dataset. Models and batch
// sizes never change. A config measures at least min_steps, then stops when its median is
// known within ±2% (95% CI) or the time budget is spent, at most max_steps.
struct PresetScale {
  int warmup;
  int min_steps;
  int max_steps;
  double budget_s;       // measured time per config
  double dataset_scale;  // multiplies each workload's base dataset size
};
PresetScale preset_scale(Preset preset);

}  // namespace gpubench
