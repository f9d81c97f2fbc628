"""Tiny reference cases for the decoder families beyond gpt2/llama/qwen2/mistral (hf_family_reference.py merges
CASES into its own and runs them the same way; the comment above each case says what it exercises).

Each entry: name -> (HF config class name, config kwargs, None, options), options being
  attn_implementation  passed to from_config/from_pretrained (absent: HF's default, sdpa in 5.17)
  grad_prefixes        only parameters whose saved name starts with one of these get a grad.<name> entry (the
                       multimodal wrapper: the text decoder; the vision tower gets no gradient from input_ids)
  check                f(model, ids, logits) -> list of printed facts; it asserts that the case's distinctive
                       option changes the outputs at B=2, T=24 (a variant model with the option off, same weights)
All cases: vocab 101, hidden 32 (gpt_neox 64), 3 layers (gpt_neox 2) so that layer types alternate, every dropout 0,
T=24 > window 8.
"""
import copy
import math

import torch

VOCAB, WINDOW = 101, 8
SHAPE = dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=3, num_attention_heads=4,
             num_key_value_heads=2)
ALTERNATE = ["sliding_attention", "full_attention", "sliding_attention"]


def relative_change(a, b):
    return float((a - b).abs().max() / b.abs().max())


def variant_logits(model, ids, text=False, **changes):
    """Logits of the same weights under a config with `changes` (set on the text config when text=True)."""
    config = copy.deepcopy(model.config)
    target = config.get_text_config() if text else config
    for key, value in changes.items():
        setattr(target, key, value)
    other = type(model)(config)
    other.set_attn_implementation(model.config._attn_implementation)
    other.load_state_dict(model.state_dict())
    other.train()
    with torch.no_grad():
        return other(input_ids=ids).logits


def bites(model, ids, logits, what, text=False, **changes):
    change = relative_change(logits.detach(), variant_logits(model, ids, text=text, **changes))
    assert change > 1e-3, "%s: no effect on the logits (%.2e)" % (what, change)
    return "%s changes the logits by %.3g (max abs, relative)" % (what, change)


def same_as(model, ids, logits, what, text=False, tolerance=1e-6, **changes):
    change = relative_change(logits.detach(), variant_logits(model, ids, text=text, **changes))
    assert change <= tolerance, "%s: expected no effect, got %.2e" % (what, change)
    return "%s: no effect (%.1e)" % (what, change)


def rope_facts(rotary, plain_theta, dim, prefix=""):
    inv = getattr(rotary, prefix + "inv_freq")
    plain = 1.0 / (plain_theta ** (torch.arange(0, dim, 2, dtype=torch.float) / dim))
    scaling = getattr(rotary, prefix + "attention_scaling")
    return "inv_freq %s (plain %s), attention_scaling %.6f" % (
        [float("%.4g" % v) for v in inv], [float("%.4g" % v) for v in plain], scaling)


# --- checks -------------------------------------------------------------------------------------------------------

