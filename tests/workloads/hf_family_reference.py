#!/usr/bin/env python3
"""Reference models and outputs for gpubench's Hugging Face decoder families (gpt2, llama, qwen2, mistral; and from
hf_family_cases.py qwen3, gemma2, gemma3_text, gemma3, phi3, olmo2, smollm3, granite, starcoder2, gpt_neox; and from
hf_moe_cases.py the mixture-of-experts mixtral, qwen2_moe, qwen3_moe, olmoe; from hf_moe_frontier_cases.py gpt_oss and
deepseek_v3).

For each tiny case below: builds the HF model with transformers 5.x from a fixed seed (HF's init, then N(0, 0.1)
noise added to every parameter so that no bias is 0 and no norm weight 1), saves it with
save_pretrained(OUTDIR/<case>, safe_serialization=True) (a real config.json + model.safetensors), reloads
that folder with AutoModelForCausalLM.from_pretrained (so the references are what HF makes of the saved
files), runs one training-mode forward and backward in fp32 on the CPU and writes OUTDIR/<case>/reference.safetensors:
  input_ids        int64 [B, T]
  logits           fp32  [B, T, vocab]  (every position, the last one included)
  loss             fp32  0-d            HF's own loss for labels=input_ids: the labels are shifted inside
                   the model, so it is the mean over all B*(T-1) positions t = 0..T-2 of the cross entropy of
                   logits[b, t] against input_ids[b, t+1] (== F.cross_entropy(logits[:, :-1].reshape(-1, V),
                   input_ids[:, 1:].reshape(-1)), checked below); nothing is ignored, pad tokens included.
  grad.<name>      fp32  the gradient of every model.named_parameters() entry under the name model.safetensors
                   holds it by (the HF name, except where 5.17 renames on save: gpt_neox's lm_head.weight is
                   saved as embed_out.weight, gemma3's model.language_model.* as language_model.model.*). A tied
                   LM head is one parameter (named by the embedding), so tied models have no grad.lm_head.weight.
                   A case may keep only some parameters (gemma3_multimodal: the text decoder; metadata says).
                   MoE experts: 5.17 holds them fused (mlp.experts.gate_up_proj [E, 2I, H], down_proj [E, H, I])
                   but saves one 2-D tensor per expert (and per gate/up half): the gradient is split the same way,
                   one grad.<saved name> per saved tensor (metadata grad_split says); gpt_oss's stacked experts
                   are saved as held (mlp.experts.gate_up_proj, ...) and keep their own names.
MoE cases (output class with aux_loss) also hold
  ce_loss          fp32  0-d            the cross entropy part (HF's loss_function on the logits)
  aux_loss         fp32  0-d            the load-balancing loss, when output_router_logits is on; then
                   loss = ce_loss + router_aux_loss_coef * aux_loss (checked) and the gradients are of that total.
The C++ side loads model.safetensors by these same names.

Usage: hf_family_reference.py OUTDIR [--cases a,b,...] [--threads 1]
       hf_family_reference.py --count-params [OUTDIR]   (HF parameter counts of published configs, on the meta
                   device; with OUTDIR also OUTDIR/published/<repo>/config.json and OUTDIR/published/counts.json)
"""
import argparse
import copy
import json
import math
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hf_family_cases  # noqa: E402
import hf_moe_cases  # noqa: E402
import hf_moe_frontier_cases  # noqa: E402
import hf_published_configs  # noqa: E402

SEED, DATA_SEED, BATCH, SEQ = 0, 1234, 2, 24
PERTURB = 0.1  # std of the noise added to every parameter after HF's init
VOCAB = 101
LLAMA_SHAPE = dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                   num_attention_heads=4, num_key_value_heads=2, rms_norm_eps=1e-5)
# llama3 scaling at head_dim 8, theta 1e4: wavelengths 2*pi/inv_freq = 6.3, 63, 628, 6283. With
# original_max_position_embeddings 64 (high_freq_wavelen 64/4 = 16, low_freq_wavelen 64/1 = 64) the first is
# kept, the second smoothed, the last two divided by factor: every branch of the formula is exercised.
LLAMA3_TINY = dict(rope_type="llama3", rope_theta=10000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                   original_max_position_embeddings=64)

