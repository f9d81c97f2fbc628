#pragma once
// --assume-gpus COUNTxSIZE (cli/gpu_plan.h plans with it): the GPUs a --list plans for.
#include <string>

namespace gpubench {

struct AssumedGpus {
  int count = 0;
  double bytes_each = 0;
  std::string text;  // as given ("8x80GiB")
};

// "8x80GiB", "4x40GB", "2x24576MiB" (GiB/MiB/TiB binary, GB/MB/TB decimal; a whole or
// decimal size). Throws UsageError naming the text and the form expected.
AssumedGpus parse_assumed_gpus(const std::string& text);

}  // namespace gpubench
