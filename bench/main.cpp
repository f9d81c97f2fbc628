// gpubench-bench: Google Benchmark microbenchmarks of this machine's ceilings (copies,
// matmul, collectives, data loading, training steps), with the standard --benchmark_*
// flags, and --ceilings-out to distil the run into the file `gpubench --ceilings` reads.
#include <iostream>

#include <benchmark/benchmark.h>
#include <torch/torch.h>
#include <torch/version.h>

#include "bench/collective_session.h"
#include "bench/bench_options.h"
#include "bench/ceilings_distil.h"
#include "harness/ceilings/ceilings_file.h"
#include "bench/cuda_availability.h"
#include "bench/registrations.h"
#include "core/config/errors.h"
#include "core/io/atomic_file.h"
#include "harness/run/config_sizes.h"

namespace {

using namespace gpubench;

void print_help() {
  benchmark::PrintDefaultHelp();
  bench::print_bench_help();
}

void distil_file(const std::string& benchmark_json, const std::string& ceilings_out) {
  nlohmann::json output;
  try {
    output = nlohmann::json::parse(read_file(benchmark_json, "Google Benchmark output"));
  } catch (const nlohmann::json::parse_error& error) {
    throw UsageError("Google Benchmark output '" + benchmark_json + "' is not JSON: " + error.what());
  }
  write_ceilings(ceilings_out, distil_ceilings(output));
  std::cerr << "gpubench-bench: wrote ceilings to " << ceilings_out << "\n";
}

// What the report needs to judge the numbers: who measured, with how many threads, on what.
void add_context(int threads) {
  benchmark::AddCustomContext("gpubench_version", GPUBENCH_VERSION);
  benchmark::AddCustomContext("torch_version", TORCH_VERSION);
  benchmark::AddCustomContext("torch_threads", std::to_string(threads));
  const auto reason = bench::cudart_unavailable_reason();
  benchmark::AddCustomContext("cuda", reason ? *reason : "available");
}

int run(int argc, char** argv) {
  bench::BenchOptions options = bench::parse_bench_options(argc, argv);
  if (!options.distil_from.empty()) {
    distil_file(options.distil_from, options.ceilings_out);
    return 0;
  }
  std::string benchmark_json;
  if (!options.ceilings_out.empty()) {
    check_writable(options.ceilings_out, "--ceilings-out");  // fail now, not after the run
    benchmark_json = bench::ensure_json_output(options);
  }

  std::vector<char*> benchmark_argv;
  for (auto& argument : options.benchmark_args) benchmark_argv.push_back(argument.data());
  int benchmark_argc = static_cast<int>(benchmark_argv.size());
  benchmark_argv.push_back(nullptr);
  benchmark::Initialize(&benchmark_argc, benchmark_argv.data(), print_help);
  if (benchmark::ReportUnrecognizedArguments(benchmark_argc, benchmark_argv.data())) return 2;

  add_context(apply_thread_setting(options.torch_threads));
  bench::register_copy_benchmarks();
  bench::register_matmul_benchmarks();
  bench::register_collective_benchmarks();
  bench::register_loader_benchmarks();
  bench::register_train_step_benchmarks();
  benchmark::RunSpecifiedBenchmarks();  // closes --benchmark_out as it returns
  benchmark::Shutdown();
  bench::shutdown_collective_sessions();

  if (!benchmark_json.empty()) distil_file(benchmark_json, options.ceilings_out);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // A collective benchmark's peer rank: this executable started again by PeerProcess.
  if (argc >= 2 && std::string(argv[1]) == bench::kCollectivePeerFlag)
    return bench::run_collective_peer(std::vector<std::string>(argv + 2, argv + argc));
  try {
    return run(argc, argv);
  } catch (const UsageError& error) {
    std::cerr << "gpubench-bench: " << error.what() << "\n";
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "gpubench-bench: " << error.what() << "\n";
    return 1;
  }
}
