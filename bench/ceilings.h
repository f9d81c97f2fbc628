#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace gpubench {

// The machine's measured ceilings, distilled from gpubench-bench's Google Benchmark JSON
// so that the training report can say how close each config gets to them. Format
// version 1 (bench/README.md has the long form):
//
// {
//   "format": "gpubench-ceilings", "format_version": 1, "source": "gpubench-bench",
//   "context": { Google Benchmark's context: date, host_name, num_cpus, torch_threads, ... },
//   "h2d_pinned_gb_per_s": 24.1, "h2d_pageable_gb_per_s": 9.8,
//   "d2h_pinned_gb_per_s": 25.0, "d2h_pageable_gb_per_s": 7.2, "d2d_gb_per_s": 3900.0,
//   "matmul_tflops": {"cpu": {"fp32": 0.05, "bf16": 0.01},
//                     "cuda": {"fp32": 50, "tf32": 400, "fp16": 700, "bf16": 700}},
//   "allreduce_busbw_gb_per_s": {"gloo": 2.1, "nccl": 300},
//   "allreduce_algbw_gb_per_s": {"gloo": 2.1, "nccl": 150},
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
// the benchmark run that set it. An all-reduce whose results were wrong never sets one.

// Google Benchmark JSON (--benchmark_out_format=json, 1.7 or later) -> ceilings.
// Throws UsageError when `benchmark_output` is not Google Benchmark JSON.
nlohmann::json distil_ceilings(const nlohmann::json& benchmark_output);

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
