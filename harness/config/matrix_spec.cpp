#include "config/matrix_spec.h"

#include <algorithm>
#include <functional>
#include <sstream>

#include "config/errors.h"
#include "io/text_parts.h"

namespace gpubench {
namespace {

// Every technique of the mission, for one workload. Order is the report's row order:
// baselines first so a reader sees what each technique is compared against.
std::vector<Config> techniques(const std::string& workload, const MatrixRequest& request) {
  auto make = [&](DeviceKind device, Precision precision, HostMemory memory, ParallelMode mode, int ranks,
                  Variant variant = Variant::None) {
    Config config;
    config.workload = workload;
    config.device = device;
    config.precision = precision;
    config.host_memory = memory;
    config.parallel = mode;
    config.world_size = ranks;
    config.variant = variant;
    return config;
  };
  const int gpu_ranks = std::max(1, request.cuda_devices);
  using D = DeviceKind;
  using P = Precision;
  using H = HostMemory;
  using M = ParallelMode;
  using V = Variant;
  // The tuning variants where they matter: channels_last for the image models' 4-d activations;
  // multi-tensor Adam on every GPU config (LibTorch's loop launches ~10 kernels per
  // parameter per step), on the CPU only where the optimizer is a visible share of the step
  // (mlp 15%; cnn 0.3% and transformer 1% would measure nothing but time: their ids still
  // run when named).
  const Variant adam_variants[] = {V::AdamForeach, V::AdamFused};
  const bool images = is_image_workload(workload);
  std::vector<Config> configs = {
      make(D::Cpu, P::Fp32, H::Pageable, M::Single, 1),
      make(D::Cpu, P::Bf16, H::Pageable, M::Single, 1),
      make(D::Cpu, P::Fp32, H::Pageable, M::Ddp, request.cpu_ddp_ranks),
  };
  if (images) configs.push_back(make(D::Cpu, P::Fp32, H::Pageable, M::Single, 1, V::ChannelsLast));
  for (const Variant variant : adam_variants)
    if (workload == "mlp") configs.push_back(make(D::Cpu, P::Fp32, H::Pageable, M::Single, 1, variant));
  const std::vector<Config> gpu = {
      make(D::Cuda, P::Fp32, H::Pageable, M::Single, 1),
      make(D::Cuda, P::Fp32, H::Pinned, M::Single, 1),
      make(D::Cuda, P::AmpFp16, H::Pinned, M::Single, 1),
      make(D::Cuda, P::AmpBf16, H::Pinned, M::Single, 1),
      make(D::Cuda, P::Tf32, H::Pinned, M::Single, 1),
      make(D::Cuda, P::Fp32, H::Pinned, M::DataParallel, 1),
      make(D::Cuda, P::Fp32, H::Pinned, M::Ddp, gpu_ranks),
  };
  configs.insert(configs.end(), gpu.begin(), gpu.end());
  // FP8 matmuls in gpt2's Linear layers, against its amp-bf16 row (fp8_vs_bf16).
  if (workload == "gpt2") configs.push_back(make(D::Cuda, P::Fp8, H::Pinned, M::Single, 1));
  if (images) configs.push_back(make(D::Cuda, P::Fp32, H::Pinned, M::Single, 1, V::ChannelsLast));
  for (const Variant variant : adam_variants) configs.push_back(make(D::Cuda, P::Fp32, H::Pinned, M::Single, 1, variant));
  // PyTorch's AMP + fused path (the kernel unscales), and the step as one CUDA Graph
  // (compared with the eager fused-Adam row: the same kernels, launched one by one).
  configs.push_back(make(D::Cuda, P::AmpFp16, H::Pinned, M::Single, 1, V::AdamFused));
  configs.push_back(make(D::Cuda, P::Fp32, H::Pinned, M::Single, 1, V::CudaGraph));
  // Gradient accumulation (4 micro-batches per optimizer step) against its plain row: on
  // the GPU for every workload (where a large global batch must fit), on the CPU for mlp.
  const auto accumulating = [](Config config) {
    config.accumulate = 4;
    return config;
  };
  if (workload == "mlp") configs.push_back(accumulating(make(D::Cpu, P::Fp32, H::Pageable, M::Single, 1)));
  // Activation checkpointing where a model has segments to recompute (resnet50's stages,
  // gpt2's blocks): memory against time, on both devices.
  if (workload == "resnet50" || workload == "gpt2") {
    configs.push_back(make(D::Cpu, P::Fp32, H::Pageable, M::Single, 1, V::ActivationCheckpoint));
    configs.push_back(make(D::Cuda, P::Fp32, H::Pinned, M::Single, 1, V::ActivationCheckpoint));
  }
  configs.push_back(accumulating(make(D::Cuda, P::Fp32, H::Pinned, M::Single, 1)));
  return configs;
}

using GroupFilter = std::function<bool(const Config&)>;

const std::vector<std::pair<std::string, GroupFilter>>& groups() {
  static const std::vector<std::pair<std::string, GroupFilter>> table = {
      {"all", [](const Config&) { return true; }},
      {"cpu", [](const Config& c) { return c.device == DeviceKind::Cpu; }},
      {"gpu", [](const Config& c) { return c.device == DeviceKind::Cuda; }},
      // fp32 baselines are included so every mixed-precision row has its comparison.
      {"amp", [](const Config& c) { return c.accumulate == 1 && c.parallel == ParallelMode::Single && c.variant == Variant::None && c.precision != Precision::Tf32 && (c.device == DeviceKind::Cpu || c.host_memory == HostMemory::Pinned); }},
      {"pinned", [](const Config& c) { return c.accumulate == 1 && c.device == DeviceKind::Cuda && c.precision == Precision::Fp32 && c.parallel == ParallelMode::Single && c.variant == Variant::None; }},
      // single-process baselines are included so dp and ddp rows have their comparison.
      {"parallel", [](const Config& c) { return c.accumulate == 1 && c.precision == Precision::Fp32 && c.variant == Variant::None && (c.device == DeviceKind::Cpu || c.host_memory == HostMemory::Pinned); }},
      // The tuning knobs (fused/foreach Adam, channels_last, TF32, CUDA Graphs, gradient
      // accumulation) with the rows they are compared against.
      {"tuning", [](const Config& c) { return c.parallel == ParallelMode::Single && (c.precision == Precision::Fp32 || c.precision == Precision::Tf32 || (c.precision == Precision::AmpFp16 && c.device == DeviceKind::Cuda)) && (c.device == DeviceKind::Cpu || c.host_memory == HostMemory::Pinned); }},
  };
  return table;
}

// The items of a --matrix list, blanks around them trimmed. An empty item ("a,", ",",
// "a,,b") is refused, whichever place it is in: it is a typo, never a request.
std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text + ",");
  std::string item;
  while (std::getline(stream, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item.empty() && !text.empty())
      throw UsageError("--matrix '" + text + "' has an empty item (a comma at an end, or two together): expected a "
                       "comma list of groups or config ids");
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

void add_unique(std::vector<Config>& configs, const Config& config) {
  if (std::find(configs.begin(), configs.end(), config) == configs.end()) configs.push_back(config);
}

}  // namespace

const std::vector<std::string>& matrix_groups() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& group : groups()) out.push_back(group.first);
    return out;
  }();
  return names;
}

