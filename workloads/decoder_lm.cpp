#include "workloads/decoder_lm.h"

#include <algorithm>

#include "workloads/data/token_windows.h"
#include "workloads/llama.h"
#include "workloads/model_flops.h"

namespace gpubench {
namespace {

bool sixteen_bit(Precision precision) {
  return precision == Precision::AmpBf16 || precision == Precision::AmpFp16 || precision == Precision::Bf16 ||
         precision == Precision::Fp8;
}

double decoder_activation_bytes(const Config& config, std::int64_t batch, std::int64_t seq, std::int64_t hidden,
                                std::int64_t heads, std::int64_t layers, bool keeps_scores) {
  const double tokens = static_cast<double>(batch) * static_cast<double>(seq);
  const double per_layer_16bit = 34.0 * static_cast<double>(hidden) * tokens;
  double per_layer = sixteen_bit(config.precision) ? per_layer_16bit : 2 * per_layer_16bit;
  // A CPU's scaled_dot_product_attention is the math path: it keeps the T x T scores and
  // their softmax, in fp32, per head.
  if (keeps_scores || config.device == DeviceKind::Cpu)
    per_layer += 2.0 * 4.0 * static_cast<double>(heads) * static_cast<double>(seq) * static_cast<double>(seq) *
                 static_cast<double>(batch);
  if (!config.checkpoint) return per_layer * static_cast<double>(layers);
  // ckpt keeps each layer's input (the fp32 residual stream) and recomputes one layer at a time.
  return 4.0 * static_cast<double>(hidden) * tokens * static_cast<double>(layers) + per_layer;
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
  // Per token N multiply-adds in the matmuls of the weights, and 2 L A T in attention's
  // QK^T and AV (A = heads x head_dim): nanoGPT's 6N + 12 L H Q T training FLOPs a token.
  return spec_.seq_len * (spec_.flops_parameters + 2 * spec_.layers * spec_.attention_width * spec_.seq_len);
}

std::string DecoderLmWorkload::flops_convention() const {
  return "nanoGPT estimate_mfu / PaLM appendix B: 6 N + 12 L H Q T training FLOPs per token; N = the parameters without "
         "the tables only looked up (position embeddings, an untied token embedding; a tied one is the LM head's "
         "matmul and counts), H Q = the attention width heads x head_dim (grouped-query attention's smaller K/V "
         "projections are in N), T = the sequence; forward = a third";
}

std::string DecoderLmWorkload::real_data_format() const {
  return token_bytes_for(spec_.vocab) == 4 ? "a token file of uint32 ids (a nanoGPT train.bin's layout with 4-byte ids)"
                             : "a nanoGPT train.bin (uint16 token ids)";
}

WorkloadTraits DecoderLmWorkload::traits() const {
  WorkloadTraits traits;
  traits.segments = true;     // its decoder layers
  traits.fp8_linears = true;  // every Linear of the layers
  traits.real_scale = spec_.real_scale;
  return traits;
}

MemoryEstimate decoder_memory_estimate(const Config& config, std::int64_t batch, const DecoderSizes& s) {
  MemoryEstimate estimate;
  const double parameters = static_cast<double>(s.parameters);
  estimate.states = 16.0 * parameters;
  estimate.activations = decoder_activation_bytes(config, batch, s.seq, s.hidden, s.heads, s.layers, s.keeps_attention_scores);
  // The logits (16-bit under autocast), their fp32 copy for the loss and its gradient.
  estimate.logits = static_cast<double>(batch) * static_cast<double>(s.seq) * static_cast<double>(s.vocab) *
                    (sixteen_bit(config.precision) ? 10.0 : 12.0);
  estimate.checkpoint = 16.0 * parameters;
  // The largest tensor, the [vocab, hidden] embedding, is copied in passing: its gradient's
  // two contributions and their sum when the head is tied, Adam's sqrt and scaled
  // temporaries. Four fp32 copies cover either, with room for a heap that keeps what it
  // freed (seen: a 1.24B llama that fit without them was OOM-killed on a 24 GiB host).
  estimate.workspace = 4.0 * 4.0 * static_cast<double>(s.vocab) * static_cast<double>(s.hidden);
  // On a CPU the process itself, and the heap's slack: under --host-malloc retain (the
  // default) freed tensors stay in the heap, and the gradients made anew each step land
  // beside them (TinyLlama-1.1B at seq 16: 19.5 GiB resident from the second step on,
  // against 17.9 GiB of tensors; 18.1 GiB with --host-malloc glibc).
  if (config.device == DeviceKind::Cpu) estimate.workspace += kHostProcessBytes + kHostHeapSlack * estimate.states;
  return estimate;
}

std::optional<MemoryEstimate> DecoderLmWorkload::memory_estimate(const Config& config, std::int64_t batch_size) const {
  return decoder_memory_estimate(config, batch_size,
                                 {spec_.parameters, spec_.seq_len, spec_.hidden, spec_.heads, spec_.layers, spec_.vocab});
}

std::unique_ptr<Workload> make_llama_workload(std::optional<std::int64_t> seq_len) {
  const LlamaShape shape = LlamaShape::llama_3_2_1b();
  DecoderLmSpec spec;
  spec.name = "llama";
  spec.family = "llama";
  spec.make_model = [shape](const ModelTechniques& techniques) { return make_llama_model(shape, techniques); };
  spec.parameters = spec.flops_parameters = shape.parameters();  // tied: the embedding is the LM head
  spec.layers = shape.layers;
  spec.attention_width = shape.heads * shape.head_dim;
  spec.hidden = shape.hidden;
  spec.heads = shape.heads;
  spec.vocab = shape.vocab;
  spec.seq_len = seq_len.value_or(2048);
  spec.seq_len_reason = seq_len ? "--seq-len" : "built-in: 2048 of Llama 3.2's 131072-token context, with micro-batch 4 "
                                                "~40 GB of an 80 GB GPU (workloads/README.md)";
  spec.gpu_batch = 4;
  spec.cpu_batch = 1;
  spec.definition = shape.describe();
  spec.definition["definition"] =
      "Llama-3.2-1B's shape (meta-llama/Llama-3.2-1B config.json): 16 layers, hidden 2048, 32 heads, 8 KV heads, "
      "head_dim 64, SwiGLU 8192, RMSNorm eps 1e-5, RoPE theta 500000 with llama3 scaling, tied embeddings, vocab "
      "128256; HF LlamaForCausalLM's computation and names; random init N(0, 0.02); next-token cross-entropy; Adam lr 1e-3";
  return std::make_unique<DecoderLmWorkload>(std::move(spec));
}

}  // namespace gpubench