def check_qwen3_qk_norm(model, ids, logits):
    c = model.config
    assert c.head_dim * c.num_attention_heads != c.hidden_size and c.num_key_value_heads < c.num_attention_heads
    q = model.model.layers[0].self_attn.q_norm.weight
    return ["head_dim %d != hidden/heads %d; q_norm/k_norm weight shape %s (per head)"
            % (c.head_dim, c.hidden_size // c.num_attention_heads, list(q.shape))]


def check_qwen3_yarn(model, ids, logits):
    rotary = model.model.rotary_emb
    plain = 1.0 / (1e6 ** (torch.arange(0, 16, 2, dtype=torch.float) / 16))
    assert torch.equal(rotary.inv_freq[0], plain[0]) and not torch.allclose(rotary.inv_freq, plain)
    assert rotary.attention_scaling != 1.0
    return ["yarn " + rope_facts(rotary, 1e6, 16),
            bites(model, ids, logits, "yarn vs default RoPE",
                  rope_parameters=dict(rope_type="default", rope_theta=1e6))]


def check_qwen3_window(model, ids, logits):
    assert model.config.layer_types == ALTERNATE and model.config.sliding_window == WINDOW
    return ["layer_types %s, sliding_window %d" % (model.config.layer_types, WINDOW),
            bites(model, ids, logits, "the window", layer_types=["full_attention"] * 3)]


def attention_cap_ratio(model, ids, module):
    """max |q.k * scaling| / attn_logit_softcapping seen by the eager attention of `module` (a modeling file)."""
    seen = []
    original = module.eager_attention_forward

    def spy(mod, query, key, value, attention_mask, dropout=0.0, scaling=None, softcap=None, **kwargs):
        k = module.repeat_kv(key, mod.num_key_value_groups)
        seen.append(float((query @ k.transpose(2, 3) * scaling).abs().max() / softcap))
        return original(mod, query, key, value, attention_mask, dropout=dropout, scaling=scaling, softcap=softcap,
                        **kwargs)

    module.eager_attention_forward = spy
    try:
        with torch.no_grad():
            model(input_ids=ids)
    finally:
        module.eager_attention_forward = original
    assert seen, "the eager attention was not called"
    return max(seen)


def final_cap_ratio(model, ids):
    raw = []
    hook = model.lm_head.register_forward_hook(lambda m, i, o: raw.append(o.detach()))
    with torch.no_grad():
        model(input_ids=ids)
    hook.remove()
    cap = model.config.final_logit_softcapping
    return float(raw[0].abs().max() / cap), float((raw[0].abs() > cap).float().mean())


def check_gemma2_eager(model, ids, logits):
    from transformers.models.gemma2 import modeling_gemma2
    c = model.config
    ratio = attention_cap_ratio(model, ids, modeling_gemma2)
    final, beyond = final_cap_ratio(model, ids)
    assert ratio > 1.0 and final > 1.0, (ratio, final)
    return ["max |score| / attn_logit_softcapping = %.2f (tanh(%.2f) = %.3f); max |raw logit| / "
            "final_logit_softcapping = %.2f, %.0f%% of raw logits beyond the cap" % (
                ratio, ratio, math.tanh(ratio), final, 100 * beyond),
            "scaling query_pre_attn_scalar**-0.5 = %.4f (head_dim**-0.5 = %.4f); layer_types %s"
            % (c.query_pre_attn_scalar ** -0.5, c.head_dim ** -0.5, c.layer_types),
            bites(model, ids, logits, "attn_logit_softcapping", attn_logit_softcapping=None),
            bites(model, ids, logits, "final_logit_softcapping", final_logit_softcapping=None),
            bites(model, ids, logits, "the window", layer_types=["full_attention"] * 3),
            bites(model, ids, logits, "query_pre_attn_scalar", query_pre_attn_scalar=c.head_dim)]


def check_gemma2_sdpa(model, ids, logits):
    assert model.config._attn_implementation == "sdpa"
    eager = copy.deepcopy(model)
    eager.set_attn_implementation("eager")
    return [same_as(eager, ids, logits, "HF's default sdpa == eager with attn_logit_softcapping=None",
                    tolerance=1e-5, attn_logit_softcapping=None),
            bites(eager, ids, logits, "eager's attention softcapping (absent under sdpa)"),
            bites(model, ids, logits, "final_logit_softcapping", final_logit_softcapping=None)]


GEMMA3_ROPE = {"sliding_attention": dict(rope_type="default", rope_theta=10000.0),
               "full_attention": dict(rope_type="linear", factor=8.0, rope_theta=1e6)}


def check_gemma3_text(model, ids, logits, text=False):
    c = model.config.get_text_config()
    lm = model.model.language_model if text else model.model
    plain = copy.deepcopy(GEMMA3_ROPE)
    plain["full_attention"] = dict(rope_type="default", rope_theta=1e6)
    facts = ["full: " + rope_facts(lm.rotary_emb, 1e6, 16, "full_attention_"),
             "sliding: " + rope_facts(lm.rotary_emb, 1e4, 16, "sliding_attention_"),
             bites(model, ids, logits, "linear factor 8 on the full layer", text=text, rope_parameters=plain),
             bites(model, ids, logits, "the window", text=text, layer_types=["full_attention"] * 3),
             same_as(model, ids, logits, "attn_logit_softcapping=0.5 (gemma3 never passes it on)", text=text,
                     attn_logit_softcapping=0.5)]
    assert c.layer_types == ALTERNATE
    return facts


def check_gemma3_multimodal(model, ids, logits):
    import transformers
    facts = check_gemma3_text(model, ids, logits, text=True)
    text = transformers.Gemma3ForCausalLM(copy.deepcopy(model.config.text_config))
    text.set_attn_implementation(model.config._attn_implementation)
    state = {k.replace("model.language_model.", "model."): v for k, v in model.state_dict().items()
             if k.startswith("model.language_model.") or k == "lm_head.weight"}
    text.load_state_dict(state)
    text.train()
    with torch.no_grad():
        change = relative_change(logits.detach(), text(input_ids=ids).logits)
    assert change < 1e-6, change
    return facts + ["equals Gemma3ForCausalLM on the same text weights (%.1e)" % change]


def phi3_rope(short, long):
    return dict(rope_type="longrope", rope_theta=10000.0, partial_rotary_factor=0.5, short_factor=short,
                long_factor=long)


SHORT, LONG = [1.0, 1.5, 2.0, 3.0], [2.0, 4.0, 8.0, 16.0]


def check_phi3(model, ids, logits):
    c = model.config
    rotary = model.model.rotary_emb
    head_dim = c.hidden_size // c.num_attention_heads
    dim = int(head_dim * 0.5)
    orig = c.rope_parameters["original_max_position_embeddings"]
    used = "long" if ids.shape[1] > orig else "short"
    base = 10000.0 ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim)
    expected = 1.0 / (torch.tensor(LONG if used == "long" else SHORT) * base)
    assert torch.equal(rotary.inv_freq, expected), (rotary.inv_freq, expected)
    factor = c.max_position_embeddings / orig
    assert rotary.attention_scaling == math.sqrt(1 + math.log(factor) / math.log(orig))
    swapped = phi3_rope(SHORT, SHORT) if used == "long" else phi3_rope(LONG, LONG)
    return ["T=%d, original_max_position_embeddings %d -> the %s factors; rotary_dim %d of head_dim %d; %s"
            % (ids.shape[1], orig, used, dim, head_dim, rope_facts(rotary, 10000.0, dim)),
            bites(model, ids, logits, "the %s factors" % used, rope_parameters=dict(
                swapped, original_max_position_embeddings=orig))]


def check_olmo2(model, ids, logits):
    a = model.model.layers[0].self_attn
    names = [n for n, _ in model.model.layers[0].named_parameters()]
    assert "input_layernorm.weight" not in names
    return ["q_norm %s k_norm %s (full projection width); layer 0 parameters %s; pad_token_id %s (class default)"
            % (list(a.q_norm.weight.shape), list(a.k_norm.weight.shape), names, model.config.pad_token_id)]


def check_smollm3(model, ids, logits):
    return ["no_rope_layers %s (1 = RoPE applied)" % model.config.no_rope_layers,
            bites(model, ids, logits, "the NoPE layer", no_rope_layers=[1, 1, 1])]


def check_granite(model, ids, logits):
    c = model.config
    facts = []
    for name in ("embedding_multiplier", "residual_multiplier", "attention_multiplier", "logits_scaling"):
        facts.append(bites(model, ids, logits, "%s %g" % (name, getattr(c, name)), **{name: 1.0}))
    return facts


def check_starcoder2(model, ids, logits):
    return ["sliding_window %d on every layer, tied %s" % (model.config.sliding_window,
                                                          model.config.tie_word_embeddings),
            bites(model, ids, logits, "the window", sliding_window=None)]


def check_gpt_neox(model, ids, logits):
    c = model.config
    a = model.gpt_neox.layers[0].attention
    return ["rotary_ndims %d of head_size %d, use_parallel_residual %s" % (a.rotary_ndims, a.head_size,
                                                                         c.use_parallel_residual),
            bites(model, ids, logits, "use_parallel_residual", use_parallel_residual=not c.use_parallel_residual)]


def check_llama_rope(model, ids, logits):
    rp = model.config.rope_parameters
    if rp["rope_type"] == "yarn":  # frequency 0 kept, 1 blended, 2 and 3 interpolated
        inv = model.model.rotary_emb.inv_freq
        plain = 1.0 / (rp["rope_theta"] ** (torch.arange(0, 8, 2, dtype=torch.float) / 8))
        ratio = (plain / inv).tolist()
        assert ratio[0] == 1.0 and 1.0 < ratio[1] < rp["factor"] * 0.99 and abs(ratio[3] - rp["factor"]) < 1e-5, ratio
    return ["%s %s" % (rp["rope_type"], rope_facts(model.model.rotary_emb, rp["rope_theta"], 8)),
            bites(model, ids, logits, rp["rope_type"] + " vs default RoPE",
                  rope_parameters=dict(rope_type="default", rope_theta=rp["rope_theta"]))]


# --- cases --------------------------------------------------------------------------------------------------------

QWEN3 = dict(SHAPE, head_dim=16, max_position_embeddings=64, tie_word_embeddings=True)
GEMMA = dict(SHAPE, num_attention_heads=2, num_key_value_heads=1, head_dim=16, max_position_embeddings=64,
             pad_token_id=None, sliding_window=WINDOW, layer_types=ALTERNATE, attention_dropout=0.0)
GEMMA3_TEXT = dict(GEMMA, rope_parameters=copy.deepcopy(GEMMA3_ROPE), query_pre_attn_scalar=24)
PHI3 = dict(SHAPE, num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=64, pad_token_id=None,
            resid_pdrop=0.0, embd_pdrop=0.0, attention_dropout=0.0, tie_word_embeddings=False)
LLAMA = dict(SHAPE, head_dim=8, max_position_embeddings=64, tie_word_embeddings=False)

CASES = {
    # Qwen3: per-head q/k RMSNorm, head_dim 16 != 32/4, GQA 4/2, tied, default RoPE theta 1e6.
    "qwen3_qk_norm": ("Qwen3Config", dict(QWEN3, rope_parameters=dict(rope_type="default", rope_theta=1e6)), None,
                      dict(check=check_qwen3_qk_norm)),
    # Qwen3 with yarn (factor 4 over original 16): dims 0..low kept, the rest interpolated; attention factor 1.139.
    "qwen3_yarn": ("Qwen3Config", dict(QWEN3, rope_parameters=dict(rope_type="yarn", rope_theta=1e6, factor=4.0,
                                                                   original_max_position_embeddings=16)), None,
                   dict(check=check_qwen3_yarn)),
    # Qwen3 with a window of 8 on layers 0 and 2 (use_sliding_window must be true, else sliding_window is None).
    "qwen3_window": ("Qwen3Config", dict(QWEN3, use_sliding_window=True, sliding_window=WINDOW,
                                         layer_types=ALTERNATE,
                                         rope_parameters=dict(rope_type="default", rope_theta=1e6)), None,
                     dict(check=check_qwen3_window)),
    # Gemma2 as the model defines it (eager: the scores are capped): softcaps 1.0 (attention) and 1.5 (final logits)
    # saturate (the check prints by how much), query_pre_attn_scalar 8 != head_dim 16, window 8 on layers 0 and 2,
    # (1+w) RMSNorms, sandwich norms, sqrt(32) embedding scale.
    "gemma2_softcap_window": ("Gemma2Config", dict(GEMMA, query_pre_attn_scalar=8, attn_logit_softcapping=1.0,
                                                   final_logit_softcapping=1.5), None,
                              dict(attn_implementation="eager", check=check_gemma2_eager)),
    # The same config under HF's default sdpa, which drops the attention softcapping (final one stays).
    "gemma2_softcap_sdpa": ("Gemma2Config", dict(GEMMA, query_pre_attn_scalar=8, attn_logit_softcapping=1.0,
                                                 final_logit_softcapping=1.5), None,
                            dict(check=check_gemma2_sdpa)),
    # Gemma3 text: q/k (1+w) norms per head, layer_types with window 8, RoPE per layer type (sliding default 1e4,
    # full linear x8 at 1e6), query_pre_attn_scalar 24.
    "gemma3_text_layer_types": ("Gemma3TextConfig", dict(GEMMA3_TEXT), None, dict(check=check_gemma3_text)),
    # The multimodal wrapper with a tiny SigLIP: text-only input_ids; gradients of the text decoder only, under
    # the names model.safetensors holds (language_model.model.*).
    "gemma3_multimodal": ("Gemma3Config", dict(
        text_config=dict(GEMMA3_TEXT), vision_config=dict(hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                                          num_attention_heads=2, image_size=16, patch_size=4,
                                                          attention_dropout=0.0),
        mm_tokens_per_image=4), None, dict(grad_prefixes=("language_model.",), check=check_gemma3_multimodal)),
    # Phi3: fused qkv_proj and gate_up_proj, partial rotary 0.5 (the first 8 channels of head_dim 16, 4 factors),
    # longrope with original 16 < T=24: the long factors; attention factor sqrt(1 + ln 4 / ln 16) from 64 / 16.
    # original_max_position_embeddings must be top-level: Phi3Config's field (default 4096) overwrites the dict's.
    "phi3_longrope_partial": ("Phi3Config", dict(PHI3, original_max_position_embeddings=16,
                                                 rope_parameters=phi3_rope(SHORT, LONG)), None,
                              dict(check=check_phi3)),
    # The same with original 32 >= T=24: the short factors (attention factor from 64 / 32).
    "phi3_longrope_short": ("Phi3Config", dict(PHI3, original_max_position_embeddings=32,
                                               rope_parameters=phi3_rope(SHORT, LONG)), None,
                            dict(check=check_phi3)),
    # OLMo2: q/k RMSNorm over the full projection width (k: 2 kv heads), post-norms only, weight-then-cast norm,
    # class-default pad_token_id 1 (a padding row), untied.
    "olmo2_post_norm": ("Olmo2Config", dict(SHAPE, max_position_embeddings=64,
                                            rope_parameters=dict(rope_type="default", rope_theta=5e5)), None,
                        dict(check=check_olmo2)),
    # SmolLM3: no_rope_layers [1, 0, 1] (layer 1 without RoPE), tied.
    "smollm3_no_rope": ("SmolLM3Config", dict(SHAPE, max_position_embeddings=64, pad_token_id=None,
                                              no_rope_layers=[1, 0, 1], tie_word_embeddings=True,
                                              rope_parameters=dict(rope_type="default", rope_theta=5e6)), None,
                        dict(check=check_smollm3)),
    # Granite: the four multipliers != 1 (Granite 3.1 2B has 12, 0.22, 1/64, 8; here 12, 0.22, 0.05, 4).
    "granite_multipliers": ("GraniteConfig", dict(SHAPE, max_position_embeddings=64, embedding_multiplier=12.0,
                                                  residual_multiplier=0.22, attention_multiplier=0.05,
                                                  logits_scaling=4.0, tie_word_embeddings=True,
                                                  rope_parameters=dict(rope_type="default", rope_theta=5e6)), None,
                            dict(check=check_granite)),
    # StarCoder2: LayerNorm with bias, gelu_tanh c_fc/c_proj with biases, q/k/v/o biases, window 8 everywhere, tied.
    "starcoder2_window": ("Starcoder2Config", dict(SHAPE, max_position_embeddings=64, sliding_window=WINDOW,
                                                   residual_dropout=0.0, embedding_dropout=0.0,
                                                   rope_parameters=dict(rope_type="default", rope_theta=1e5)), None,
                          dict(check=check_starcoder2)),
    # GPT-NeoX: head-interleaved query_key_value, rotary_pct 0.25 (4 of head_size 16), untied head saved as
    # embed_out.weight, parallel residual; and the sequential one.
    "gpt_neox_parallel": ("GPTNeoXConfig", dict(vocab_size=VOCAB, hidden_size=64, intermediate_size=128,
                                                num_hidden_layers=2, num_attention_heads=4, rotary_pct=0.25,
                                                max_position_embeddings=64, use_parallel_residual=True), None,
                          dict(check=check_gpt_neox)),
    "gpt_neox_sequential": ("GPTNeoXConfig", dict(vocab_size=VOCAB, hidden_size=64, intermediate_size=128,
                                                  num_hidden_layers=2, num_attention_heads=4, rotary_pct=0.25,
                                                  max_position_embeddings=64, use_parallel_residual=False), None,
                            dict(check=check_gpt_neox)),
    # Llama with linear RoPE (factor 4) and with yarn (factor 4 over original 256, max_position 1024, mscale 1 /
    # mscale_all_dim 0.5 -> attention factor 1.0648, truncate false, beta_fast 8 / beta_slow 1: the correction
    # range is 0.707 .. 1.61, so frequency 0 is kept, 1 blended (ramp 0.324), 2 and 3 divided by 4).
    "llama_linear_rope": ("LlamaConfig", dict(LLAMA, rope_parameters=dict(rope_type="linear", rope_theta=1e4,
                                                                          factor=4.0)), None,
                          dict(check=check_llama_rope)),
    "llama_yarn": ("LlamaConfig", dict(LLAMA, max_position_embeddings=1024, rope_parameters=dict(
        rope_type="yarn", rope_theta=1e4, factor=4.0, original_max_position_embeddings=256, mscale=1.0,
        mscale_all_dim=0.5, truncate=False, beta_fast=8.0, beta_slow=1.0)), None, dict(check=check_llama_rope)),
}