# name -> (HF config class name, config kwargs, hand-written transformers-4.x config.json or None)
CASES = {
    # (1) GPT-2 with the tanh GELU, tied head, dropouts 0 (training mode must be deterministic).
    "gpt2_gelu_new": ("GPT2Config", dict(vocab_size=VOCAB, n_positions=64, n_embd=32, n_layer=2, n_head=2,
                                          activation_function="gelu_new", resid_pdrop=0.0, embd_pdrop=0.0,
                                          attn_pdrop=0.0, bos_token_id=VOCAB - 1, eos_token_id=VOCAB - 1), None),
    # (2) Llama, GQA 4 heads / 2 kv heads, head_dim 8, llama3 RoPE scaling, tied, attention and MLP biases on.
    "llama_gqa_llama3_tied": ("LlamaConfig", dict(LLAMA_SHAPE, head_dim=8, max_position_embeddings=128,
                                                  tie_word_embeddings=True, attention_bias=True, mlp_bias=True,
                                                  rope_parameters=dict(LLAMA3_TINY)), None),
    # (3) The same untied, biases off.
    "llama_gqa_llama3_untied": ("LlamaConfig", dict(LLAMA_SHAPE, head_dim=8, max_position_embeddings=128,
                                                    tie_word_embeddings=False, attention_bias=False, mlp_bias=False,
                                                    rope_parameters=dict(LLAMA3_TINY)), None),
    # (4) Qwen2: biases on q/k/v only (hard-wired), default RoPE theta 1e6, tied (as Qwen2.5-0.5B).
    "qwen2_qkv_bias": ("Qwen2Config", dict(LLAMA_SHAPE, max_position_embeddings=128, tie_word_embeddings=True,
                                           use_sliding_window=False,
                                           rope_parameters=dict(rope_type="default", rope_theta=1e6)), None),
    # (5) Mistral without a sliding window; head_dim 16 != hidden/heads = 8 (as Mistral-Nemo), untied.
    "mistral_no_window": ("MistralConfig", dict(LLAMA_SHAPE, head_dim=16, max_position_embeddings=128,
                                                sliding_window=None, tie_word_embeddings=False,
                                                rope_parameters=dict(rope_type="default", rope_theta=1e6)), None),
    # (6) Llama as transformers 4.x wrote it: top-level rope_theta + rope_scaling (llama3), no head_dim key,
    # MQA (1 kv head). Theta 5e5 at head_dim 8: wavelengths 6.3, 167, 4443, 118k; with original 256
    # (bands 64..256) they are kept, smoothed, divided, divided.
    "llama_v4_spelling_llama3": ("LlamaConfig", None, {
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "attention_bias": False,
        "attention_dropout": 0.0, "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu", "hidden_size": 32,
        "initializer_range": 0.02, "intermediate_size": 64, "max_position_embeddings": 512, "mlp_bias": False,
        "num_attention_heads": 4, "num_hidden_layers": 2, "num_key_value_heads": 1, "pretraining_tp": 1,
        "rms_norm_eps": 1e-05, "rope_theta": 500000.0,
        "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                         "original_max_position_embeddings": 256, "rope_type": "llama3"},
        "tie_word_embeddings": True, "torch_dtype": "float32", "transformers_version": "4.45.0",
        "use_cache": True, "vocab_size": VOCAB}),
    # (7) Llama in the 4.x spelling with no scaling, as SmolLM2-135M's hub config: rope_scaling null, top-level
    # rope_theta, plus keys HF ignores (rope_interleaved, is_llama_config).
    "llama_v4_spelling_default": ("LlamaConfig", None, {
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "attention_bias": False,
        "attention_dropout": 0.0, "bos_token_id": 0, "eos_token_id": 0, "hidden_act": "silu", "hidden_size": 32,
        "initializer_range": 0.02, "intermediate_size": 64, "is_llama_config": True, "max_position_embeddings": 128,
        "num_attention_heads": 4, "num_hidden_layers": 2, "num_key_value_heads": 2, "pretraining_tp": 1,
        "rms_norm_eps": 1e-05, "rope_interleaved": False, "rope_scaling": None, "rope_theta": 100000,
        "tie_word_embeddings": True, "torch_dtype": "float32", "transformers_version": "4.42.3",
        "use_cache": True, "vocab_size": VOCAB}),
    # (8) pad_token_id set: HF's nn.Embedding(padding_idx=pad) gives that row a zero gradient even though the
    # batch contains the token (and it is still a label: the loss ignores only -100).
    "llama_pad_token": ("LlamaConfig", dict(LLAMA_SHAPE, max_position_embeddings=128, tie_word_embeddings=False,
                                            pad_token_id=3, rope_parameters=dict(rope_type="default",
                                                                                 rope_theta=10000.0)), None),
}