std::vector<std::string> named_config_ids(const std::string& spec) {
  std::vector<std::string> ids;
  for (const auto& item : split_list(spec))
    if (item.find('/') != std::string::npos) ids.push_back(Config::parse(item).id());
  return ids;
}

std::vector<Config> expand_matrix(const MatrixRequest& request) {
  const auto items = split_list(request.spec);
  if (items.empty())
    throw UsageError("--matrix '" + request.spec + "' is empty: expected all, a group (" + join_text(matrix_groups(), ", ") +
                     ") or a comma list of config ids");
  for (const auto& workload : request.workloads)
    if (std::find(request.known_workloads.begin(), request.known_workloads.end(), workload) ==
        request.known_workloads.end())
      throw UsageError("--workload '" + workload + "' is unknown: expected one of " + join_text(request.known_workloads, ", "));

  std::vector<Config> configs;
  for (const auto& item : items) {
    const auto group = std::find_if(groups().begin(), groups().end(), [&](const auto& g) { return g.first == item; });
    if (group != groups().end()) {
      for (const auto& workload : request.workloads)
        for (const auto& config : techniques(workload, request))
          if (group->second(config)) add_unique(configs, config);
      continue;
    }
    if (item.find('/') == std::string::npos)
      throw UsageError("--matrix item '" + item + "' is neither a group (" + join_text(matrix_groups(), ", ") +
                       ") nor a config id like mlp/cpu/fp32");
    const Config config = Config::parse(item);
    if (std::find(request.known_workloads.begin(), request.known_workloads.end(), config.workload) ==
        request.known_workloads.end())
      throw UsageError("config id '" + item + "': workload '" + config.workload + "' is unknown, expected one of " +
                       join_text(request.known_workloads, ", "));
    add_unique(configs, config);
  }
  if (request.accumulate > 1) {
    std::vector<Config> accumulating;
    for (Config config : configs) {
      if (config.accumulate == 1 && config.variant != Variant::CudaGraph) config.accumulate = request.accumulate;
      add_unique(accumulating, config);
    }
    configs = std::move(accumulating);
  }
  return configs;
}

}  // namespace gpubench
