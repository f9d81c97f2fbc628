#pragma once
#include <cstdint>
#include <map>
#include <string>

namespace gpubench {

enum class Preset { Quick, Default, Full };

std::string to_string(Preset preset);
Preset parse_preset(const std::string& text);  // throws UsageError

// --host-malloc: how glibc's allocator keeps freed tensor memory (device/host_malloc.h).
enum class HostMalloc { Retain, Glibc };
std::string to_string(HostMalloc mode);
HostMalloc parse_host_malloc(const std::string& text);  // throws UsageError

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
