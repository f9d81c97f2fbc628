#pragma once
// Which techniques cannot combine, and why: one table (DESIGN.md, "Techniques are a set").
// The id parser, the matrix's groups and recipes, the skip reasons, `--rules`, `tune` and
// the docs all read it; nothing else decides whether a stack is allowed.
#include <optional>
#include <string>
#include <vector>

#include "core/config/config.h"

namespace gpubench {

// Where a rule is decided:
//   Id:       both words in an id: the id is refused (exit 2) whatever runs it.
//   Workload: the technique needs a trait of the model (`other` names it); a workload
//             without it refuses the id (exit 2).
//   Machine:  both words in an id, on a machine with more than one CUDA device: the config
//             is skipped there with the reason (one device runs it).
enum class RuleScope { Id, Workload, Machine };

struct TechniqueRule {
  RuleScope scope;
  std::string technique;  // a word of the id (config_words)
  std::string other;      // Id/Machine: another word; Workload: a trait (WorkloadTraits::names)
  std::string why;        // the sentence a user reads
};

const std::vector<TechniqueRule>& technique_rules();

// What a workload's model offers the techniques that change the model or its batches.
struct WorkloadTraits {
  bool image_batches = false;  // 4-d NCHW batches: channels-last
  bool segments = false;       // a chain of blocks to recompute: ckpt
  bool fp8_linears = false;    // Linear layers that can run in FP8: fp8
  bool cloneable = true;       // a torch::nn::Module that can be deep-cloned per device: dp
  bool units = false;          // declares units of sharding (blocks, stages, layers): fsdp
  // The loss reads the model's output only (not what its blocks computed on the way, as a
  // mixture of experts' load-balancing loss reads the routers' logits): ckpt, dp.
  bool loss_from_output = true;
  // Its forward never reads a device value on the host (a mixture of experts' loop reads each
  // expert's token count): graph.
  bool capturable = true;
  // A mixture of experts' routed experts a sparse layer (0: none): ep-K splits them.
  int experts = 0;
  // One tensor holds every expert of a layer (gpt-oss's gate_up_proj and down_proj): ep-K,
  // which splits and reduces experts as tensors of their own, cannot take them yet.
  bool stacked_experts = false;
  // The exporter knows its Python twin (scripts/compile_twins.py): compile.
  bool python_twin = false;
  // Not a rule's trait: a standard model whose memory ckpt is for (the groups add its ckpt rows).
  bool real_scale = false;
  // The trait names the table uses, for those this workload has.
  std::vector<std::string> names() const;
};

// The words of a config the table speaks of: its device, precision, host memory (cuda),
// "dp", "ddp-N", "zero1-N", "zero2-N" or "fsdp-N", "accK", the Adam kernel as written, "channels-last", "ckpt", "graph",
// "ep-K", "compile".
std::vector<std::string> config_words(const Config& config);

// The first Id rule that `words` break, as "<technique> with <other>: <why>"; nullopt if none.
std::optional<std::string> id_rule_broken(const std::vector<std::string>& words);

// Why `config` cannot train `workload` (whose traits these are), from the Workload rules.
std::optional<std::string> workload_rule_broken(const Config& config, const WorkloadTraits& traits);

// Why `config` is skipped on a machine with `cuda_devices` devices, from the Machine rules.
std::optional<std::string> machine_rule_broken(const Config& config, int cuda_devices);

// Whether the id could be written at all: no Id rule broken and the grammar accepts it.
bool is_legal(const Config& config);

// The table as text, one rule a line ("graph + accK: ..."), for `--rules` and the docs.
std::string describe_rules();

}  // namespace gpubench
