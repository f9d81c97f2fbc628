// What a sharded run reports and gives back (sharded_data_parallel.h): the state a rank
// holds, the whole model and optimizer state gathered back for the digest and the
// checkpoint, and the row's description of the mode. The step itself:
// sharded_data_parallel.cpp.
#include "harness/parallel/sharded_data_parallel.h"

#include <unordered_set>

namespace gpubench {

nlohmann::json ModelStateBytes::to_json() const {
  return {{"parameters_bytes", parameters}, {"gradients_bytes", gradients}, {"optimizer_bytes", optimizer},
          {"total_bytes", total()}};
}

ModelStateBytes model_state_bytes(const std::vector<torch::Tensor>& parameters, torch::optim::Optimizer& optimizer) {
  ModelStateBytes bytes;
  std::unordered_set<const void*> seen;
  const auto add = [&](const torch::Tensor& tensor, std::int64_t& into) {
    if (!tensor.defined() || !tensor.has_storage()) return;
    if (seen.insert(tensor.storage().unsafeGetStorageImpl()).second) into += static_cast<std::int64_t>(tensor.storage().nbytes());
  };
  for (const auto& parameter : parameters) {
    add(parameter, bytes.parameters);
    add(parameter.grad(), bytes.gradients);
  }
  for (const auto& group : optimizer.param_groups())
    for (const auto& parameter : group.params()) {
      add(parameter, bytes.parameters);
      add(parameter.grad(), bytes.gradients);
    }
  for (const auto& [key, state] : optimizer.state())
    if (const auto* adam = dynamic_cast<const torch::optim::AdamParamState*>(state.get())) {
      add(adam->exp_avg(), bytes.optimizer);
      add(adam->exp_avg_sq(), bytes.optimizer);
      add(adam->max_exp_avg_sq(), bytes.optimizer);
    }
  return bytes;
}

void ShardedDataParallel::gather_whole_model(bool keep, ParameterDigest* digest) {
  settle();
  // From here on the model runs as a plain model: no more gathers or frees around its units.
  if (set_unit_hooks_) set_unit_hooks_(nullptr);
  set_unit_hooks_ = nullptr;
  for (std::size_t unit = 0; unit < units_.size(); ++unit) {
    // On the host, bounded: the digest's and the checkpoint's copies to the host would
    // otherwise block on NCCL's stream with no bound, and a dead peer end by the watchdog's
    // abort instead of the named failure.
    ensure_gathered(unit, HostWait::Yes);
    if (digest != nullptr)
      for (std::size_t slot = 0; slot < units_[unit].members(); ++slot)
        digest->add(parameters_[layout_.units[unit].members[slot]]);
    if (!keep) release(unit);  // one unit at a time on a rank that needs no whole model (fsdp)
  }
}

std::vector<std::vector<torch::Tensor>> ShardedDataParallel::gather_member_values(const std::vector<torch::Tensor>& per_unit,
                                                                                bool keep) {
  torch::NoGradGuard no_grad;
  std::vector<std::vector<torch::Tensor>> values(units_.size());
  for (std::size_t unit = 0; unit < units_.size(); ++unit) {
    torch::Tensor input = per_unit.at(unit).contiguous();
    torch::Tensor whole = torch::empty({layout_.units[unit].padded_numel}, input.options());
    const auto work = group_._allgather_base(whole, input);
    wait(*work, "gathering the optimizer state", unit, HostWait::Yes);
    if (!keep) continue;  // a rank that keeps nothing holds one unit's gather at a time
    for (std::size_t slot = 0; slot < units_[unit].members(); ++slot)
      values[unit].push_back(units_[unit].member_view(whole, slot));
  }
  return values;
}

std::int64_t ShardedDataParallel::kept_for_backward_bytes() const {
  if (options_.mode != ParallelMode::Fsdp) return 0;
  std::int64_t kept = 0;
  if (layout_.has_root) kept += layout_.units[root()].numel * layout_.units[root()].element_bytes;
  if (model_units() > 0) kept += layout_.units[model_units() - 1].numel * layout_.units[model_units() - 1].element_bytes;
  return kept;
}

nlohmann::json ShardedDataParallel::describe() const {
  const bool fsdp = options_.mode == ParallelMode::Fsdp;
  nlohmann::json out = {{"mode", to_string(options_.mode)}, {"layout", layout_.to_json()}};
  out["parameters_gathered"] =
      fsdp ? "each unit all-gathered before its forward (the next unit's gather issued while it computes) and freed "
             "after it, the last unit kept for backward; gathered again before its backward by a hook on its output "
             "(the one before it prefetched), freed once its gradients are reduced; the root unit gathered from the "
             "first forward to the end of backward"
           : "the whole model on every rank: the updated shards all-gathered into it after each optimizer step";
  out["gradients_reduced"] =
      options_.mode == ParallelMode::Zero1
          ? "reduce-scatter once per optimizer step (on the last micro-batch), unit by unit as backward completes each; "
            "the whole gradients are kept until the next step"
          : "reduce-scatter of each unit as soon as backward has made its gradients, on every micro-batch (the shard's "
            "gradient accumulates); the whole gradients are dropped";
  out["reduce_order"] = "units in reverse, then the root unit: the same on every rank";
  out["collective_dtype"] = std::string(c10::toString(parameters_.front().scalar_type())) +
                            ": the parameters' own (autocast keeps fp32 parameters and casts them after the gather; "
                            "the gradients are fp32 and averaged as divide-by-N then sum, as ddp-N's). Under autocast "
                            "without ckpt, autograd keeps each matmul weight's 16-bit cast from forward to backward "
                            "(2 bytes a parameter, not sharded: the estimate counts it); FSDP2's bf16 param_dtype "
                            "gathers would not";
  out["optimizer"] = "Adam steps this rank's shard of each unit (one flat tensor a unit; padding elements stay zero)";
  out["waits"] = options_.stream_waits
                     ? "NCCL: each wait orders the current stream after the collective and the host goes on (no host "
                       "sync in the step, as PyTorch's DDP and FSDP2); the next step's start waits on the host, bounded by "
                       "--comm-timeout, for this step's last collective; the exposed part is not measured (null): the "
                       "device phase times hold it"
                     : "Gloo: host waits bounded by --comm-timeout, each counted as exposed communication";
  out["peak_gathered_bytes"] = peak_gathered_bytes_;
  return out;
}

}  // namespace gpubench
