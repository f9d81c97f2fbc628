"""Tiny mixture-of-experts reference cases (mixtral, qwen2_moe, qwen3_moe, olmoe); hf_family_reference.py merges
CASES into its own and runs them like the dense ones (entry layout and options as in hf_family_cases.py).

What differs from a dense case (the forward itself is written down in moe-spec.md, handed over with this file):
  * 5.17 holds the experts fused in memory (mlp.experts.gate_up_proj [E, 2I, H], mlp.experts.down_proj [E, H, I])
    but save_pretrained writes one 2-D tensor per expert (mixtral ...block_sparse_moe.experts.E.w1/w3/w2.weight,
    the others ...mlp.experts.E.gate_proj/up_proj/down_proj.weight): the generator stores the gradient of each
    fused parameter split the same way, under those saved names.
  * With output_router_logits true (and labels) HF's loss is CE + router_aux_loss_coef * load-balancing loss; the
    reference file then also holds ce_loss and aux_loss (ce_loss alone when the aux loss is off). Gradients are of
    the total loss.
  * Every check asserts that routing is not degenerate (each expert of each sparse layer gets tokens), prints the
    tokens per expert, and recomputes the aux loss from the router logits by the spec's formula. With 8 experts and
    48 tokens some expert often gets none (the normed hidden states share a common direction), so those cases set
    option `seed` (the model seed; SEED + 1 -> seed + 1 for the noise; the data seed is unchanged) to one found to
    give every expert at least 2 top-2 slots.
All cases: vocab 101, hidden 32, heads 4 / kv heads 2, top-2 routing, router jitter 0, dropouts 0, B=2, T=24.
"""
import torch
import torch.nn.functional as F

from hf_family_cases import bites

VOCAB, WINDOW = 101, 8
MOE_SHAPE = dict(vocab_size=VOCAB, hidden_size=32, num_attention_heads=4, num_key_value_heads=2, num_experts_per_tok=2,
                 tie_word_embeddings=False, output_router_logits=True, router_aux_loss_coef=0.02)


def router_logits(model, ids):
    """Router logits of each sparse layer (HF's router_logits output) of a no-grad training-mode forward."""
    with torch.no_grad():
        out = model(input_ids=ids, output_router_logits=True)
    return out.router_logits


def sparse_layers(model):
    return [i for i, layer in enumerate(model.model.layers) if hasattr(layer.mlp, "experts")]


def spec_aux_loss(logits_per_layer, num_experts, top_k):
    """/tmp/moe-spec.md section 3: E * sum_e f_e * P_e over all sparse layers' rows (attention_mask None)."""
    rows = torch.cat(logits_per_layer, dim=0)
    probs = torch.softmax(rows.float(), dim=-1)
    chosen = torch.topk(probs, top_k, dim=-1).indices
    f = F.one_hot(chosen, num_experts).float().sum(dim=1).mean(dim=0)  # fraction of top-k slots, sums to top_k
    p = probs.mean(dim=0)
    return num_experts * (f * p).sum()


def routing_facts(model, ids):
    c = model.config
    experts = getattr(c, "num_local_experts", None) or c.num_experts
    layers = sparse_layers(model)
    per_layer = router_logits(model, ids)
    assert len(per_layer) == len(layers), (len(per_layer), layers)
    facts = []
    for index, logits in zip(layers, per_layer):
        top = torch.topk(torch.softmax(logits.float(), -1), c.num_experts_per_tok, dim=-1).indices
        counts = torch.bincount(top.reshape(-1), minlength=experts).tolist()
        assert min(counts) > 0, "layer %d: an expert gets no token %s" % (index, counts)
        facts.append("layer %d sparse: top-%d slots per expert %s (of %d tokens)"
                     % (index, c.num_experts_per_tok, counts, logits.shape[0]))
    # the C++ side rounds differently: a near-tie between the k-th and (k+1)-th probability could flip a choice
    gaps = [torch.topk(torch.softmax(l.float(), -1), c.num_experts_per_tok + 1, dim=-1).values for l in per_layer]
    gap = min(float((v[:, -2] - v[:, -1]).min()) for v in gaps)
    assert gap > 1e-4, "a top-k choice is a near-tie (%.2e): pick another seed" % gap
    facts.append("smallest gap between the k-th and (k+1)-th router probability: %.2e (choices are robust)" % gap)
    dense = [i for i in range(c.num_hidden_layers) if i not in layers]
    facts.append("dense MLP layers: %s" % (dense or "none"))
    with torch.no_grad():
        out = model(input_ids=ids, labels=ids, output_router_logits=True)
    mine = spec_aux_loss(per_layer, experts, c.num_experts_per_tok)
    assert torch.allclose(out.aux_loss, mine, rtol=1e-6, atol=0), (out.aux_loss.item(), mine.item())
    if c.output_router_logits:  # the total loss's gradient includes the aux term (router weights and upstream)
        mlp = model.model.layers[layers[0]].mlp
        router = (mlp.gate if hasattr(mlp, "gate") else mlp.router).weight  # gpt_oss: mlp.router
        out = model(input_ids=ids, labels=ids)
        total, = torch.autograd.grad(out.loss, router, retain_graph=True)
        ce_only, = torch.autograd.grad(out.loss - c.router_aux_loss_coef * out.aux_loss, router)
        change = float((total - ce_only).abs().max() / total.abs().max())
        assert change > 1e-3, change
        facts.append("the aux term changes layer %d's router gradient by %.3g (max abs, relative)"
                     % (layers[0], change))
    facts.append("aux loss %.7f = spec formula %.7f (uniform routing would give %d); coef %g, output_router_logits %s"
                 % (out.aux_loss.item(), mine.item(), c.num_experts_per_tok, c.router_aux_loss_coef,
                    c.output_router_logits))
    return facts


