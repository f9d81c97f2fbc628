#include "harness/run/capability.h"

#include <algorithm>
#include <fstream>
#include <thread>

#include "core/config/technique_rules.h"
#include "core/device/host_memory_limit.h"
#include "harness/run/memory_check.h"
#include "core/device/torch_cuda.h"
#include "workloads/workload.h"

namespace gpubench {
namespace {

// The CUDA part: why this machine or build cannot run a cuda config, if it cannot.
std::optional<std::string> cuda_skip_reason(const Config& config, const MachineCapabilities& machine) {
  // LibTorch's own reason: the library that would run the config says why it cannot.
  if (machine.torch_cuda_unavailable) return machine.torch_cuda_unavailable;
  const int devices = machine.cuda.device_count;
  if (config.multi_rank() && config.world_size > devices)
    return to_string(config.parallel) + "-" + std::to_string(config.world_size) + " needs " + std::to_string(config.world_size) +
           " CUDA devices (one per rank); this machine has " + std::to_string(devices);
  // Every config computes on cuda:0 or, a DDP rank, on a device like it: cuda:0's capability decides.
  if (const auto need = minimum_compute_capability(config.precision); need && !machine.cuda.devices.empty()) {
    const GpuInfo& gpu = machine.cuda.devices.front();
    if (!need->met_by(gpu.compute_major, gpu.compute_minor))
      return to_string(config.precision) + " needs " + need->what + " (compute capability " + need->text() +
             "+); cuda:0 " + gpu.name + " is " + std::to_string(gpu.compute_major) + "." + std::to_string(gpu.compute_minor);
  }
  // DataParallel runs on however many devices there are, one included (the result
  // records the count in result["parallel"]["devices"]), except what the table's Machine
  // rules refuse on several.
  return machine_rule_broken(config, devices);
}

// The kernel's CPU flags (x86: /proc/cpuinfo's "flags" line).
bool cpu_has_bf16_units() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("flags", 0) == 0) return (line + " ").find(" avx512_bf16 ") != std::string::npos ||
                                              (line + " ").find(" amx_bf16 ") != std::string::npos;
  return false;
}

}  // namespace

std::optional<ComputeCapability> minimum_compute_capability(Precision precision) {
  if (precision == Precision::AmpBf16) return ComputeCapability{8, 0, "bfloat16 support"};
  if (precision == Precision::Tf32) return ComputeCapability{8, 0, "TF32 tensor cores"};
  if (precision == Precision::Fp8) return ComputeCapability{8, 9, "FP8 tensor cores (Ada, Hopper, Blackwell)"};
  return std::nullopt;
}

MachineCapabilities detect_capabilities() {
  MachineCapabilities machine;
  machine.cuda = query_cuda_runtime();
  machine.torch_cuda_unavailable = torch_cuda_unavailable_reason();
  machine.cpu_cores = std::max(1u, std::thread::hardware_concurrency());
  machine.cpu_bf16_units = cpu_has_bf16_units();
  if (const auto limit = host_memory_limit()) {
    machine.host_available_bytes = static_cast<double>(limit->available_bytes);
    machine.host_available_source = limit->source;
  }
  return machine;
}

std::optional<std::string> skip_reason(const Config& config, const MachineCapabilities& machine) {
  if (config.device == DeviceKind::Cuda)
    if (auto reason = cuda_skip_reason(config, machine)) return reason;
  // CPU ranks share the machine's cores (each gets cores / N threads): more ranks than
  // cores would measure the scheduler, and a thousand would exhaust memory before the first step.
  if (config.device == DeviceKind::Cpu && config.multi_rank() && config.world_size > machine.cpu_cores)
    return to_string(config.parallel) + "-" + std::to_string(config.world_size) + " needs " + std::to_string(config.world_size) +
           " CPU processes, one core each; this machine has " + std::to_string(machine.cpu_cores) + " cores";
  return std::nullopt;
}


std::optional<std::string> skip_reason(const Config& config, const MachineCapabilities& machine,
                                       const RunSettings& settings) {
  // --oversubscribe lets a CPU config of more ranks than cores run (the matrix names it:
  // a group never holds one).
  const bool oversubscribed = settings.oversubscribe && config.device == DeviceKind::Cpu && config.multi_rank() &&
                              config.world_size > machine.cpu_cores;
  if (auto reason = skip_reason(config, machine); reason && !oversubscribed) return reason;
  // A group's row the workload cannot take (a TorchScript module's dp): skipped, saying why
  // (a named id is refused before the run: config/matrix_spec.h).
  if (auto reason = workload_rule_broken(config, make_workload(config.workload)->traits())) return reason;
  return host_memory_fit(config, settings, machine.host_available_bytes, machine.host_available_source).refusal;
}

std::optional<std::string> left_out_of_groups(const Config& config, const MachineCapabilities& machine,
                                              bool workload_named) {
  if (config.device != DeviceKind::Cpu || !make_workload(config.workload)->real_scale()) return std::nullopt;
  if (config.precision == Precision::Bf16 && !machine.cpu_bf16_units)
    return "this CPU has no bfloat16 units (no avx512_bf16 or amx_bf16 flag): LibTorch's bf16 matmuls take a slow "
           "path, many times slower than fp32, and a " + config.workload + " step would run for minutes; name " +
           config.id() + " to run it anyway";
  if (!workload_named && (machine.torch_cuda_unavailable || machine.cuda.device_count == 0))
    return config.workload + " is a real-scale workload whose CPU steps take seconds: on a machine without a usable "
           "GPU the groups leave its CPU configs out; ask for them with --workload " + config.workload + " or name " +
           config.id();
  return std::nullopt;
}

}  // namespace gpubench
