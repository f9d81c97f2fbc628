#include "workloads/decoder_lm.h"

#include <algorithm>

#include "workloads/data/token_windows.h"
#include "workloads/decoder.h"
#include "workloads/model_flops.h"
#include "workloads/sharded_memory.h"

namespace gpubench {
namespace {

bool sixteen_bit(Precision precision) {
  return precision == Precision::AmpBf16 || precision == Precision::AmpFp16 || precision == Precision::Bf16 ||
         precision == Precision::Fp8;
}

// What one layer's forward keeps for backward, in bytes per token, read off the family's
// forward and checked against what autograd saves (torch.autograd.graph.saved_tensors_hooks
// on the same ops; tests/workloads/decoder_memory_test.cpp holds the whole step's measured
// peak against it). h: hidden, a: attention width, k: key/value width, f: the MLP's width.
double layer_bytes_per_token(const DecoderSizes& s, bool sixteen) {
  const auto h = static_cast<double>(s.hidden);
  const auto a = static_cast<double>(s.attention_width > 0 ? s.attention_width : s.hidden);
  const auto k = static_cast<double>(s.kv_width > 0 ? s.kv_width : a);
  const auto f = static_cast<double>(s.intermediate > 0 ? s.intermediate : 4 * s.hidden);
  // Fused attention's log-sum-exp (fp32, per head) and the two norms' statistics.
  const double small = 4.0 * static_cast<double>(s.heads) + 16.0;
  const double extra_norms = 8.0 * h * static_cast<double>(s.extra_norms);  // each: its fp32 input and output
  if (s.layout == DecoderLayout::Gated) {
    // The fp32 residual stream before and after attention and the two RMSNorms' fp32
    // normalised inputs (16h); fp32: the norms' outputs, read by q/k/v and by gate/up (8h),
    // RoPE'd q, k and v (4a + 8k), the attention output (4a), gate, silu, up and their
    // product (16f). 16-bit: a copy of a norm's output cast for each of q, k, v, gate and up
    // (10h), attention's q and output (4a), k and v (4k), the four MLP tensors (8f).
    return (sixteen ? 26.0 * h + 4.0 * a + 4.0 * k + 8.0 * f : 24.0 * h + 8.0 * a + 8.0 * k + 16.0 * f) + small + extra_norms;
  }
  // GPT-2: the fp32 residual stream before and after attention (8h); fp32: both LayerNorms'
  // outputs (8h), qkv (12h), the attention output (4h), c_fc's and GELU's outputs (8f).
  // 16-bit: the two LayerNorm outputs cast for c_attn and c_fc (4h), qkv (6h), the attention
  // output (2h), c_fc's and GELU's outputs (4f).
  return (sixteen ? 20.0 * h + 4.0 * f : 32.0 * h + 8.0 * f) + small + extra_norms;
}

// After the layers, per token: the final norm's fp32 input and (RMSNorm) normalised input,
// and the LM head's input (its 16-bit copy under autocast).
double head_bytes_per_token(const DecoderSizes& s, bool sixteen) {
  const auto h = static_cast<double>(s.hidden);
  return (s.layout == DecoderLayout::Gated ? 8.0 * h : 4.0 * h) + (sixteen ? 2.0 * h : 4.0 * h);
}

double decoder_activation_bytes(const Config& config, std::int64_t batch, const DecoderSizes& s) {
  const bool sixteen = sixteen_bit(config.precision);
  const double tokens = static_cast<double>(batch) * static_cast<double>(s.seq);
  const double head = head_bytes_per_token(s, sixteen) * tokens;
  double per_layer = layer_bytes_per_token(s, sixteen) * tokens;
  // Attention without a fused kernel (MultiheadAttention) keeps the T x T scores and their
  // softmax, in fp32, per head.
  if (s.keeps_attention_scores)
    per_layer += 2.0 * 4.0 * static_cast<double>(s.heads) * static_cast<double>(s.seq) * static_cast<double>(s.seq) *
                 static_cast<double>(batch);
  // Under autocast the matmuls keep the 16-bit copies of their weights for backward (with
  // ckpt the forward's cast cache holds them all until the forward ends).
  const double weight_casts =
      sixteen ? 2.0 * static_cast<double>(s.cast_parameters > 0 ? s.cast_parameters : s.parameters) : 0.0;
  if (!config.checkpoint) return per_layer * static_cast<double>(s.layers) + head + weight_casts;
  // ckpt keeps each layer's input (the fp32 residual stream) and recomputes one layer at a time.
  return 4.0 * static_cast<double>(s.hidden) * tokens * static_cast<double>(s.layers) + per_layer + head + weight_casts;
}

// Backward's own working set beside what the layers keep: the gradients it makes for the
// widest tensors of the layer it is in (two at the MLP's width: SwiGLU's product's inputs,
// GELU's input and output), in the activations' dtype.
double backward_working_bytes(const Config& config, std::int64_t batch, const DecoderSizes& s) {
  const double f = static_cast<double>(s.intermediate > 0 ? s.intermediate : 4 * s.hidden);
  return 2.0 * f * (sixteen_bit(config.precision) ? 2.0 : 4.0) * static_cast<double>(batch) * static_cast<double>(s.seq);
}

}  // namespace

Dataset DecoderLmWorkload::make_dataset(const DatasetRequest& request) const {
  TokenWindowOptions options{request.samples, spec_.seq_len, request.seed, spec_.vocab, request.full_check};
  options.data_flag = "--data " + spec_.name;
  return Dataset(token_lm_samples(request.data_path, options, spec_.vocab));
}

torch::Tensor DecoderLmWorkload::loss(const torch::Tensor& output, const torch::Tensor& targets) const {
  return next_token_loss(output, targets);
}

nlohmann::json DecoderLmWorkload::describe() const {
  nlohmann::json out = spec_.definition;
  out["seq_len"] = spec_.seq_len;
  out["seq_len_reason"] = spec_.seq_len_reason;
  out["input_shape"] = {spec_.seq_len};
  out["parameters_by_family"] = spec_.parameters;
  return out;
}

std::int64_t DecoderLmWorkload::forward_macs_per_sample() const {
  // Per token N multiply-adds in the matmuls of the weights, and 2 A K in attention's QK^T
  // and AV (A = heads x head_dim) over the keys K each layer attends: T (nanoGPT's
  // 6N + 12 L H Q T training FLOPs a token), a window's min(W, T) under a window. Latent
  // attention's QK^T is A = heads x (nope + rope) wide, its AV heads x v_head_dim.
  std::int64_t keys = 0;
  for (std::int64_t layer = 0; layer < spec_.layers; ++layer) {
    const std::int64_t window = spec_.windows.empty() ? 0 : spec_.windows[static_cast<std::size_t>(layer)];
    keys += window > 0 ? std::min(window, spec_.seq_len) : spec_.seq_len;
  }
  const std::int64_t value_width = spec_.value_width > 0 ? spec_.value_width : spec_.attention_width;
  return spec_.seq_len * (spec_.flops_parameters + (spec_.attention_width + value_width) * keys);
}

std::string DecoderLmWorkload::flops_convention() const {
  return "nanoGPT estimate_mfu / PaLM appendix B: 6 N + 12 L H Q T training FLOPs per token; N = the parameters without "
         "the tables only looked up (position embeddings, an untied token embedding; a tied one is the LM head's "
         "matmul and counts), H Q = the attention width heads x head_dim (grouped-query attention's smaller K/V "
         "projections are in N), T = the sequence (a sliding-window layer counts the min(W, T) keys it attends "
         "in place of T); a mixture of experts counts its active parameters in N (the router, the k routed "
         "experts and the shared expert a token meets); multi-head latent attention's QK^T counts heads x (nope + rope) "
         "channels and its AV heads x v_head_dim in place of 2 H Q; forward = a third";
}

std::string DecoderLmWorkload::real_data_format() const {
  return token_bytes_for(spec_.vocab) == 4 ? "a token file of uint32 ids (a nanoGPT train.bin's layout with 4-byte ids)"
                             : "a nanoGPT train.bin (uint16 token ids)";
}

WorkloadTraits DecoderLmWorkload::traits() const {
  WorkloadTraits traits;
  traits.segments = true;     // its decoder layers
  traits.units = true;        // the same layers
  traits.fp8_linears = true;  // every Linear of the layers
  traits.loss_from_output = !spec_.router_loss;
  traits.capturable = !spec_.host_reads;
  traits.experts = static_cast<int>(spec_.experts);
  traits.stacked_experts = spec_.stacked_experts;
  traits.python_twin = spec_.python_twin.has_value();
  traits.real_scale = spec_.real_scale;
  return traits;
}

MemoryEstimate decoder_memory_estimate(const Config& config, std::int64_t batch, const DecoderSizes& s) {
  MemoryEstimate estimate;
  const double parameters = static_cast<double>(s.parameters);
  estimate.states = 16.0 * parameters;
  estimate.activations = decoder_activation_bytes(config, batch, s);
  // The logits (16-bit under autocast), their fp32 copy for the loss and its gradient.
  estimate.logits = static_cast<double>(batch) * static_cast<double>(s.seq) * static_cast<double>(s.vocab) *
                    (sixteen_bit(config.precision) ? 10.0 : 12.0);
  estimate.checkpoint = 16.0 * parameters;
  // The largest tensor, the [vocab, hidden] embedding, is copied in passing: its gradient's
  // two contributions and their sum when the head is tied, Adam's sqrt and scaled
  // temporaries. Four fp32 copies cover either, with room for a heap that keeps what it
  // freed (seen: a 1.24B llama that fit without them was OOM-killed on a 24 GiB host).
  estimate.workspace = 4.0 * 4.0 * static_cast<double>(s.vocab) * static_cast<double>(s.hidden) +
                       backward_working_bytes(config, batch, s);
  // One rank's share where the config has ranks (workloads/sharded_memory.h), before the
  // CPU's heap slack, which follows what the rank holds.
  const std::int64_t root = s.root_parameters > 0 ? s.root_parameters : s.vocab * s.hidden;
  UnitSizes units{s.parameters, s.layers > 0 ? (s.parameters - root) / s.layers : 0, root};
  units.experts = s.expert_parameters;
  units.layers = s.layers;
  // ep-K: the rows a rank receives a sparse layer (on average B T k), regrouped by expert and
  // kept for backward (its experts' input), in the residual's fp32.
  units.dispatch_bytes = 4.0 * static_cast<double>(s.sparse_layers) * static_cast<double>(batch) *
                         static_cast<double>(s.seq) * static_cast<double>(s.top_k) * static_cast<double>(s.hidden);
  estimate = per_rank_estimate(estimate, config, units);
  // On a CPU the process itself, and the heap's slack: under --host-malloc retain (the
  // default) freed tensors stay in the heap, and what a step makes anew lands beside them:
  // the gradients (TinyLlama-1.1B at seq 16: 19.5 GiB resident from the second step on,
  // against 17.9 GiB of tensors; 18.1 GiB with --host-malloc glibc), and the activations and
  // backward's gradients of them (a Llama with a 65536-wide MLP at 512 tokens: 2.71 GiB
  // resident, 2.03 GiB with glibc, against 1.63 GiB of tensors).
  if (config.device == DeviceKind::Cpu)
    estimate.workspace += kHostProcessBytes + kHostHeapSlack * estimate.states +
                          kHostHeapChurnSlack * (estimate.activations + estimate.logits + backward_working_bytes(config, batch, s));
  return estimate;
}

std::unique_ptr<Workload> DecoderLmWorkload::on_device(DeviceKind device) const {
  if (device != DeviceKind::Cpu || spec_.cpu_seq_len <= 0 || spec_.cpu_seq_len == spec_.seq_len) return nullptr;
  DecoderLmSpec cpu = spec_;
  cpu.seq_len = spec_.cpu_seq_len;
  cpu.seq_len_reason = spec_.cpu_seq_len_reason;
  return std::make_unique<DecoderLmWorkload>(std::move(cpu));
}

void set_cpu_sequence(DecoderLmSpec& spec, bool requested) {
  if (requested || spec.seq_len <= kCpuDefaultSequence) return;
  spec.cpu_seq_len = kCpuDefaultSequence;
  spec.cpu_seq_len_reason = "on a CPU " + std::to_string(kCpuDefaultSequence) + " tokens of the GPU rows' " +
                            std::to_string(spec.seq_len) + " (" + spec.seq_len_reason +
                            "), so a step takes seconds and a preset measures its spread: --seq-len to change it";
}

std::optional<MemoryEstimate> DecoderLmWorkload::memory_estimate(const Config& config, std::int64_t batch_size) const {
  DecoderSizes sizes{spec_.parameters, spec_.seq_len, spec_.hidden, spec_.heads, spec_.layers, spec_.vocab};
  sizes.layout = spec_.gated_mlp ? DecoderLayout::Gated : DecoderLayout::Gpt2;
  sizes.keeps_attention_scores = spec_.keeps_attention_scores;
  sizes.extra_norms = spec_.extra_norms;
  sizes.intermediate = spec_.intermediate;
  sizes.attention_width = spec_.attention_width;
  sizes.kv_width = spec_.kv_width;
  sizes.cast_parameters = spec_.flops_parameters;
  sizes.root_parameters = spec_.root_parameters;
  sizes.expert_parameters = spec_.expert_parameters;
  sizes.sparse_layers = spec_.sparse_layers;
  sizes.top_k = spec_.top_k;
  return decoder_memory_estimate(config, batch_size, sizes);
}

DecoderLmSpec decoder_lm_spec(const std::string& name, const DecoderShape& shape, std::int64_t seq_len,
                              const WeightLoader& load) {
  DecoderLmSpec spec;
  spec.name = name;
  spec.family = "decoder";
  spec.make_model = [shape, load](const ModelTechniques& techniques) { return make_decoder_model(shape, techniques, load); };
  spec.parameters = shape.parameters();
  // A tied embedding is the LM head's matmul and counts; an untied one is only looked up.
  spec.flops_parameters = spec.parameters - shape.lookup_parameters();
  spec.root_parameters = shape.vocab * shape.hidden * (shape.tie_word_embeddings ? 1 : 2) +
                         shape.hidden * (shape.norm == NormKind::LayerNorm ? 2 : 1);
  spec.layers = shape.layers;
  spec.attention_width = shape.heads * shape.head_dim;
  spec.kv_width = shape.kv_heads * shape.head_dim;
  if (shape.latent) {  // every head's key is [nope | rope] wide, as its query
    spec.attention_width = spec.kv_width = shape.heads * shape.latent->qk_head_dim();
    spec.value_width = shape.heads * shape.latent->v_head_dim;
  }
  spec.intermediate = shape.intermediate;
  spec.hidden = shape.hidden;
  spec.heads = shape.heads;
  spec.vocab = shape.vocab;
  spec.seq_len = seq_len;
  for (std::int64_t layer = 0; layer < shape.layers && !shape.layer_attention.empty(); ++layer)
    spec.windows.push_back(shape.attention_of(layer).window.value_or(0));
  spec.extra_norms = shape.norms_per_layer() - 2 + (shape.qk_norm == QkNorm::None ? 0 : 1);
  spec.keeps_attention_scores = shape.attention_softcap.has_value() || shape.attention_sinks;  // eager attention
  spec.gated_mlp = shape.mlp != MlpKind::Plain;
  spec.router_loss = shape.moe.aux_loss_coef.has_value();
  spec.host_reads = shape.moe.experts > 0;  // the experts' loop reads each one's token count
  spec.experts = shape.moe.experts;
  spec.stacked_experts = shape.moe.layout == MoeShape::Experts::Stacked;
  spec.expert_parameters = shape.routed_expert_parameters();
  spec.sparse_layers = shape.sparse_layers();
  spec.top_k = shape.moe.top_k;
  // A mixture of experts: FLOPs count the active parameters (the router, k routed and the
  // shared experts a token meets), and a layer's MLP activations are the k experts' widths.
  if (shape.moe.experts > 0) {
    spec.flops_parameters = shape.active_parameters() - shape.lookup_parameters();
    spec.intermediate = shape.moe.top_k * shape.moe.expert_intermediate + shape.moe.shared_intermediate;
  }
  spec.definition = shape.describe();
  return spec;
}

DecoderLmSpec builtin_decoder_spec(const std::string& name, const DecoderShape& shape, std::optional<std::int64_t> seq_len,
                                   const std::string& default_reason) {
  DecoderLmSpec spec = decoder_lm_spec(name, shape, seq_len.value_or(2048));
  spec.seq_len_reason = seq_len ? "--seq-len" : default_reason;
  spec.gpu_batch = 4;
  spec.cpu_batch = 1;
  set_cpu_sequence(spec, seq_len.has_value());
  return spec;
}

std::unique_ptr<Workload> make_llama_workload(std::optional<std::int64_t> seq_len) {
  DecoderLmSpec spec = builtin_decoder_spec("llama", DecoderShape::llama_3_2_1b(), seq_len,
                                            "built-in: 2048 of Llama 3.2's 131072-token context, with micro-batch 4 "
                                            "~54 GB of an 80 GB GPU (workloads/README.md)");
  spec.definition["definition"] =
      "Llama-3.2-1B's shape (meta-llama/Llama-3.2-1B config.json): 16 layers, hidden 2048, 32 heads, 8 KV heads, "
      "head_dim 64, SwiGLU 8192, RMSNorm eps 1e-5, RoPE theta 500000 with llama3 scaling, tied embeddings, vocab "
      "128256; HF LlamaForCausalLM's computation and names; random init N(0, 0.02); next-token cross-entropy; Adam lr 1e-3";
  return std::make_unique<DecoderLmWorkload>(std::move(spec));
}

}  // namespace gpubench
