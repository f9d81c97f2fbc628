#include "bench/bench_options.h"

#include <cstdio>

#include "core/config/errors.h"

namespace gpubench::bench {
namespace {

// "--name=value" or "--name value"; advances `index` past a separate value.
bool take_flag(const std::vector<std::string>& arguments, std::size_t& index, const std::string& name,
               std::string& value) {
  const std::string& argument = arguments[index];
  if (argument.rfind(name + "=", 0) == 0) {
    value = argument.substr(name.size() + 1);
  } else if (argument == name) {
    if (index + 1 >= arguments.size()) throw UsageError(name + " needs a value");
    value = arguments[++index];
  } else {
    return false;
  }
  if (value.empty()) throw UsageError(name + " needs a non-empty value");
  return true;
}

int parse_threads(const std::string& text) {
  std::size_t used = 0;
  int value = -1;
  try {
    value = std::stoi(text, &used);
  } catch (const std::exception&) {
  }
  if (used != text.size() || value < 0)
    throw UsageError("--torch-threads '" + text + "' is not a count: expected an integer >= 0 (0 = all cores)");
  return value;
}

}  // namespace

BenchOptions parse_bench_options(int argc, char** argv) {
  const std::vector<std::string> arguments(argv, argv + argc);
  BenchOptions options;
  options.benchmark_args.push_back(arguments.empty() ? "gpubench-bench" : arguments[0]);
  for (std::size_t i = 1; i < arguments.size(); ++i) {
    std::string value;
    if (take_flag(arguments, i, "--ceilings-out", value)) {
      options.ceilings_out = value;
    } else if (take_flag(arguments, i, "--distil", value)) {
      options.distil_from = value;
    } else if (take_flag(arguments, i, "--torch-threads", value)) {
      options.torch_threads = parse_threads(value);
    } else {
      // Google Benchmark's flags are always --name=value; note the output ones, pass all on.
      const std::string& argument = arguments[i];
      if (argument.rfind("--benchmark_out=", 0) == 0) options.benchmark_out = argument.substr(16);
      if (argument.rfind("--benchmark_out_format=", 0) == 0) options.benchmark_out_format = argument.substr(23);
      options.benchmark_args.push_back(argument);
    }
  }
  if (!options.distil_from.empty() && options.ceilings_out.empty())
    throw UsageError("--distil needs --ceilings-out FILE to say where the ceilings go");
  return options;
}

std::string ensure_json_output(BenchOptions& options) {
  if (options.benchmark_out_format != "json")
    throw UsageError("--benchmark_out_format=" + options.benchmark_out_format +
                     " cannot be distilled into ceilings: use json (the default with --ceilings-out)");
  if (options.benchmark_out.empty()) {
    options.benchmark_out = options.ceilings_out + ".benchmark.json";
    options.benchmark_args.push_back("--benchmark_out=" + options.benchmark_out);
    options.benchmark_args.push_back("--benchmark_out_format=json");
  }
  return options.benchmark_out;
}

void print_bench_help() {
  std::printf(
      "\ngpubench-bench flags:\n"
      "  --ceilings-out=FILE   after the run, distil its JSON into a ceilings file for\n"
      "                        `gpubench --ceilings FILE` (raw JSON kept in FILE.benchmark.json\n"
      "                        unless --benchmark_out is given)\n"
      "  --distil=FILE         run nothing: distil an existing --benchmark_out JSON into\n"
      "                        --ceilings-out\n"
      "  --torch-threads=N     LibTorch intra-op threads (default 0 = all cores, as gpubench)\n");
}

}  // namespace gpubench::bench
