#include "core/config/stack_parts.h"

#include <algorithm>

#include "core/config/errors.h"

namespace gpubench {
namespace {

bool starts_with(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

// The precision a part names, or fp32 when it names none.
bool precision_part(const std::string& part, Precision& precision) {
  for (const Precision p : {Precision::Bf16, Precision::AmpFp16, Precision::AmpBf16, Precision::Tf32, Precision::Fp8})
    if (part == to_string(p)) {
      precision = p;
      return true;
    }
  return false;
}

}  // namespace

Config plain_config(const std::string& workload, DeviceKind device) {
  Config config;
  config.workload = workload;
  config.device = device;
  config.host_memory = device == DeviceKind::Cuda ? HostMemory::Pinned : HostMemory::Pageable;
  return config;
}

std::vector<std::string> stack_parts(const Config& config) {
  std::vector<std::string> parts;
  if (config.precision != Precision::Fp32) parts.push_back(to_string(config.precision));
  for (const auto& segment : config.technique_segments()) {
    // A graph replays fused Adam: the part is there although the id does not print it.
    if (segment == "graph" && std::find(parts.begin(), parts.end(), "adam-fused") == parts.end())
      parts.push_back("adam-fused");
    parts.push_back(segment);
  }
  return parts;
}

Config without_part(Config config, const std::string& part) {
  Precision precision = Precision::Fp32;
  if (precision_part(part, precision)) {
    if (config.precision == precision) config.precision = precision == Precision::Fp8 ? Precision::AmpBf16 : Precision::Fp32;
  } else if (part == "dp" || starts_with(part, "ddp-") || starts_with(part, "zero1-") || starts_with(part, "zero2-") ||
             starts_with(part, "fsdp-")) {
    config.parallel = ParallelMode::Single;
    config.world_size = 1;
    config.expert_parallel = 1;  // ep-K borrows the mode's ranks
  } else if (starts_with(part, "ep-")) {
    config.expert_parallel = 1;
  } else if (starts_with(part, "acc")) {
    config.accumulate = 1;
  } else if (part == "adam-foreach" || part == "adam-fused") {
    if (to_string(config.adam) == part) config.adam = AdamKernel::Loop;
  } else if (part == "channels-last") {
    config.channels_last = false;
  } else if (part == "ckpt") {
    config.checkpoint = false;
  } else if (part == "graph" && config.graph) {
    config.graph = false;
    config.adam = AdamKernel::Fused;  // the same kernels, launched one by one
  }
  return config;
}

Config with_part(Config config, const std::string& part) {
  // The id grammar decides what a word means: the part is parsed as a segment of an id.
  Precision precision = Precision::Fp32;
  if (precision_part(part, precision)) {
    config.precision = precision;
    return config;
  }
  // ep-K alone is no id (it needs a multi-rank mode): parsed beside ddp-K, which it keeps.
  const bool expert_part = starts_with(part, "ep-");
  const Config parsed = Config::parse("x/cuda/fp32/" + (expert_part ? "ddp-" + part.substr(3) + "/" : std::string()) + part);
  if (expert_part) {
    config.expert_parallel = parsed.expert_parallel;
    return config;
  }
  if (parsed.parallel != ParallelMode::Single) {
    config.parallel = parsed.parallel;
    config.world_size = parsed.world_size;
  }
  if (parsed.expert_parallel > 1) config.expert_parallel = parsed.expert_parallel;
  if (parsed.accumulate > 1) config.accumulate = parsed.accumulate;
  if (parsed.adam != AdamKernel::Loop) config.adam = parsed.adam;
  config.channels_last = config.channels_last || parsed.channels_last;
  config.checkpoint = config.checkpoint || parsed.checkpoint;
  config.graph = config.graph || parsed.graph;
  return config;
}

}  // namespace gpubench
