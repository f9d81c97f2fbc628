#pragma once
// A decoder language model as a workload: the built-in `llama` (Llama-3.2-1B's shape) and
// every `--model NAME=PATH` config.json. The model comes from its family (workloads/gpt2.h,
// workloads/decoder.h); this is what trains it: token windows of `seq_len`, next-token
// cross-entropy, FLOPs by nanoGPT's convention, a memory estimate, and the weights it
// starts from.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "workloads/family_layers.h"
#include "workloads/memory_estimate.h"
#include "workloads/workload.h"

namespace gpubench {

struct DecoderLmSpec {
  std::string name;
  std::string family;  // "decoder" (workloads/decoder.h) or "gpt2"
  std::function<Model(const ModelTechniques&)> make_model;
  std::int64_t parameters = 0;
  std::int64_t flops_parameters = 0;  // N of 6N: without input-only tables (position embeddings, an untied token embedding)
  std::int64_t layers = 0, attention_width = 0, hidden = 0, heads = 0, vocab = 0;
  std::int64_t root_parameters = 0;  // embeddings, head, final norm: what no layer holds (the root unit)
  std::int64_t intermediate = 0, kv_width = 0;  // the MLP's width, key/value heads x head_dim
  std::int64_t value_width = 0;  // heads x the value head's width where it differs from the query's (MLA); 0: attention_width
  // Each layer's attention window (0: every earlier key), for the attention FLOPs; empty: all full.
  std::vector<std::int64_t> windows;
  // What the decoder's options add to a layer's activations (decoder_memory_estimate).
  std::int64_t extra_norms = 0;       // norms per layer beyond two (Gemma's four)
  bool keeps_attention_scores = false;  // attention computed as scores (a softcap), not fused
  bool gated_mlp = true;              // the MLP's layout for the estimate
  bool router_loss = false;           // a load-balancing loss read from the routers (traits: no ckpt, no dp)
  bool host_reads = false;            // the forward reads device values on the host (traits: no graph)
  std::int64_t experts = 0;           // routed experts a sparse layer (traits: ep-K splits them)
  bool stacked_experts = false;       // one tensor a layer for every expert (traits: no ep-K yet)
  std::int64_t expert_parameters = 0, sparse_layers = 0, top_k = 0;  // ep-K's estimate
  std::int64_t seq_len = 0;
  // A CPU config's sequence when it is shorter (0: seq_len): a step of a real-scale decoder
  // at 2048 tokens takes 10-20 s on a CPU, one step a preset, no spread.
  std::int64_t cpu_seq_len = 0;
  std::string cpu_seq_len_reason;
  std::int64_t gpu_batch = 1, cpu_batch = 1;
  std::int64_t base_samples = 2048;
  bool real_scale = true;
  nlohmann::json definition;  // the family's describe() plus where it came from
  std::string seq_len_reason;  // how seq_len was chosen, for the row
  std::optional<PythonTwin> python_twin;  // the compile technique's twin (gpt2, and dense decoders by HF's names)
};

class DecoderLmWorkload final : public Workload {
 public:
  explicit DecoderLmWorkload(DecoderLmSpec spec) : spec_(std::move(spec)) {}
  std::string name() const override { return spec_.name; }
  std::int64_t default_batch_size(DeviceKind device) const override {
    return device == DeviceKind::Cuda ? spec_.gpu_batch : spec_.cpu_batch;
  }
  std::int64_t base_dataset_samples() const override { return spec_.base_samples; }
  Model make_model() const override { return spec_.make_model({}); }
  Model make_model_with(const ModelTechniques& techniques) const override { return spec_.make_model(techniques); }
  Dataset make_dataset(const DatasetRequest& request) const override;
  torch::Tensor loss(const torch::Tensor& output, const torch::Tensor& targets) const override;
  nlohmann::json describe() const override;
  std::int64_t forward_macs_per_sample() const override;
  std::string flops_convention() const override;
  std::int64_t tokens_per_sample() const override { return spec_.seq_len; }
  std::string real_data_format() const override;
  bool real_scale() const override { return spec_.real_scale; }
  WorkloadTraits traits() const override;
  std::optional<PythonTwin> python_twin() const override { return spec_.python_twin; }
  std::optional<MemoryEstimate> memory_estimate(const Config& config, std::int64_t batch_size) const override;
  std::optional<std::int64_t> declared_parameters() const override { return spec_.parameters; }
  std::unique_ptr<Workload> on_device(DeviceKind device) const override;

