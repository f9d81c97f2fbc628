"""Tiny reference cases for gpt_oss and deepseek_v3 (hf_family_reference.py merges CASES into its own and runs them
like the other MoE cases of hf_moe_cases.py; entry layout and options as in hf_family_cases.py, plus
  prepare   f(model) run on the built model after the noise, before save_pretrained (weights a check needs)).

gpt_oss (GptOssForCausalLM, eager attention: 5.17 has no SDPA for its sinks): experts stacked as saved
(mlp.experts.gate_up_proj [E, hidden, 2I] gate/up interleaved, down_proj [E, I, hidden], with biases), router with a
bias (mlp.router), the top-2 logits softmaxed, a sink per head, layer_types sliding/full (window 8 < T=24), YaRN, aux
loss on. 5.17's GptOssExperts clamps at a fixed 7.0 (it reads no swiglu_limit from the config), so the case makes the
clamp bite by scaling gate_up_proj x8 before saving: a share of gate and up values lands beyond +-7 (printed).

deepseek_v3 (DeepseekV3ForCausalLM, sdpa): multi-head latent attention (q through q_lora_rank, or q_proj with
q_lora_rank null), rope_interleave, YaRN with mscale != mscale_all_dim (the softmax scale times mscale_all_dim's
mscale squared), sigmoid routing with e_score_correction_bias (set nonzero before saving: a buffer gets no noise),
n_group 4 / topk_group 2, routed_scaling_factor, one shared expert, first_k_dense_replace 1. Its experts are fused in
memory and saved per expert (mlp.experts.E.gate_proj/up_proj/down_proj), as qwen2_moe's. No aux loss: 5.17's
DeepseekV3ForCausalLM returns a plain CausalLMOutputWithPast.
"""
import torch

from hf_family_cases import bites, relative_change
from hf_moe_cases import routing_facts

VOCAB, WINDOW = 101, 8
ROUTER_SCALE = 4.0
GPT_OSS = dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=24, num_hidden_layers=2, num_attention_heads=4,
               num_key_value_heads=2, head_dim=8, num_local_experts=4, num_experts_per_tok=2, sliding_window=WINDOW,
               layer_types=["sliding_attention", "full_attention"], max_position_embeddings=64,
               output_router_logits=True, router_aux_loss_coef=0.02, tie_word_embeddings=False,
               rope_parameters=dict(rope_type="yarn", rope_theta=150000.0, factor=4.0, beta_fast=32.0, beta_slow=1.0,
                                    truncate=False, original_max_position_embeddings=16))
DEEPSEEK = dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=48, moe_intermediate_size=16, num_hidden_layers=3,
                num_attention_heads=4, num_key_value_heads=4, n_routed_experts=8, n_group=4, topk_group=2,
                num_experts_per_tok=2, n_shared_experts=1, first_k_dense_replace=1, routed_scaling_factor=2.5,
                norm_topk_prob=True, kv_lora_rank=12, qk_rope_head_dim=4, qk_nope_head_dim=6, v_head_dim=8,
                rope_interleave=True, max_position_embeddings=64, tie_word_embeddings=False,
                rope_parameters=dict(rope_type="yarn", rope_theta=10000.0, factor=4.0, mscale=1.0, mscale_all_dim=0.8,
                                     beta_fast=32.0, beta_slow=1.0, original_max_position_embeddings=16))


def scale_gate_up(model):
    with torch.no_grad():
        for layer in model.model.layers:
            layer.mlp.experts.gate_up_proj.mul_(8.0)


def check_gpt_oss(model, ids, logits):
    facts = routing_facts(model, ids)
    # The clamp: gate_up values of the tokens each expert computes, before _apply_gate.
    seen = []
    hooks = [layer.mlp.experts.register_forward_hook(lambda m, args, out: seen.append(args))
             for layer in model.model.layers]
    with torch.no_grad():
        model(input_ids=ids)
    for hook in hooks:
        hook.remove()
    gate_above = up_outside = total = 0
    for experts, (states, indices, _) in zip([layer.mlp.experts for layer in model.model.layers], seen):
        for e in indices.unique().tolist():
            rows = states[(indices == e).any(-1)]
            gate_up = rows @ experts.gate_up_proj[e] + experts.gate_up_proj_bias[e]
            gate_above += int((gate_up[:, ::2] > experts.limit).sum())
            up_outside += int((gate_up[:, 1::2].abs() > experts.limit).sum())
            total += gate_up[:, ::2].numel()
    assert gate_above > 0 and up_outside > 0, (gate_above, up_outside)
    facts.append("clamp at %.1f bites: %d of %d gate values above it, %d up values outside +-it"
                 % (model.model.layers[0].mlp.experts.limit, gate_above, total, up_outside))
    sinks = [layer.self_attn.sinks for layer in model.model.layers]
    saved = [s.detach().clone() for s in sinks]
    with torch.no_grad():
        for s in sinks:
            s.fill_(-1e4)  # exp(-1e4) = 0: no sink
        plain = model(input_ids=ids).logits
        for s, v in zip(sinks, saved):
            s.copy_(v)
    change = relative_change(logits.detach(), plain)
    assert change > 1e-3, change
    facts.append("the sinks change the logits by %.3g (against sinks of -1e4)" % change)
    facts.append(bites(model, ids, logits, "layer_types full vs sliding", layer_types=["full_attention"] * 2))
    return facts


