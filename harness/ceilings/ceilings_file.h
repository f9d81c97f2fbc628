#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpubench {

// The ceilings file: the machine's measured ceilings, which gpubench-bench writes
// (bench/ceilings_distil.h distils them from its Google Benchmark JSON) and the training
// report and the CLI read, so that each config says how close it gets to them. Its format,
// reader and writer live here, below both. Format version 1 (bench/README.md has the long
// form):
//
// {
//   "format": "gpubench-ceilings", "format_version": 1, "source": "gpubench-bench",
//   "context": { Google Benchmark's context: date, host_name, num_cpus, torch_threads, ... },
//   "h2d_pinned_gb_per_s": 24.1, "h2d_pageable_gb_per_s": 9.8,
//   "d2h_pinned_gb_per_s": 25.0, "d2h_pageable_gb_per_s": 7.2, "d2d_gb_per_s": 3900.0,
//   "matmul_tflops": {"cpu": {"fp32": 0.05, "bf16": 0.01},
//                     "cuda": {"fp32": 50, "tf32": 400, "fp16": 700, "bf16": 700, "fp8": 1400}},
//   "allreduce_busbw_gb_per_s": {"gloo": 2.1, "nccl": 300},
//   "allreduce_algbw_gb_per_s": {"gloo": 2.1, "nccl": 150},
//   "allgather_busbw_gb_per_s": {...}, "allgather_algbw_gb_per_s": {...},           // by backend too
//   "reducescatter_busbw_gb_per_s": {...}, "reducescatter_algbw_gb_per_s": {...},
//   "loader_samples_per_s": {"mlp": {"0": 9e5, "1": 8e5, "2": 1.1e6}, ...},   // by worker count
//   "train_step_samples_per_s": {"cpu": {"mlp": 2e4, "cnn": 900, "transformer": 60}, "cuda": {...}},
//   "from": {"d2d_gb_per_s": "copy/d2d/bytes:1073741824/manual_time", ...},
//   "skipped": {"h2d_pinned_gb_per_s": "no CUDA device: ...", "matmul_tflops.cuda.fp16": "..."}
// }
//
// Units are in the key names; GB = 1e9 bytes. Every measurement is optional: a key that is
// absent was not measured, and "skipped" (keyed by the dotted path) says why when the
// benchmark ran and declined. Each value is the best over the sizes measured (a ceiling) of
// the median over repetitions (so one lucky repetition does not raise it); "from" names
// the benchmark run that set it. A collective whose results were wrong never sets one.

inline constexpr const char* kCeilingsFormat = "gpubench-ceilings";
inline constexpr int kCeilingsFormatVersion = 1;

// A ceiling is a share's denominator: positive and normal (0 gave "not in the file" later,
// a denormal an inf share), and at most kMaxCeiling (1e308 gave subnormal shares); no
// machine's GB/s, TFLOP/s or samples/s comes near it.
inline constexpr double kMaxCeiling = 1e9;
bool usable_ceiling(double value);

// The collectives with bandwidth ceilings, named as gpubench-bench's benchmarks are
// ("allreduce", "allgather", "reducescatter"): each has <name>_busbw_gb_per_s and
// <name>_algbw_gb_per_s, keyed by backend (gloo, nccl), busbw and algbw as nccl-tests
// defines them. Keys added to version 1 after all-reduce's (a reader that knows only
// all-reduce refuses them as unknown).
const std::vector<std::string>& collective_ceiling_names();

// Reads and validates a ceilings file. Throws UsageError naming the file and what is wrong
// (unreadable, not JSON, wrong format/version, unknown key, a value that is not a finite
// non-negative number).
nlohmann::json load_ceilings(const std::string& path);

// The checks load_ceilings applies; `origin` names the source in the messages.
void validate_ceilings(const nlohmann::json& ceilings, const std::string& origin);

// Writes a ceilings file atomically (never a torn file for a reader).
void write_ceilings(const std::string& path, const nlohmann::json& ceilings);

// The value at a dotted path ("h2d_pinned_gb_per_s", "matmul_tflops.cuda.bf16",
// "loader_samples_per_s.mlp.2"), or nullopt when that ceiling was not measured.
std::optional<double> find_ceiling(const nlohmann::json& ceilings, const std::string& dotted_path);

}  // namespace gpubench