 private:
  DecoderLmSpec spec_;
};

// Llama-3.2-1B's shape, random weights: micro-batch 4 x 2048 tokens on a GPU (fp32 states
// 19.8 GB, bf16 activations 17 GB and weight copies 2.5 GB, logits 10.5 GB, workspace 4.2 GB:
// ~54 GB of an 80 GB GPU), 1 x 256 on a CPU.
std::unique_ptr<Workload> make_llama_workload(std::optional<std::int64_t> seq_len);
// The built-in `moe`: a fine-grained mixture of experts (workloads/builtin_moe.cpp).
std::unique_ptr<Workload> make_moe_workload(std::optional<std::int64_t> seq_len);

struct DecoderShape;
// What a decoder of `shape` (workloads/decoder.h) trains as, at `seq_len` tokens a sample,
// under `name`: its model, sizes and definition (the built-in llama's, a config'd family's
// and the tests'; batches and reasons are the caller's). `load` fills its weights.
DecoderLmSpec decoder_lm_spec(const std::string& name, const DecoderShape& shape, std::int64_t seq_len,
                              const WeightLoader& load = {});
// A built-in decoder's spec: 2048 tokens unless --seq-len (`default_reason` says why),
// micro-batch 4 on a GPU and 1 on a CPU, the CPU's shorter default sequence.
DecoderLmSpec builtin_decoder_spec(const std::string& name, const DecoderShape& shape, std::optional<std::int64_t> seq_len,
                                   const std::string& default_reason);

// A decoder's whole estimate (memory_estimate.h) from its sizes: every decoder workload's
// (the built-in gpt2 and transformer too). Activations: what each layer's forward keeps for
// backward, per token, read off the family's forward (decoder_lm.cpp): the fp32 residual
// stream and norm outputs, the 16-bit copies autocast casts for each matmul, attention's
// inputs and output (fused attention: no T x T scores, on a CPU too), the MLP's
// intermediate tensors at its own width; plus the T x T scores where attention keeps them;
// under autocast the 16-bit copies of the weights the matmuls keep; with ckpt one layer's
// worth plus each layer's input.
enum class DecoderLayout {
  Gpt2,   // LayerNorm, one qkv matmul, GELU MLP (also the transformer workload's block)
  Gated,  // RMSNorm, q/k/v/o matmuls (grouped-query), a gated MLP (SwiGLU, GeGLU)
};
struct DecoderSizes {
  std::int64_t parameters = 0, seq = 0, hidden = 0, heads = 0, layers = 0, vocab = 0;
  bool keeps_attention_scores = false;  // on every device (MultiheadAttention: no fused kernel)
  DecoderLayout layout = DecoderLayout::Gpt2;
  std::int64_t intermediate = 0;     // the MLP's width; 0: 4 x hidden
  std::int64_t attention_width = 0;  // heads x head_dim; 0: hidden
  std::int64_t kv_width = 0;         // key/value heads x head_dim; 0: attention_width
  // The weights autocast casts to 16 bits for the matmuls (the tied embedding as the head;
  // not the position table or an untied input embedding); 0: parameters.
  std::int64_t cast_parameters = 0;
  // What no layer holds, the sharded modes' root unit (embeddings, head, final norm); 0:
  // vocab x hidden (a tied embedding). A layer is the rest over `layers`.
  std::int64_t root_parameters = 0;
  std::int64_t extra_norms = 0;  // norms per layer beyond two, each keeping its fp32 input and output
  // A mixture of experts: every sparse layer's routed experts, the sparse layers, top-k (ep-K).
  std::int64_t expert_parameters = 0, sparse_layers = 0, top_k = 0;
};
MemoryEstimate decoder_memory_estimate(const Config& config, std::int64_t batch, const DecoderSizes& sizes);

// A decoder's default sequence on a CPU, where --seq-len does not set one: the config's
// context up to this (a step of a 135M-1B model in a second or a few, so a preset measures
// its spread), stated in the row's seq_len_reason.
inline constexpr std::int64_t kCpuDefaultSequence = 128;
// `spec` with its CPU sequence set from its (device-independent) seq_len, unless --seq-len
// chose it.
void set_cpu_sequence(DecoderLmSpec& spec, bool requested);

// What a training process holds besides its tensors on a CPU: LibTorch's libraries and its
// heap (~0.4 GiB resident at a run's start here), counted in a CPU estimate's workspace.
inline constexpr double kHostProcessBytes = 0.5 * 1024 * 1024 * 1024;
// The share of the model's states a CPU process's heap holds on top (decoder_lm.cpp).
inline constexpr double kHostHeapSlack = 0.12;
// ... and of what a step allocates and frees again (activations, logits, backward's
// gradients of them): the heap's high-water mark above the step's peak in tensors.
inline constexpr double kHostHeapChurnSlack = 0.6;

}  // namespace gpubench