def set_correction_bias(model):
    """A nonzero e_score_correction_bias, and router weights x4 so that token-dependent scores spread the tokens over
    every expert (the normed hidden states share a direction)."""
    generator = torch.Generator().manual_seed(7)
    with torch.no_grad():
        for layer in model.model.layers:
            if hasattr(layer.mlp, "gate"):
                layer.mlp.gate.weight.mul_(ROUTER_SCALE)
                layer.mlp.gate.e_score_correction_bias.copy_(
                    torch.randn(layer.mlp.gate.e_score_correction_bias.shape, generator=generator) * 0.05)


def check_deepseek_v3(model, ids, logits):
    c = model.config
    captured = []
    hooks = [layer.mlp.gate.register_forward_hook(lambda m, args, out: captured.append((m, args[0], out)))
             for layer in model.model.layers if hasattr(layer.mlp, "gate")]
    with torch.no_grad():
        model(input_ids=ids)
    for hook in hooks:
        hook.remove()
    facts, limited, gaps = [], 0, []
    for index, (router, hidden, (router_logits, weights, chosen)) in enumerate(captured):
        counts = torch.bincount(chosen.reshape(-1), minlength=c.n_routed_experts).tolist()
        assert min(counts) > 0, "sparse layer %d: an expert gets no token %s" % (index, counts)
        for_choice = router_logits.sigmoid() + router.e_score_correction_bias
        # the group limit must matter: plain top-k over every expert differs for some token
        plain = torch.topk(for_choice, c.num_experts_per_tok, dim=-1).indices.sort(-1).values
        limited += int((plain != chosen.sort(-1).values).any(-1).sum())
        # near-ties could flip a choice on the C++ side: the groups' (sum of their two best) and the experts'
        groups = for_choice.view(-1, c.n_group, c.n_routed_experts // c.n_group).topk(2, -1).values.sum(-1)
        top_groups = groups.topk(c.topk_group + 1, -1).values
        gaps.append(float((top_groups[:, -2] - top_groups[:, -1]).min()))
        eligible = for_choice.gather(1, chosen)
        others = for_choice.scatter(1, chosen, float("-inf"))
        group_of = torch.arange(c.n_routed_experts) // (c.n_routed_experts // c.n_group)
        kept = groups.topk(c.topk_group, -1).indices
        others = others.masked_fill(~(group_of[None, :, None] == kept[:, None, :]).any(-1), float("-inf"))
        gaps.append(float((eligible.min(-1).values - others.max(-1).values).min()))
        facts.append("sparse layer %d: top-%d slots per expert %s; weights sum %.3f (x routed_scaling_factor %g)"
                     % (index + c.first_k_dense_replace, c.num_experts_per_tok, counts,
                        float(weights.sum(-1).mean()), c.routed_scaling_factor))
        assert float(eligible.min()) > -1e30
    assert limited > 0, "group-limited routing never changed a choice"
    assert min(gaps) > 1e-4, "a group or expert choice is a near-tie (%.2e): pick another seed" % min(gaps)
    facts.append("smallest gap of a group or expert choice: %.2e (choices are robust)" % min(gaps))
    facts.append("group limit (n_group %d, topk_group %d) changes %d tokens' choices against plain top-k"
                 % (c.n_group, c.topk_group, limited))
    attn = model.model.layers[0].self_attn
    facts.append("softmax scale %.6f (qk_head_dim^-0.5 = %.6f, times mscale_all_dim's mscale squared)"
                 % (attn.scaling, attn.qk_head_dim ** -0.5))
    facts.append(bites(model, ids, logits, "rope_interleave true vs false", rope_interleave=not c.rope_interleave))
    return facts


CASES = {
    # (1) gpt-oss: 4 experts top 2, sinks, sliding/full layers, biases, clamp biting (gate_up x8), YaRN, aux loss.
    "gpt_oss_sinks_clamp": ("GptOssConfig", dict(GPT_OSS), None,
                            dict(check=check_gpt_oss, prepare=scale_gate_up, seed=3)),
    # (2) DeepSeek-V3: q_lora_rank 16, interleaved RoPE, YaRN with mscale, 8 experts in 4 groups (top 2 groups),
    # top 2, one shared expert, layer 0 dense.
    "deepseek_v3_mla": ("DeepseekV3Config", dict(DEEPSEEK, q_lora_rank=16), None,
                        dict(check=check_deepseek_v3, prepare=set_correction_bias)),
    # (3) The same with q_lora_rank null (q_proj), half-split RoPE (rope_interleave false), norm_topk_prob false.
    "deepseek_v3_no_q_lora": ("DeepseekV3Config", dict(DEEPSEEK, q_lora_rank=None, rope_interleave=False,
                                                       norm_topk_prob=False), None,
                              dict(check=check_deepseek_v3, prepare=set_correction_bias)),
}
