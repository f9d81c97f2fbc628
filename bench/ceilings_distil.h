#pragma once
#include <nlohmann/json.hpp>

namespace gpubench {

// Google Benchmark JSON (--benchmark_out_format=json, 1.7 or later) of gpubench-bench ->
// a ceilings file (ceilings/ceilings_file.h has the format). The benchmarks' names are the
// contract: area/what.../arg:value (bench/*_bench.cpp register them; the smoke test checks
// it end to end). Throws UsageError when `benchmark_output` is not Google Benchmark JSON.
nlohmann::json distil_ceilings(const nlohmann::json& benchmark_output);

}  // namespace gpubench
