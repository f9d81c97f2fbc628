#include "workloads/activation_checkpoint.h"

#include <ATen/autocast_mode.h>
#include <ATen/core/ivalue.h>
#include <torch/csrc/autograd/custom_function.h>

#include "workloads/autocast_scope.h"

namespace gpubench {
namespace {

// What the recompute needs from the forward: the segment, its norms, and the state the
// forward ran under.
struct Segment final : torch::CustomClassHolder {
  std::function<torch::Tensor(const torch::Tensor&)> run;
  std::vector<torch::nn::BatchNorm2d> norms;
  c10::Device device = torch::kCPU;
  torch::Tensor rng_state;
  bool autocast = false;
  c10::ScalarType autocast_dtype = c10::ScalarType::Float;
};

at::Generator generator_of(c10::Device device) { return at::globalContext().defaultGenerator(device); }

// The forward's RNG and autocast state for the recompute, the caller's restored after.
// Autocast is entered as PyTorch's checkpoint enters it (`with torch.autocast(...)`): one
// nesting level, the cast cache cleared at the outermost exit. Enabled without a level,
// the bf16/fp16 copies of the weights the recompute made stayed cached, and the next
// step's forward used them: weights from before the optimizer step.
class ForwardState {
 public:
  explicit ForwardState(const Segment& s)
      : generator_(generator_of(s.device)),
        rng_(generator_.get_state()),
        autocast_(s.device.type(), s.autocast_dtype, s.autocast) {
    generator_.set_state(s.rng_state);
  }
  ~ForwardState() { generator_.set_state(rng_); }
  ForwardState(const ForwardState&) = delete;
  ForwardState& operator=(const ForwardState&) = delete;

 private:
  at::Generator generator_;
  torch::Tensor rng_;
  AutocastScope autocast_;
};

// The BatchNorm running statistics as they were before the recompute, put back after it.
class RunningStatsGuard {
 public:
  explicit RunningStatsGuard(const std::vector<torch::nn::BatchNorm2d>& norms) {
    torch::NoGradGuard no_grad;
    for (const auto& norm : norms) {
      if (!norm->options.track_running_stats()) continue;
      saved_.push_back({norm, norm->running_mean.clone(), norm->running_var.clone(), norm->num_batches_tracked.clone()});
    }
  }
  ~RunningStatsGuard() {
    torch::NoGradGuard no_grad;
    for (auto& s : saved_) {
      s.norm->running_mean.copy_(s.mean);
      s.norm->running_var.copy_(s.var);
      s.norm->num_batches_tracked.copy_(s.tracked);
    }
  }
  RunningStatsGuard(const RunningStatsGuard&) = delete;
  RunningStatsGuard& operator=(const RunningStatsGuard&) = delete;

 private:
  struct Saved {
    torch::nn::BatchNorm2d norm;
    torch::Tensor mean, var, tracked;
  };
  std::vector<Saved> saved_;
};

class CheckpointFunction final : public torch::autograd::Function<CheckpointFunction> {
 public:
  // Runs with grad mode off (Function::apply's rule): no graph, no saved activations.
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& input,
                               c10::intrusive_ptr<Segment> segment) {
    segment->device = input.device();
    segment->rng_state = generator_of(input.device()).get_state();
    segment->autocast = at::autocast::is_autocast_enabled(input.device().type());
    segment->autocast_dtype = at::autocast::get_autocast_dtype(input.device().type());
    ctx->save_for_backward({input});
    torch::Tensor output = segment->run(input);
    ctx->saved_data["segment"] = c10::IValue::make_capsule(std::move(segment));
    return output;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    const auto segment = c10::static_intrusive_pointer_cast<Segment>(ctx->saved_data["segment"].toCapsule());
    const torch::Tensor input = ctx->get_saved_variables()[0];
    torch::Tensor detached = input.detach().requires_grad_(input.requires_grad());
    // The statistics are put back only after the recompute's backward: BatchNorm's
    // backward reads the running-statistics tensors the recompute saved, and an in-place
    // restore before it would bump their version under it.
    RunningStatsGuard stats(segment->norms);
    torch::Tensor output;
    {
      at::AutoGradMode grad(true);
      ForwardState state(*segment);
      // A view, not the leaf itself: autocast caches its 16-bit cast of a leaf that needs a
      // gradient (its weight-cast rule), so the segment's matmuls reading the input straight
      // (OLMo 2's post-norm layers) would share one cast whose gradients sum in 16 bits,
      // where the forward without ckpt casts three times and sums in fp32.
      output = segment->run(detached.view_as(detached));
    }
    // Reentrant: the recomputed graph's backward runs here, inside this one.
    torch::autograd::backward({output}, {grad_outputs[0]});
    return {detached.requires_grad() ? detached.grad() : torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor checkpointed(std::function<torch::Tensor(const torch::Tensor&)> segment, const torch::Tensor& input,
                           std::vector<torch::nn::BatchNorm2d> norms) {
  // Nothing to save memory for where no backward follows (evaluation, the checkpoint check).
  if (!torch::GradMode::is_enabled()) return segment(input);
  auto state = c10::make_intrusive<Segment>();
  state->run = std::move(segment);
  state->norms = std::move(norms);
  return CheckpointFunction::apply(input, std::move(state));
}

std::vector<torch::nn::BatchNorm2d> batch_norms_of(const torch::nn::Module& module) {
  std::vector<torch::nn::BatchNorm2d> norms;
  for (const auto& child : module.modules(/*include_self=*/true))
    if (auto norm = std::dynamic_pointer_cast<torch::nn::BatchNorm2dImpl>(child)) norms.emplace_back(norm);
  return norms;
}

}  // namespace gpubench
