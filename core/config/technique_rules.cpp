#include "core/config/technique_rules.h"

#include <algorithm>

namespace gpubench {
namespace {

bool has(const std::vector<std::string>& words, const std::string& word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

std::string rule_text(const TechniqueRule& rule) {
  if (rule.scope == RuleScope::Workload) return rule.technique + " needs a workload with " + rule.other + ": " + rule.why;
  return rule.technique + " with " + rule.other + ": " + rule.why;
}

}  // namespace

const std::vector<TechniqueRule>& technique_rules() {
  using S = RuleScope;
  static const std::vector<TechniqueRule> table = {
      // Precisions and host memory that exist on one device kind only.
      {S::Id, "bf16", "cuda", "bf16 is CPU autocast; on a GPU use amp-bf16 (autocast) or fp8"},
      {S::Id, "amp-fp16", "cpu", "amp-fp16 is CUDA autocast with a GradScaler; the CPU's mixed precision is bf16"},
      {S::Id, "amp-bf16", "cpu", "amp-bf16 is CUDA autocast; the CPU's mixed precision is bf16"},
      {S::Id, "tf32", "cpu", "TF32 is a tensor-core math mode of NVIDIA GPUs; a CPU computes fp32 in fp32"},
      {S::Id, "fp8", "cpu", "fp8 runs on cuda only: its matmuls need FP8 tensor cores"},
      {S::Id, "pinned", "cpu", "host memory (pinned or pageable) is how batches reach a GPU: it applies to cuda only"},
      {S::Id, "pageable", "cpu", "host memory (pinned or pageable) is how batches reach a GPU: it applies to cuda only"},
      {S::Id, "dp", "cpu", "DataParallel (dp) replicates the model over CUDA devices: it needs device cuda"},
      {S::Id, "graph", "cpu", "graph captures the step's CUDA kernels in a CUDA Graph: it needs device cuda"},
      // One choice per slot.
      {S::Id, "pinned", "pageable", "a config has one host memory: pinned or pageable"},
      {S::Id, "dp", "ddp-N", "a config has one parallel mode: dp, ddp-N, zero1-N, zero2-N or fsdp-N"},
      {S::Id, "dp", "zero1-N", "a config has one parallel mode: dp, ddp-N, zero1-N, zero2-N or fsdp-N"},
      {S::Id, "dp", "zero2-N", "a config has one parallel mode: dp, ddp-N, zero1-N, zero2-N or fsdp-N"},
      {S::Id, "dp", "fsdp-N", "a config has one parallel mode: dp, ddp-N, zero1-N, zero2-N or fsdp-N"},
      {S::Id, "ddp-N", "zero1-N", "a config has one parallel mode: zero1-N is DDP with the optimizer state sharded"},
      {S::Id, "ddp-N", "zero2-N", "a config has one parallel mode: zero2-N is DDP with optimizer state and gradients sharded"},
      {S::Id, "ddp-N", "fsdp-N", "a config has one parallel mode: fsdp-N is DDP with everything sharded"},
      {S::Id, "zero1-N", "zero2-N", "a config has one parallel mode: zero2-N already shards what zero1-N does"},
      {S::Id, "zero1-N", "fsdp-N", "a config has one parallel mode: fsdp-N already shards what zero1-N does"},
      {S::Id, "zero2-N", "fsdp-N", "a config has one parallel mode: fsdp-N already shards what zero2-N does"},
      {S::Id, "adam-foreach", "adam-fused", "a config has one Adam kernel: adam-foreach or adam-fused"},
      // What a captured step cannot hold.
      {S::Id, "graph", "accK", "graph captures one whole step of one batch: it does not take accK"},
      {S::Id, "graph", "dp",
       "LibTorch's data_parallel replicates the module on the host every step: a captured graph would replay the "
       "first step's replicas"},
      {S::Id, "graph", "ddp-N",
       "gpubench's DDP reducer waits on the host for each bucket's all-reduce inside backward, and a CUDA Graph "
       "capture cannot hold a host wait"},
      {S::Id, "graph", "zero1-N",
       "zero1-N all-gathers the updated shards on the host after each optimizer step and reduces gradients from "
       "backward hooks that wait on the host, which a CUDA Graph capture cannot hold"},
      {S::Id, "graph", "zero2-N",
       "zero2-N reduce-scatters gradients from backward hooks and all-gathers the updated shards on the host, "
       "which a CUDA Graph capture cannot hold"},
      {S::Id, "graph", "fsdp-N",
       "fsdp-N gathers and frees each unit's parameters from the host around its forward and backward (it swaps "
       "their storage), which a CUDA Graph capture cannot hold"},
      {S::Id, "graph", "ckpt",
       "ckpt saves and restores the RNG state on the host around each recompute, which a CUDA Graph capture cannot "
       "record"},
      {S::Id, "graph", "adam-foreach",
       "graph replays fused Adam, whose step counts live on the device; foreach Adam computes its bias correction "
       "from host step counts that a replay would freeze"},
      {S::Id, "ep-K", "dp",
       "ep-K splits the experts over the processes of a multi-rank mode, and dp is one process driving several GPUs"},
      {S::Id, "ep-K", "ckpt",
       "ckpt would recompute each block's forward inside backward, and with ep-K that forward sends tokens to "
       "other ranks: the recompute would repeat the all-to-alls in an order the ranks do not agree on"},
      // What the compiled step (docs/techniques.md, "compile") does not hold yet: the CPU,
      // fp32 or bf16; accK, ddp-N, zero1-N and zero2-N take its gradients as they come out.
      {S::Id, "compile", "cuda",
       "compile's packages are built for the CPU so far: a CUDA package is compiled by Inductor's Triton on the GPU "
       "machine, which gpubench does not drive yet"},
      {S::Id, "compile", "fsdp-N",
       "fsdp-N gathers and frees each unit's parameters around its forward and backward, and the compiled step runs the "
       "whole model as one call with every parameter a constant"},
      {S::Id, "compile", "ckpt",
       "ckpt recomputes blocks in autograd's backward; the compiled step's backward is Inductor's, which decides for "
       "itself what to save and what to recompute"},
      {S::Id, "compile", "channels-last",
       "the compiled step is exported for the batch's layout as the Python twin makes it (NCHW); channels-last is not "
       "exported yet"},
      // What the model must offer.
      {S::Workload, "channels-last", "image-batches",
       "channels-last lays 4-d image batches (NCHW) out as NHWC, and this workload has no 4-d tensors"},
      {S::Workload, "ckpt", "segments",
       "ckpt recomputes the model's blocks (stages, layers) in backward, and this workload has no chain of blocks"},
      {S::Workload, "fp8", "fp8-linears",
       "fp8 runs the Linear layers of a transformer's blocks in FP8, and this workload has none"},
      {S::Workload, "fsdp-N", "units",
       "fsdp gathers and frees the model one unit (a block, a stage, a layer) at a time around its forward and "
       "backward, and this workload declares no units (a TorchScript module's forward is one call gpubench cannot "
       "step into): its whole model would stay gathered through the step, zero2's memory with 1.5x its "
       "communication; use zero2-N or zero1-N"},
      {S::Workload, "dp", "cloneable",
       "dp deep-clones the model onto every device each step, and this workload's model cannot be cloned"},
      {S::Workload, "ckpt", "loss-from-output",
       "ckpt runs each block's forward without a graph and recomputes it in backward, and this model's loss also "
       "reads what its blocks computed (a mixture of experts' router logits, for the load-balancing loss "
       "output_router_logits asks for): that part of the loss would get no gradient; with output_router_logits "
       "false (HF's default) it trains with ckpt"},
      {S::Workload, "compile", "python-twin",
       "compile exports the training step from the workload's Python twin (scripts/compile_twins.py), and this "
       "workload has none (mlp, gpt2, config'd GPT-2 models and the dense decoders whose names are "
       "transformers' own have one; not the mixtures of experts)"},
      {S::Workload, "graph", "capturable",
       "graph captures the step's kernels once and replays them, and this model's forward reads a device value on "
       "the host every step (a mixture of experts' loop reads each expert's token count), which a capture refuses"},
      {S::Workload, "ep-K", "experts",
       "ep-K splits a mixture of experts' experts over ranks, and this workload's model has no experts"},
      {S::Workload, "ep-K", "separate-experts",
       "ep-K splits and reduces experts as tensors of their own, and this model stacks every expert of a layer in "
       "one tensor (gpt-oss's gate_up_proj and down_proj): not split over ranks yet; run it without ep"},
      {S::Workload, "dp", "loss-from-output",
       "dp runs the model's replicas, whose router logits the load-balancing loss (output_router_logits) cannot "
       "read: that part of the loss would get no gradient; with output_router_logits false it trains with dp"},
      // What one machine cannot do with several GPUs.
      {S::Machine, "dp", "amp-fp16",
       "on more than one GPU LibTorch's data_parallel runs the replicas past cuda:0 on OpenMP threads, which do not "
       "inherit autocast: they would compute in fp32"},
      {S::Machine, "dp", "amp-bf16",
       "on more than one GPU LibTorch's data_parallel runs the replicas past cuda:0 on OpenMP threads, which do not "
       "inherit autocast: they would compute in fp32"},
      {S::Machine, "dp", "fp8",
       "on more than one GPU LibTorch's data_parallel runs the replicas past cuda:0 on OpenMP threads, which do not "
       "inherit autocast: they would compute in fp32"},
  };
  return table;
}

std::vector<std::string> WorkloadTraits::names() const {
  std::vector<std::string> out;
  if (image_batches) out.push_back("image-batches");
  if (segments) out.push_back("segments");
  if (fp8_linears) out.push_back("fp8-linears");
  if (cloneable) out.push_back("cloneable");
  if (units) out.push_back("units");
  if (loss_from_output) out.push_back("loss-from-output");
  if (capturable) out.push_back("capturable");
  if (experts > 0) out.push_back("experts");
  if (experts > 0 && !stacked_experts) out.push_back("separate-experts");
  if (python_twin) out.push_back("python-twin");
  return out;
}

std::vector<std::string> config_words(const Config& config) {
  std::vector<std::string> words = {to_string(config.device), to_string(config.precision)};
  if (config.device == DeviceKind::Cuda) words.push_back(to_string(config.host_memory));
  if (config.parallel == ParallelMode::DataParallel) words.push_back("dp");
  if (config.multi_rank()) words.push_back(to_string(config.parallel) + "-N");
  if (config.accumulate > 1) words.push_back("accK");
  if (config.adam != AdamKernel::Loop) words.push_back(to_string(config.adam));
  if (config.channels_last) words.push_back("channels-last");
  if (config.checkpoint) words.push_back("ckpt");
  if (config.graph) words.push_back("graph");
  if (config.expert_parallel > 1) words.push_back("ep-K");
  if (config.compile) words.push_back("compile");
  return words;
}

std::optional<std::string> id_rule_broken(const std::vector<std::string>& words) {
  for (const auto& rule : technique_rules())
    if (rule.scope == RuleScope::Id && has(words, rule.technique) && has(words, rule.other)) return rule_text(rule);
  return std::nullopt;
}

std::optional<std::string> workload_rule_broken(const Config& config, const WorkloadTraits& traits) {
  const auto words = config_words(config);
  const auto offered = traits.names();
  for (const auto& rule : technique_rules())
    if (rule.scope == RuleScope::Workload && has(words, rule.technique) && !has(offered, rule.other))
      return rule.technique + " does not apply to " + config.workload + ": " + rule.why;
  // A count, not a trait: each rank of a group holds experts / K of every sparse layer.
  if (config.expert_parallel > 1 && traits.experts > 0 && traits.experts % config.expert_parallel != 0)
    return "ep-" + std::to_string(config.expert_parallel) + " does not apply to " + config.workload +
           ": each rank of a group holds an equal share of every layer's experts, and " +
           std::to_string(traits.experts) + " experts do not split over " + std::to_string(config.expert_parallel) +
           " ranks";
  return std::nullopt;
}

std::optional<std::string> machine_rule_broken(const Config& config, int cuda_devices) {
  if (cuda_devices <= 1) return std::nullopt;
  const auto words = config_words(config);
  for (const auto& rule : technique_rules())
    if (rule.scope == RuleScope::Machine && has(words, rule.technique) && has(words, rule.other))
      return rule_text(rule) + " (this machine has " + std::to_string(cuda_devices) + " CUDA devices)";
  return std::nullopt;
}

bool is_legal(const Config& config) { return !id_rule_broken(config_words(config)); }

std::string describe_rules() {
  std::string text;
  for (const auto& rule : technique_rules()) {
    const char* scope = rule.scope == RuleScope::Machine ? "skipped on several GPUs" : "refused";
    text += std::string(scope) + "  " + rule_text(rule) + "\n";
  }
  return text;
}

}  // namespace gpubench