CASES.update(hf_family_cases.CASES)  # entries there carry a 4th element, the options run_case reads
CASES.update(hf_moe_cases.CASES)
CASES.update(hf_moe_frontier_cases.CASES)

# --count-params: the published config.json of each model (huggingface.co/<repo>/blob/main/config.json), written
# down from the hub files as published (transformers-4.x spelling); no network is used.
PUBLISHED = {
    "meta-llama/Llama-3.2-1B": {
        "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "bos_token_id": 128000, "eos_token_id": 128001, "head_dim": 64, "hidden_act": "silu", "hidden_size": 2048,
        "initializer_range": 0.02, "intermediate_size": 8192, "max_position_embeddings": 131072, "mlp_bias": False,
        "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 16, "num_key_value_heads": 8,
        "pretraining_tp": 1, "rms_norm_eps": 1e-05,
        "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                         "original_max_position_embeddings": 8192, "rope_type": "llama3"},
        "rope_theta": 500000.0, "tie_word_embeddings": True, "torch_dtype": "bfloat16",
        "transformers_version": "4.45.0.dev0", "use_cache": True, "vocab_size": 128256},
    "HuggingFaceTB/SmolLM2-135M": {
        "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "bos_token_id": 0, "eos_token_id": 0, "hidden_act": "silu", "hidden_size": 576,
        "initializer_range": 0.041666666666666664, "intermediate_size": 1536, "is_llama_config": True,
        "max_position_embeddings": 8192, "model_type": "llama", "num_attention_heads": 9, "num_hidden_layers": 30,
        "num_key_value_heads": 3, "pretraining_tp": 1, "rms_norm_eps": 1e-05, "rope_interleaved": False,
        "rope_scaling": None, "rope_theta": 100000, "tie_word_embeddings": True, "torch_dtype": "bfloat16",
        "transformers_version": "4.40.1", "use_cache": True, "vocab_size": 49152},
}
EXPECTED_PARAMS = {"meta-llama/Llama-3.2-1B": 1_235_814_400, "HuggingFaceTB/SmolLM2-135M": 134_515_008}


def rope_spelling(config_json):
    if "text_config" in config_json:
        return "text_config: " + rope_spelling(config_json["text_config"])
    if "rope_parameters" in config_json:
        return "transformers-5.x: rope_parameters=" + json.dumps(config_json["rope_parameters"], sort_keys=True)
    if "rope_theta" in config_json or "rope_scaling" in config_json:
        return ("transformers-4.x: rope_theta=%r rope_scaling=%s"
                % (config_json.get("rope_theta"), json.dumps(config_json.get("rope_scaling"), sort_keys=True)))
    return "none (no RoPE keys: learned position embeddings)"


def check_llama3(model, config):
    """The rotary frequencies HF uses against plain RoPE at the same theta: llama3 must change some."""
    rope = config.rope_parameters
    dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    plain = 1.0 / (rope["rope_theta"] ** (torch.arange(0, dim, 2, dtype=torch.float) / dim))
    used = model.model.rotary_emb.inv_freq
    wavelen = 2 * math.pi / plain
    old = rope["original_max_position_embeddings"]
    kept = int((wavelen < old / rope["high_freq_factor"]).sum())
    divided = int((wavelen > old / rope["low_freq_factor"]).sum())
    smoothed = dim // 2 - kept - divided
    assert torch.equal(used[:kept], plain[:kept]) and not torch.allclose(used, plain), "llama3 scaling had no effect"
    assert kept and smoothed and divided, (kept, smoothed, divided)
    return "llama3 inv_freq %s (plain %s): %d kept, %d smoothed, %d divided by %g" % (
        [float("%.4g" % v) for v in used], [float("%.4g" % v) for v in plain], kept, smoothed, divided,
        rope["factor"])


