"""The Python twins of gpubench's workloads that the compile technique exports.

A twin has the C++ module's architecture, shapes and parameter names (registered in the
same order), so the package's constants are gpubench's own parameter tensors: the joint
graph is traced from the twin, the numbers always come from C++. The parameter map from a
twin's names to the C++ module's is the identity; the exporter's step wrapper adds the
prefix "model." (scripts/export_training_step.py states it in the manifest).

  mlp   scripts/reference_models.py's Mlp (workloads/mlp.cpp): fc1, fc2, fc3.
  gpt2  workloads/gpt2.h's family as nanoGPT writes it (nn.Linear weights [out, in], the LM
        head tied to transformer.wte), of any Gpt2Shape; not HF's GPT2LMHeadModel, whose
        Conv1D weights are stored transposed ([in, out]) and could not be gpubench's tensors.
  hf_decoder  transformers' own model of a --model's config.json ({"config": ...}), for the
        dense decoders whose gpubench names are HF's (workloads/config_model.cpp says which):
        fp32, eager attention (matmul and softmax: the ops whose compiled backward is right),
        no cache; its buffers (RoPE's inv_freq) become constants of the graph, which gpubench's
        model does not hold; a tied head reads the embedding's weight without a second name.

Attention: "math" (q k^T, a causal mask, softmax, @ v, in the precisions of the CPU flash
kernel: ops whose Inductor backward is right) or "sdpa" (F.scaled_dot_product_attention(is_causal=True), as the C++ model calls
it; kept to re-check the compiled backward of the CPU flash kernel on a new torch).
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

import reference_models

GPT2_SHAPE_DEFAULTS = {"vocab": 50304, "layers": 12, "heads": 12, "embd": 768, "context": 1024, "inner": 0,
                       "layer_norm_eps": 1e-5, "tanh_gelu": False}


def math_attention(q, k, v):
    """Causal attention as the CPU flash kernel computes it, in ops whose compiled backward is
    right: scores and softmax in fp32 (under bf16 autocast too: the kernel accumulates q k^T
    in fp32 and never rounds the scores), the probabilities in v's dtype for p @ v."""
    tokens = q.size(-2)
    with torch.autocast(q.device.type, enabled=False):
        scores = (q.float() @ k.float().transpose(-2, -1)) * (1.0 / math.sqrt(q.size(-1)))
        causal = torch.ones(tokens, tokens, dtype=torch.bool, device=q.device).tril()
        probabilities = torch.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1)
        return probabilities.to(v.dtype) @ v


class Gpt2Attention(nn.Module):
    def __init__(self, shape, attention):
        super().__init__()
        self.embd, self.heads, self.attention = shape["embd"], shape["heads"], attention
        self.c_attn = nn.Linear(self.embd, 3 * self.embd)
        self.c_proj = nn.Linear(self.embd, self.embd)

    def forward(self, x):
        batch, tokens, c = x.shape
        q, k, v = (t.view(batch, tokens, self.heads, c // self.heads).transpose(1, 2)
                   for t in self.c_attn(x).split(c, dim=2))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True) if self.attention == "sdpa" else math_attention(q, k, v)
        return self.c_proj(y.transpose(1, 2).contiguous().view(batch, tokens, c))


class Gpt2Mlp(nn.Module):
    def __init__(self, shape):
        super().__init__()
        width = shape["inner"] or 4 * shape["embd"]
        self.tanh = shape["tanh_gelu"]
        self.c_fc, self.c_proj = nn.Linear(shape["embd"], width), nn.Linear(width, shape["embd"])

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh" if self.tanh else "none"))


class Gpt2Block(nn.Module):
    def __init__(self, shape, attention):
        super().__init__()
        eps = shape["layer_norm_eps"]
        self.ln_1 = nn.LayerNorm(shape["embd"], eps=eps)
        self.attn = Gpt2Attention(shape, attention)
        self.ln_2 = nn.LayerNorm(shape["embd"], eps=eps)
        self.mlp = Gpt2Mlp(shape)

    def forward(self, x):
        h = x + self.attn(self.ln_1(x))
        return h + self.mlp(self.ln_2(h))


class Gpt2(nn.Module):
    def __init__(self, shape, attention):
        super().__init__()
        shape = {**GPT2_SHAPE_DEFAULTS, **shape}
        self.context = shape["context"]
        self.transformer = nn.ModuleDict({
            "wte": nn.Embedding(shape["vocab"], shape["embd"]),
            "wpe": nn.Embedding(shape["context"], shape["embd"]),
            "h": nn.ModuleList(Gpt2Block(shape, attention) for _ in range(shape["layers"])),
            "ln_f": nn.LayerNorm(shape["embd"], eps=shape["layer_norm_eps"]),
        })

    def forward(self, tokens):
        positions = torch.arange(tokens.size(1), device=tokens.device)
        x = self.transformer.wte(tokens) + self.transformer.wpe(positions)
        for block in self.transformer.h:
            x = block(x)
        return F.linear(self.transformer.ln_f(x), self.transformer.wte.weight)  # the tied LM head


class TiedHead(nn.Module):
    """The LM head as the input embedding's weight, held without registering it again: one
    parameter under one name, as gpubench's tied model has (export finds no gradient for a
    second name of a tied weight)."""

    def __init__(self, embedding):
        super().__init__()
        object.__setattr__(self, "embedding", embedding)

    def forward(self, x):
        return F.linear(x, self.embedding.weight)


def huggingface_decoder(shape):
    from transformers import AutoConfig, AutoModelForCausalLM
    values = dict(shape["config"])
    config = AutoConfig.for_model(values.pop("model_type"), **values)
    config.use_cache = False
    model = AutoModelForCausalLM.from_config(config, attn_implementation="eager", dtype=torch.float32)
    for module in model.modules():
        for name in list(module._buffers):
            tensor = module._buffers.pop(name)
            module._non_persistent_buffers_set.discard(name)  # or assigning it registers it again
            object.__setattr__(module, name, tensor)  # a plain attribute: a constant of the exported graph
    if getattr(config, "tie_word_embeddings", False):
        model.lm_head = TiedHead(model.get_input_embeddings())
    return model, config.vocab_size


def make_twin(name, shape, attention):
    """The twin `name` of `shape` (a dict of its Gpt2Shape fields for gpt2), its loss, and
    the bound of its integer inputs (classes, token ids) for the exporter's example batch."""
    if name == "mlp":
        return reference_models.Mlp(), reference_models.classification_loss, 10
    if name == "gpt2":
        model = Gpt2(shape, attention)
        return model, reference_models.next_token_loss, model.transformer.wte.num_embeddings
    if name == "hf_decoder":
        model, vocab = huggingface_decoder(shape)
        return model, lambda output, targets: reference_models.next_token_loss(output.logits, targets), vocab
    raise ValueError(f"no Python twin named {name!r}: expected mlp, gpt2 or hf_decoder")