def check_mixtral(model, ids, logits):
    return routing_facts(model, ids) + [bites(model, ids, logits, "top-2 vs top-1 routing", num_experts_per_tok=1)]


def check_mixtral_window(model, ids, logits):
    return routing_facts(model, ids) + [bites(model, ids, logits, "sliding window 8 vs none", sliding_window=None)]


def check_qwen2_moe(model, ids, logits):
    gate = model.model.layers[1].mlp.shared_expert_gate.weight
    return routing_facts(model, ids) + [
        "shared_expert_gate.weight %s (sigmoid gate per token)" % list(gate.shape),
        bites(model, ids, logits, "norm_topk_prob false vs true", norm_topk_prob=True)]


def check_qwen3_moe(model, ids, logits):
    return routing_facts(model, ids) + [
        "head_dim %d != hidden/heads %d; q_norm %s" % (model.config.head_dim, 32 // 4,
                                                       list(model.model.layers[0].self_attn.q_norm.weight.shape)),
        bites(model, ids, logits, "norm_topk_prob true vs false", norm_topk_prob=False)]


def check_olmoe(model, ids, logits):
    attn = model.model.layers[0].self_attn
    return routing_facts(model, ids) + [
        "q_norm %s, k_norm %s (RMSNorm over the full projected width, before the head split)"
        % (list(attn.q_norm.weight.shape), list(attn.k_norm.weight.shape))]


def moe(check, **options):
    return dict(options, check=check)


CASES = {
    # (1) Mixtral: 4 experts, top 2 (always renormalised), every layer sparse, no window, aux loss on (coef 0.02).
    "mixtral_moe": ("MixtralConfig", dict(MOE_SHAPE, intermediate_size=48, num_hidden_layers=2, num_local_experts=4,
                                          router_jitter_noise=0.0, sliding_window=None, max_position_embeddings=64,
                                          rope_parameters=dict(rope_type="default", rope_theta=1e6)),
                    None, moe(check_mixtral)),
    # (2) The same with output_router_logits false (loss = CE only; HF's default) and a sliding window of 8 on every
    # layer (mistral attention).
    "mixtral_moe_window_noaux": ("MixtralConfig", dict(MOE_SHAPE, intermediate_size=48, num_hidden_layers=2,
                                                       num_local_experts=4, router_jitter_noise=0.0,
                                                       sliding_window=WINDOW, output_router_logits=False,
                                                       max_position_embeddings=64,
                                                       rope_parameters=dict(rope_type="default", rope_theta=1e6)),
                                 None, moe(check_mixtral_window)),
    # (3) Qwen2-MoE: 8 experts (width 16) + shared expert (width 48) with its sigmoid gate, norm_topk_prob false,
    # decoder_sparse_step 2 over 4 layers: layers 1, 3 sparse, 0, 2 dense (width 64); q/k/v biases (qkv_bias).
    "qwen2_moe_shared": ("Qwen2MoeConfig", dict(MOE_SHAPE, intermediate_size=64, num_hidden_layers=4, num_experts=8,
                                                moe_intermediate_size=16, shared_expert_intermediate_size=48,
                                                norm_topk_prob=False, decoder_sparse_step=2, qkv_bias=True,
                                                max_position_embeddings=64, use_sliding_window=False,
                                                rope_parameters=dict(rope_type="default", rope_theta=1e6)),
                         None, moe(check_qwen2_moe, seed=10)),
    # (4) Qwen3-MoE: 8 experts (width 24), norm_topk_prob true, mlp_only_layers [1] (dense width 64), per-head q/k
    # RMSNorm, head_dim 16 != hidden/heads.
    "qwen3_moe": ("Qwen3MoeConfig", dict(MOE_SHAPE, intermediate_size=64, num_hidden_layers=3, num_experts=8,
                                         moe_intermediate_size=24, norm_topk_prob=True, mlp_only_layers=[1],
                                         head_dim=16, max_position_embeddings=64,
                                         rope_parameters=dict(rope_type="default", rope_theta=1e6)),
                  None, moe(check_qwen3_moe, seed=5)),
    # (5) OLMoE: 4 experts (width 48), every layer sparse, norm_topk_prob false, q/k RMSNorm over the full width
    # (k: kv_heads * head_dim = 16), pre-norm layer; class-default pad_token_id 1 (padding row).
    "olmoe": ("OlmoeConfig", dict(MOE_SHAPE, intermediate_size=48, num_hidden_layers=2, num_experts=4,
                                  norm_topk_prob=False, eos_token_id=None, max_position_embeddings=64,
                                  rope_parameters=dict(rope_type="default", rope_theta=1e4)),
              None, moe(check_olmoe)),
}
assert all(len(entry) == 4 for entry in CASES.values())