def saved_name(pname, param, saved):
    """The model.safetensors key holding this parameter (5.17 renames some on save): the one equal tensor."""
    matches = [key for key, value in saved.items()
               if value.shape == param.shape and torch.equal(value, param.detach())]
    assert len(matches) == 1, (pname, matches)
    return matches[0]


def saved_parts(pname, param, saved):
    """A fused MoE experts parameter [E, R, C] that 5.17 saves as per-expert tensors: [(key, e, rows)] such that
    saved[key] == param[e, rows], each found as the one equal saved tensor (the whole expert slice, else its halves
    along dim 1: gate_up_proj's gate rows 0..I-1 and up rows I..2I-1)."""
    def unique(tensor):
        keys = [key for key, value in saved.items() if value.shape == tensor.shape and torch.equal(value, tensor)]
        assert len(keys) <= 1, (pname, keys)
        return keys[0] if keys else None

    assert param.dim() == 3, (pname, tuple(param.shape))
    parts, data, half = [], param.detach(), param.shape[1] // 2
    for e in range(param.shape[0]):
        key = unique(data[e])
        if key:
            parts.append((key, e, slice(None)))
            continue
        for rows in (slice(0, half), slice(half, None)):
            key = unique(data[e, rows])
            assert key, (pname, e, rows)
            parts.append((key, e, rows))
    return parts


