#include "core/config/matrix_spec.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <sstream>

#include "core/config/errors.h"
#include "core/config/stack_parts.h"
#include "core/io/text_parts.h"

namespace gpubench {
namespace {

// Every single technique of the mission, for one workload, each on the plain config it is
// compared with. Order is the report's row order: baselines first so a reader sees what
// each technique is compared against.
std::vector<Config> techniques(const std::string& workload, const WorkloadTraits& traits, const MatrixRequest& request) {
  const std::string gpu_ranks = std::to_string(std::max(1, request.cuda_devices));
  const std::string cpu_ranks = std::to_string(request.cpu_ddp_ranks);
  std::vector<std::string> ids = {"cpu/fp32", "cpu/bf16", "cpu/fp32/ddp-" + cpu_ranks};
  // The sharded modes beside DDP at its ranks (zero1_vs_ddp, zero2_vs_ddp, fsdp_vs_ddp);
  // fsdp where the model declares its units.
  ids.insert(ids.end(), {"cpu/fp32/zero1-" + cpu_ranks, "cpu/fp32/zero2-" + cpu_ranks});
  if (traits.units) ids.push_back("cpu/fp32/fsdp-" + cpu_ranks);
  // A mixture of experts' experts split over groups of those ranks too (ep_vs_ddp,
  // ep_vs_fsdp): K the most ranks that split both the ranks and the experts evenly (8 of 64
  // GPUs for Mixtral's 8 experts).
  const auto expert_group = [&](int ranks) { return traits.experts > 0 ? std::gcd(ranks, traits.experts) : 1; };
  if (const int k = expert_group(request.cpu_ddp_ranks); k > 1) {
    ids.push_back("cpu/fp32/ddp-" + cpu_ranks + "/ep-" + std::to_string(k));
    if (traits.units) ids.push_back("cpu/fp32/fsdp-" + cpu_ranks + "/ep-" + std::to_string(k));
  }
  // channels_last for the image models' 4-d activations; multi-tensor Adam on every GPU
  // config (LibTorch's loop launches ~10 kernels per parameter per step), on the CPU only
  // where the optimizer is a visible share of the step (mlp 15%; cnn 0.3% and transformer
  // 1% would measure nothing but time: their ids still run when named).
  if (traits.image_batches) ids.push_back("cpu/fp32/channels-last");
  if (workload == "mlp") ids.insert(ids.end(), {"cpu/fp32/adam-foreach", "cpu/fp32/adam-fused"});
  ids.insert(ids.end(), {"cuda/fp32/pageable", "cuda/fp32/pinned", "cuda/amp-fp16/pinned", "cuda/amp-bf16/pinned",
                         "cuda/tf32/pinned", "cuda/fp32/pinned/dp", "cuda/fp32/pinned/ddp-" + gpu_ranks,
                         "cuda/fp32/pinned/zero1-" + gpu_ranks, "cuda/fp32/pinned/zero2-" + gpu_ranks});
  if (traits.units) ids.push_back("cuda/fp32/pinned/fsdp-" + gpu_ranks);
  if (const int k = expert_group(std::max(1, request.cuda_devices)); k > 1) {
    ids.push_back("cuda/fp32/pinned/ddp-" + gpu_ranks + "/ep-" + std::to_string(k));
    if (traits.units) ids.push_back("cuda/fp32/pinned/fsdp-" + gpu_ranks + "/ep-" + std::to_string(k));
  }
  // FP8 matmuls in the blocks' Linear layers, against the amp-bf16 row (fp8_vs_bf16).
  if (traits.fp8_linears) ids.push_back("cuda/fp8/pinned");
  if (traits.image_batches) ids.push_back("cuda/fp32/pinned/channels-last");
  // PyTorch's AMP + fused path (the kernel unscales), and the step as one CUDA Graph
  // (compared with the eager fused-Adam row: the same kernels, launched one by one).
  ids.insert(ids.end(), {"cuda/fp32/pinned/adam-foreach", "cuda/fp32/pinned/adam-fused", "cuda/amp-fp16/pinned/adam-fused",
                         "cuda/fp32/pinned/graph"});
  // Gradient accumulation (4 micro-batches per optimizer step) against its plain row: on
  // the GPU for every workload (where a large global batch must fit), on the CPU for mlp.
  if (workload == "mlp") ids.push_back("cpu/fp32/acc4");
  // Activation checkpointing where memory is what limits the batch (the standard models):
  // memory against time, on both devices.
  if (traits.segments && traits.real_scale) ids.insert(ids.end(), {"cpu/fp32/ckpt", "cuda/fp32/pinned/ckpt"});
  ids.push_back("cuda/fp32/pinned/acc4");
  std::vector<Config> configs;
  for (const auto& id : ids) configs.push_back(Config::parse(workload + "/" + id));
  return configs;
}

std::vector<Recipe> workload_recipes(const std::string& workload, const WorkloadTraits& traits, const MatrixRequest& request) {
  std::vector<Recipe> recipes;
  for (const DeviceKind device : {DeviceKind::Cpu, DeviceKind::Cuda})
    for (auto& recipe : recipes_for(workload, traits, device, request.recipe_machine())) recipes.push_back(std::move(recipe));
  return recipes;
}

using GroupFilter = std::function<bool(const Config&)>;
bool plain_techniques(const Config& c) { return c.technique_segments().empty(); }
bool cpu_or_pinned(const Config& c) { return c.device == DeviceKind::Cpu || c.host_memory == HostMemory::Pinned; }

// The groups that pick from techniques(): a filter each.
const std::vector<std::pair<std::string, GroupFilter>>& filter_groups() {
  static const std::vector<std::pair<std::string, GroupFilter>> table = {
      {"cpu", [](const Config& c) { return c.device == DeviceKind::Cpu; }},
      {"gpu", [](const Config& c) { return c.device == DeviceKind::Cuda; }},
      // fp32 baselines are included so every mixed-precision row has its comparison.
      {"amp", [](const Config& c) { return plain_techniques(c) && c.precision != Precision::Tf32 && cpu_or_pinned(c); }},
      {"pinned", [](const Config& c) { return c.device == DeviceKind::Cuda && c.precision == Precision::Fp32 && plain_techniques(c); }},
      // single-process baselines are included so dp and ddp rows have their comparison.
      {"parallel", [](const Config& c) {
         return c.accumulate == 1 && c.precision == Precision::Fp32 && c.adam == AdamKernel::Loop && !c.channels_last &&
                !c.checkpoint && !c.graph && cpu_or_pinned(c);
       }},
      // The tuning knobs (fused/foreach Adam, channels_last, TF32, CUDA Graphs, gradient
      // accumulation) with the rows they are compared against.
      {"tuning", [](const Config& c) {
         return c.parallel == ParallelMode::Single && !c.checkpoint && cpu_or_pinned(c) &&
                (c.precision == Precision::Fp32 || c.precision == Precision::Tf32 ||
                 (c.precision == Precision::AmpFp16 && c.device == DeviceKind::Cuda));
       }},
  };
  return table;
}

// Every group's configs for one workload, by group name.
std::vector<Config> group_configs(const std::string& group, const std::string& workload, const WorkloadTraits& traits,
                                  const MatrixRequest& request) {
  std::vector<Config> configs;
  if (group == "all") {
    // Every single technique, then the single-process recipes: the best-known stack here.
    configs = techniques(workload, traits, request);
    for (const auto& recipe : workload_recipes(workload, traits, request))
      if (recipe.config.parallel == ParallelMode::Single) add_unique(configs, recipe.config);
  } else if (group == "recipes") {
    for (const DeviceKind device : {DeviceKind::Cpu, DeviceKind::Cuda}) {
      add_unique(configs, plain_config(workload, device));
      for (const auto& recipe : recipes_for(workload, traits, device, request.recipe_machine()))
        add_unique(configs, recipe.config);
    }
  } else if (group == "ablation") {
    for (const auto& recipe : workload_recipes(workload, traits, request)) {
      if (recipe.config.parallel != ParallelMode::Single) {
        add_unique(configs, recipe.config);  // against the recipe: the scaling efficiency
        // A sharded recipe beside its DDP twin (the same stack on ddp-N): the parallel
        // mode's part of the block, fsdp_vs_ddp.
        if (recipe.config.sharded()) add_unique(configs, with_part(recipe.config, "ddp-" + std::to_string(recipe.config.world_size)));
        continue;
      }
      for (const auto& config : ablation_configs(recipe)) add_unique(configs, config);
    }
  } else {
    const auto& filters = filter_groups();
    const auto filter = std::find_if(filters.begin(), filters.end(), [&](const auto& g) { return g.first == group; });
    for (const auto& config : techniques(workload, traits, request))
      if (filter->second(config)) configs.push_back(config);
  }
  return configs;
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

std::vector<std::string> known_names(const MatrixRequest& request) {
  std::vector<std::string> names;
  for (const auto& [name, traits] : request.known_workloads) names.push_back(name);
  return names;
}

// A named id: parsed, its workload known, its techniques ones the workload has.
Config named_config(const std::string& item, const MatrixRequest& request) {
  const Config config = Config::parse(item);
  const auto known = request.known_workloads.find(config.workload);
  if (known == request.known_workloads.end())
    throw UsageError("config id '" + item + "': workload '" + config.workload + "' is unknown, expected one of " +
                     join_text(known_names(request), ", "));
  if (auto broken = workload_rule_broken(config, known->second)) throw UsageError("config id '" + item + "': " + *broken);
  return config;
}

}  // namespace

RecipeMachine MatrixRequest::recipe_machine() const {
  return {cuda_devices, cuda_compute_capability, cpu_bf16_units, cpu_ddp_ranks};
}

const std::vector<std::string>& matrix_groups() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out = {"all"};
    for (const auto& group : filter_groups()) out.push_back(group.first);
    out.insert(out.end(), {"recipes", "ablation"});
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

std::vector<Recipe> matrix_recipes(const MatrixRequest& request) {
  std::vector<Recipe> recipes;
  for (const auto& workload : request.workloads) {
    const auto known = request.known_workloads.find(workload);
    if (known == request.known_workloads.end()) continue;
    for (auto& recipe : workload_recipes(workload, known->second, request)) recipes.push_back(std::move(recipe));
  }
  return recipes;
}

std::vector<Config> expand_matrix(const MatrixRequest& request) {
  const auto items = split_list(request.spec);
  if (items.empty())
    throw UsageError("--matrix '" + request.spec + "' is empty: expected all, a group (" + join_text(matrix_groups(), ", ") +
                     ") or a comma list of config ids");
  for (const auto& workload : request.workloads)
    if (!request.known_workloads.count(workload))
      throw UsageError("--workload '" + workload + "' is unknown: expected one of " + join_text(known_names(request), ", "));

  std::vector<Config> configs;
  const auto& groups = matrix_groups();
  for (const auto& item : items) {
    if (std::find(groups.begin(), groups.end(), item) != groups.end()) {
      for (const auto& workload : request.workloads)
        for (const auto& config : group_configs(item, workload, request.known_workloads.at(workload), request))
          add_unique(configs, config);
      continue;
    }
    if (item.find('/') == std::string::npos)
      throw UsageError("--matrix item '" + item + "' is neither a group (" + join_text(groups, ", ") +
                       ") nor a config id like mlp/cpu/fp32");
    add_unique(configs, named_config(item, request));
  }
  if (request.accumulate > 1) {
    // An id that names its own accK contradicts another --accumulate: refused, as --workload
    // against an id. A group's own accumulation rows take --accumulate's K.
    for (const auto& id : named_config_ids(request.spec)) {
      const Config named = Config::parse(id);
      if (named.accumulate > 1 && named.accumulate != request.accumulate)
        throw UsageError("--accumulate " + std::to_string(request.accumulate) + " contradicts config id '" + id +
                         "', which names acc" + std::to_string(named.accumulate) +
                         ": drop --accumulate or the id's accK");
    }
    std::vector<Config> accumulating;
    for (Config config : configs) {
      if (!config.graph) config.accumulate = request.accumulate;
      add_unique(accumulating, config);
    }
    configs = std::move(accumulating);
  }
  return configs;
}

}  // namespace gpubench
