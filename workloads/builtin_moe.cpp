// The built-in `moe` workload (issue 57): a fine-grained mixture of experts as current ones
// are shaped (many narrow experts, top-k of 8), sized so that one 80 GB GPU trains it with
// Adam under amp-bf16. Built from a Qwen3-MoE config.json through the family's own reader,
// so the row computes exactly what a user's qwen3_moe computes (docs/workloads.md).
#include <nlohmann/json.hpp>

#include "workloads/decoder_lm.h"
#include "workloads/formats/hf_decoder_config.h"

namespace gpubench {
namespace {

// Qwen3-30B-A3B's config.json (Qwen/Qwen3-30B-A3B) at half its width, a third of its
// depth and half its experts: hidden 1024, 16 layers, 64 experts of width 384, top 8
// renormalised, 16 query and 4 key/value heads of 64, per-head q/k RMSNorm, untied vocab
// 151936. No load-balancing loss in the training loss (output_router_logits false, the
// family's default): ckpt and dp stay open to it.
nlohmann::json moe_config() {
  return {{"architectures", {"Qwen3MoeForCausalLM"}},
          {"model_type", "qwen3_moe"},
          {"hidden_size", 1024},
          {"intermediate_size", 3072},
          {"moe_intermediate_size", 384},
          {"num_hidden_layers", 16},
          {"num_attention_heads", 16},
          {"num_key_value_heads", 4},
          {"head_dim", 64},
          {"num_experts", 64},
          {"num_experts_per_tok", 8},
          {"norm_topk_prob", true},
          {"decoder_sparse_step", 1},
          {"mlp_only_layers", nlohmann::json::array()},
          {"output_router_logits", false},
          {"router_aux_loss_coef", 0.001},
          {"vocab_size", 151936},
          {"max_position_embeddings", 40960},
          {"rope_theta", 1000000.0},
          {"rms_norm_eps", 1e-6},
          {"tie_word_embeddings", false},
          {"attention_bias", false},
          {"use_sliding_window", false},
          {"hidden_act", "silu"},
          {"torch_dtype", "bfloat16"}};
}

}  // namespace

std::unique_ptr<Workload> make_moe_workload(std::optional<std::int64_t> seq_len) {
  const DecoderConfig config = parse_decoder_config(moe_config(), "the built-in moe workload's config");
  DecoderLmSpec spec = decoder_lm_spec("moe", config.shape, seq_len.value_or(2048));
  spec.parameters = config.parameter_count();
  spec.seq_len_reason = seq_len ? "--seq-len" : "built-in: 2048 tokens, with micro-batch 4 within an 80 GB GPU (docs/workloads.md)";
  spec.gpu_batch = 4;
  spec.cpu_batch = 1;
  set_cpu_sequence(spec, seq_len.has_value());
  spec.definition["definition"] =
      "a fine-grained mixture of experts: Qwen3-30B-A3B's config.json (qwen3_moe) at half its width, a third of its "
      "depth and half its experts: 16 layers, hidden 1024, 16 heads (4 key/value) of 64 with per-head q/k RMSNorm, 64 "
      "routed experts of width 384 a layer with the top 8 renormalised (no shared expert), untied vocab 151936; " +
      std::to_string(spec.parameters) + " parameters; HF Qwen3MoeForCausalLM's computation; random init N(0, 0.02); "
      "next-token cross-entropy (no load-balancing loss: output_router_logits false); Adam lr 1e-3";
  return std::make_unique<DecoderLmWorkload>(std::move(spec));
}

}  // namespace gpubench