def run_case(name, outdir):
    import transformers
    from safetensors import safe_open
    from safetensors.torch import save_file
    from transformers import AutoModelForCausalLM
    class_name, kwargs, v4_json = CASES[name][:3]
    options = CASES[name][3] if len(CASES[name]) > 3 else {}
    attn = {"attn_implementation": options["attn_implementation"]} if "attn_implementation" in options else {}
    config_class = getattr(transformers, class_name)
    folder = os.path.join(outdir, name)
    os.makedirs(folder, exist_ok=True)

    seed = options.get("seed", SEED)  # a MoE case may pick its own, so that every expert gets tokens
    torch.manual_seed(seed)
    config = config_class.from_dict(copy.deepcopy(v4_json)) if v4_json else config_class(**copy.deepcopy(kwargs))
    built = AutoModelForCausalLM.from_config(config, **attn)
    # HF's init leaves biases 0, norm weights 1 and activations near 0 (std 0.02), where e.g. gelu_new and exact
    # gelu agree to ~3e-6: noise on every parameter makes each tensor and each formula visible in the outputs.
    generator = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        for _, param in built.named_parameters():
            param.add_(torch.randn(param.shape, generator=generator) * PERTURB)
    if "prepare" in options:  # weights a check needs (a buffer's value, a clamp that bites)
        options["prepare"](built)
    built.save_pretrained(folder, safe_serialization=True)
    if v4_json:  # 5.x writes rope_parameters: put the 4.x-spelled file there instead, to be read back
        with open(os.path.join(folder, "config.json"), "w") as f:
            json.dump(v4_json, f, indent=2, sort_keys=True)
    with open(os.path.join(folder, "config.json")) as f:
        saved_json = json.load(f)

    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32, **attn)
    for key, value in built.state_dict().items():  # the folder holds the model that was built
        assert torch.equal(value, model.state_dict()[key]), key
    model.train()
    generator = torch.Generator().manual_seed(DATA_SEED)
    ids = torch.randint(0, VOCAB, (BATCH, SEQ), generator=generator)
    pad = getattr(model.config.get_text_config(), "pad_token_id", None)
    if pad is not None:
        ids[0, 5], ids[1, 0], ids[1, 11] = pad, pad, pad

    out = model(input_ids=ids, labels=ids)
    logits, loss = out.logits, out.loss
    manual = F.cross_entropy(logits[:, :-1].reshape(-1, logits.size(-1)), ids[:, 1:].reshape(-1))
    # MoeCausalLMOutputWithPast: loss = CE (+ coef * aux when output_router_logits); `in` skips None fields
    moe = "aux_loss" in getattr(type(out), "__dataclass_fields__", {})
    aux = out.aux_loss if moe else None
    if moe:
        ce = model.loss_function(logits, ids, model.config.vocab_size)
        assert torch.allclose(ce, manual, rtol=1e-6, atol=0), (ce.item(), manual.item())
        total = ce + model.config.router_aux_loss_coef * aux if aux is not None else ce
        assert torch.allclose(loss, total, rtol=1e-6, atol=0), (loss.item(), total.item())
    else:
        assert torch.allclose(loss, manual, rtol=1e-6, atol=0), (loss.item(), manual.item())
    with torch.no_grad():  # the model as first built gives the same logits (the 4.x file reads to the same model)
        assert torch.equal(built.train()(input_ids=ids).logits, logits.detach()), "reloaded model differs"
    loss.backward()

    tensors = {"input_ids": ids.contiguous(), "logits": logits.detach().contiguous(),
               "loss": loss.detach().reshape(()).contiguous()}
    with safe_open(os.path.join(folder, "model.safetensors"), "pt") as f:
        saved = {key: f.get_tensor(key) for key in f.keys()}
    if moe:
        tensors["ce_loss"] = ce.detach().reshape(()).contiguous()
        if aux is not None:
            tensors["aux_loss"] = aux.detach().reshape(()).contiguous()
    renamed, left_out, split = {}, [], {}
    for pname, param in model.named_parameters():
        if pname not in saved and ".experts." in pname:  # deepseek_v3's too (no aux loss: not `moe`)
            parts = saved_parts(pname, param, saved)
            assert param.grad is not None, pname + " got no gradient"
            for key, e, rows in parts:
                tensors["grad." + key] = param.grad[e, rows].detach().contiguous()
            split[pname] = [key for key, _, _ in parts]
            continue
        stored = pname if pname in saved else saved_name(pname, param, saved)
        if not stored.startswith(tuple(options.get("grad_prefixes", ("",)))):
            left_out.append(stored)
            continue
        if stored != pname:
            renamed[pname] = stored
        assert param.grad is not None, pname + " got no gradient"
        tensors["grad." + stored] = param.grad.detach().contiguous()
    if pad is not None:
        embed = model.get_input_embeddings().weight.grad
        assert embed[pad].abs().max() == 0 and embed.abs().sum() > 0, "padding row should get no gradient"
    metadata = {"case": name, "transformers": transformers.__version__, "torch": torch.__version__,
                "attn_implementation": str(model.config._attn_implementation), "batch": str(BATCH), "seq": str(SEQ),
                "loss": "HF labels=input_ids: mean CE of logits[:, t] vs input_ids[:, t+1], t=0..T-2, over B*(T-1)"}
    if renamed:
        metadata["grad_names"] = "model.safetensors names; in-memory HF names differ: " + json.dumps(renamed)
    if moe:
        metadata["loss"] += ("; plus router_aux_loss_coef %r * aux_loss (load balancing over all sparse layers)"
                             % model.config.router_aux_loss_coef if aux is not None else
                             "; output_router_logits false: no aux loss")
        metadata["ce_loss"] = "the CE part of loss"
        if aux is not None:
            metadata["aux_loss"] = "load_balancing_loss_func (attention_mask None), before the coefficient"
    if split:
        metadata["grad_split"] = ("fused experts parameters, each saved (and its gradient stored) as per-expert "
                                  "tensors (gate_up_proj[e, :I] / [e, I:], down_proj[e]): "
                                  + json.dumps({k: [v[0], "...", v[-1]] for k, v in split.items()}))
    if left_out:
        metadata["grad_left_out"] = "%d tensors of model.safetensors have no grad entry (not text decoder): %s" % (
            len(left_out), json.dumps(sorted({key.split(".")[0] for key in left_out})))
    save_file(tensors, os.path.join(folder, "reference.safetensors"), metadata=metadata)

    weights = {key: tuple(value.shape) for key, value in saved.items()}
    tied = bool(getattr(model.config, "tie_word_embeddings", False))
    print("== %s (%s, %s attention)" % (name, type(model).__name__, model.config._attn_implementation))
    print("   config.json RoPE spelling: " + rope_spelling(saved_json))
    if "llama3" in json.dumps(saved_json):
        print("   " + check_llama3(model, model.config))
    print("   tie_word_embeddings=%s, lm_head.weight in model.safetensors: %s; %d tensors, %d parameters"
          % (tied, "lm_head.weight" in weights, len(weights), sum(p.numel() for p in model.parameters())))
    for key in sorted(weights):
        print("     %-48s %s" % (key, list(weights[key])))
    print("   loss %.7f (manual shift CE %.7f); ids[0,:8] %s; %d gradients" % (
        loss.item(), manual.item(), ids[0, :8].tolist(), sum(key.startswith("grad.") for key in tensors)))
    if moe:
        print("   MoE: ce_loss %.7f%s; %d fused experts parameters saved as %d per-expert tensors" % (
            ce.item(), "" if aux is None else ", aux_loss %.7f x coef %g" % (aux.item(),
                                                                            model.config.router_aux_loss_coef),
            len(split), sum(len(v) for v in split.values())))
    if renamed:
        print("   %d gradients under their model.safetensors name, e.g. %s -> %s" % (
            len(renamed), *next(iter(renamed.items()))))
    if left_out:
        print("   " + metadata["grad_left_out"])
    if "check" in options:
        for fact in options["check"](model, ids, logits):
            print("   " + fact)
    if pad is not None:
        print("   pad_token_id %d occurs %d times in input_ids; its embedding row has zero gradient"
              % (pad, int((ids == pad).sum())))


