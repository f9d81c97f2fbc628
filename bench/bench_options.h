#pragma once
#include <string>
#include <vector>

namespace gpubench::bench {

// gpubench-bench's own flags, separated from Google Benchmark's (--benchmark_*), which
// pass through untouched.
struct BenchOptions {
  std::string ceilings_out;   // --ceilings-out FILE: distil the run into a ceilings file
  std::string distil_from;    // --distil FILE: only convert an existing Google Benchmark JSON
  int torch_threads = 0;      // --torch-threads N: LibTorch intra-op threads, 0 = all cores (as gpubench)
  std::string benchmark_out;  // --benchmark_out as given, empty if not
  std::string benchmark_out_format = "json";
  std::vector<std::string> benchmark_args;  // argv[0] and every other argument, for benchmark::Initialize
};

// Throws UsageError naming the bad flag or value.
BenchOptions parse_bench_options(int argc, char** argv);

// For a --ceilings-out run: makes Google Benchmark write JSON (FILE.benchmark.json beside
// the ceilings unless --benchmark_out was given) and returns the path it will write.
// Throws UsageError if --benchmark_out_format asks for something other than json.
std::string ensure_json_output(BenchOptions& options);

// Printed after Google Benchmark's own --help.
void print_bench_help();

}  // namespace gpubench::bench