def write_published(outdir, repo, published):
    if outdir:
        folder = os.path.join(outdir, "published", repo.replace("/", "__"))
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "config.json"), "w") as f:
            json.dump(published, f, indent=2, sort_keys=True)


def count_params(outdir=None):
    from transformers import CONFIG_MAPPING, AutoModelForCausalLM, LlamaConfig
    counts = {}
    for repo, published in PUBLISHED.items():
        config = LlamaConfig.from_dict(copy.deepcopy(published))  # HF mutates nested dicts
        with torch.device("meta"):
            model = AutoModelForCausalLM.from_config(config)
        total = sum(p.numel() for p in model.parameters())  # a tied head is counted once
        embed = model.get_input_embeddings().weight.numel()
        untied = total + (embed if config.tie_word_embeddings else 0)
        print(f"{repo}: {total:,} parameters (HF, tie_word_embeddings={config.tie_word_embeddings}); embedding "
              f"{embed:,}; non-embedding {total - embed:,}; untied would be {untied:,}; rope_parameters "
              + json.dumps(config.rope_parameters, sort_keys=True))
        assert total == model.num_parameters() == EXPECTED_PARAMS[repo], (repo, total)
        counts[repo] = total
        write_published(outdir, repo, published)
    for repo, published in hf_published_configs.PUBLISHED.items():
        config = CONFIG_MAPPING[published["model_type"]].from_dict(copy.deepcopy(published))
        with torch.device("meta"):
            model = AutoModelForCausalLM.from_config(config)
        total = sum(p.numel() for p in model.parameters())
        embed = model.get_input_embeddings().weight.numel()
        text = config.get_text_config()
        print(f"{repo}: {total:,} parameters ({type(model).__name__}, tie_word_embeddings="
              f"{text.tie_word_embeddings}); embedding {embed:,}; non-embedding {total - embed:,}; rope_parameters "
              + json.dumps(text.rope_parameters, sort_keys=True))
        assert total == model.num_parameters() == hf_published_configs.EXPECTED[repo], (repo, total)
        counts[repo] = total
        write_published(outdir, repo, published)
    if outdir:
        with open(os.path.join(outdir, "published", "counts.json"), "w") as f:
            json.dump(counts, f, indent=2, sort_keys=True)
        print("wrote %s/published/<repo>/config.json and counts.json" % outdir)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", nargs="?")
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated, of: " + ", ".join(CASES))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--count-params", action="store_true")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    start = time.time()
    if args.count_params:
        count_params(args.outdir)
    else:
        if not args.outdir:
            parser.error("OUTDIR is required unless --count-params")
        from transformers.utils import logging as hf_logging
        hf_logging.disable_progress_bar()
        for name in args.cases.split(","):
            if name not in CASES:
                parser.error("unknown case %r" % name)
            run_case(name, args.outdir)
    print("done in %.1f s" % (time.time() - start))


if __name__ == "__main__":
    main(sys.argv[1:])
