#!/usr/bin/env python3
"""The plainest PyTorch eager training loop of each gpubench workload, as the yardstick.

gpubench's C++ loop must never be slower than what a user would write first in Python:
same architecture, shapes, Adam(lr=1e-3) and cross-entropy as workloads/*.cpp, one fixed
batch, no DataLoader, and a step of zero_grad / forward / loss / backward / step. The
standard workloads are their references themselves: torchvision's resnet50() and HF
transformers' GPT2LMHeadModel configured as nanoGPT's GPT (tests/workloads/
reference_outputs.py proves gpubench's models equal to them). It prints one JSON line with
the median samples/s of the timed steps (the statistic gpubench reports), so
scripts/compare_with_python.py can interleave it with gpubench.

On a GPU (--device cuda) the model and batch live on cuda:0, --precision picks fp32 (TF32
off, as gpubench's fp32), amp-bf16 or amp-fp16 (autocast + torch.amp.GradScaler), and each
step ends with torch.cuda.synchronize() so its time is the GPU's.

Usage: reference_loop.py WORKLOAD [--threads N] [--steps N] [--warmup N] [--batch-size N]
                         [--device cpu|cuda] [--precision fp32|amp-bf16|amp-fp16]
"""
import argparse
import json
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


# ---- mlp: workloads/mlp.cpp -------------------------------------------------------------
class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(784, 1024), nn.Linear(1024, 1024), nn.Linear(1024, 10)

    def forward(self, images):
        x = images.flatten(1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


# ---- cnn: workloads/cnn.cpp -------------------------------------------------------------
def conv3x3(cin, cout, stride):
    return nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1, self.bn1 = conv3x3(cin, cout, stride), nn.BatchNorm2d(cout)
        self.conv2, self.bn2 = conv3x3(cout, cout, 1), nn.BatchNorm2d(cout)
        self.projection = None
        if stride != 1 or cin != cout:
            self.projection = nn.Conv2d(cin, cout, 1, stride=stride, bias=False)
            self.projection_bn = nn.BatchNorm2d(cout)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        shortcut = self.projection_bn(self.projection(x)) if self.projection is not None else x
        return F.relu(out + shortcut)


class Cnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem, self.stem_bn = conv3x3(3, 32, 1), nn.BatchNorm2d(32)
        self.block1, self.block2, self.block3 = BasicBlock(32, 32, 1), BasicBlock(32, 64, 2), BasicBlock(64, 128, 2)
        self.head = nn.Linear(128, 10)

    def forward(self, images):
        x = F.relu(self.stem_bn(self.stem(images)))
        x = self.block3(self.block2(self.block1(x)))
        x = F.adaptive_avg_pool2d(x, (1, 1)).flatten(1)
        return self.head(x)


# ---- transformer: workloads/transformer.cpp (TransformerShape defaults) -----------------
VOCAB, D_MODEL, HEADS, LAYERS, FFN, SEQ = 4096, 256, 4, 4, 1024, 128


class DecoderBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(D_MODEL), nn.LayerNorm(D_MODEL)
        self.attention = nn.MultiheadAttention(D_MODEL, HEADS)  # [seq, batch, d], as LibTorch's
        self.fc1, self.fc2 = nn.Linear(D_MODEL, FFN), nn.Linear(FFN, D_MODEL)

    def forward(self, x, causal_mask):
        normed = self.ln1(x)
        attended = self.attention(normed, normed, normed, need_weights=False, attn_mask=causal_mask)[0]
        h = x + attended
        return h + self.fc2(F.gelu(self.fc1(self.ln2(h))))


class Transformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.token_embedding, self.position_embedding = nn.Embedding(VOCAB, D_MODEL), nn.Embedding(SEQ, D_MODEL)
        self.blocks = nn.ModuleList(DecoderBlock() for _ in range(LAYERS))
        self.final_ln, self.head = nn.LayerNorm(D_MODEL), nn.Linear(D_MODEL, VOCAB)
        self.register_buffer("causal_mask", torch.full((SEQ, SEQ), float("-inf")).triu(1))

    def forward(self, tokens):
        seq = tokens.size(1)
        positions = torch.arange(seq, device=tokens.device)
        x = (self.token_embedding(tokens) + self.position_embedding(positions)).transpose(0, 1)
        mask = self.causal_mask[:seq, :seq]
        for block in self.blocks:
            x = block(x, mask)
        return self.head(self.final_ln(x)).transpose(0, 1)


# ---- resnet50 and gpt2: the references themselves (workloads/resnet50.h, workloads/gpt2.h) --
def resnet50():
    import torchvision
    return torchvision.models.resnet50()


class Gpt2(nn.Module):
    """HF GPT2LMHeadModel as nanoGPT's GPT: vocab 50304, exact GELU, dropout 0, sdpa attention."""

    def __init__(self):
        super().__init__()
        from transformers import GPT2Config, GPT2LMHeadModel
        config = GPT2Config(vocab_size=50304, n_positions=1024, n_embd=768, n_layer=12, n_head=12,
                            activation_function="gelu", resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
        config._attn_implementation = "sdpa"
        self.model = GPT2LMHeadModel(config)

    def forward(self, tokens):
        return self.model(input_ids=tokens).logits


GPT2_CONTEXT, GPT2_TOKENIZER_VOCAB = 1024, 50257


def classification_loss(output, targets):
    return F.cross_entropy(output.float(), targets)


def next_token_loss(output, targets):
    return F.cross_entropy(output.reshape(-1, output.size(-1)).float(), targets.reshape(-1))


# name -> (model, default batch {cpu, cuda}, batch maker, loss), the batch sizes of workloads/*.h
WORKLOADS = {
    "mlp": (Mlp, (256, 256), lambda b: (torch.randn(b, 1, 28, 28), torch.randint(0, 10, (b,))), classification_loss),
    "cnn": (Cnn, (128, 128), lambda b: (torch.randn(b, 3, 32, 32), torch.randint(0, 10, (b,))), classification_loss),
    "transformer": (Transformer, (32, 32),
                    lambda b: (torch.randint(0, VOCAB, (b, SEQ)), torch.randint(0, VOCAB, (b, SEQ))), next_token_loss),
    "resnet50": (resnet50, (8, 256), lambda b: (torch.randn(b, 3, 224, 224), torch.randint(0, 1000, (b,))),
                 classification_loss),
    "gpt2": (Gpt2, (1, 16), lambda b: (torch.randint(0, GPT2_TOKENIZER_VOCAB, (b, GPT2_CONTEXT)),
                                       torch.randint(0, GPT2_TOKENIZER_VOCAB, (b, GPT2_CONTEXT))), next_token_loss),
}


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workload", choices=sorted(WORKLOADS))
    parser.add_argument("--threads", type=int, default=0, help="intra-op threads (default: torch's)")
    parser.add_argument("--steps", type=int, default=30, help="timed steps")
    parser.add_argument("--warmup", type=int, default=3, help="untimed steps first")
    parser.add_argument("--batch-size", type=int, default=0, help="default: the workload's for the device")
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--precision", choices=["fp32", "amp-bf16", "amp-fp16"], default="fp32",
                        help="CUDA only: autocast bf16, or fp16 with GradScaler")
    args = parser.parse_args(argv)
    if args.precision != "fp32" and args.device != "cuda":
        parser.error("--precision amp-* is a CUDA precision (gpubench's CPU bf16 is another config)")
    if args.steps < 1 or args.warmup < 0 or args.threads < 0 or args.batch_size < 0:
        parser.error("--steps must be >= 1 and --warmup, --threads, --batch-size >= 0")
    return args


def main(argv):
    args = parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(42)
    model_class, default_batches, make_batch, loss_fn = WORKLOADS[args.workload]
    cuda = args.device == "cuda"
    batch = args.batch_size or default_batches[1 if cuda else 0]
    if cuda:  # gpubench's fp32 is IEEE fp32: no TF32 in matmuls or convolutions
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    model = model_class().to(args.device)
    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    data, target = (t.to(args.device) for t in make_batch(batch))
    amp_dtype = {"amp-bf16": torch.bfloat16, "amp-fp16": torch.float16}.get(args.precision)
    scaler = torch.amp.GradScaler("cuda", enabled=args.precision == "amp-fp16")
    step_s = []
    for step in range(args.warmup + args.steps):
        start = time.perf_counter()
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(args.device, dtype=amp_dtype or torch.bfloat16, enabled=amp_dtype is not None):
            loss = loss_fn(model(data), target)
        if scaler.is_enabled():
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
            optimizer.step()
        if cuda:
            torch.cuda.synchronize()
        elapsed = time.perf_counter() - start
        loss.item()  # as gpubench: read after the step, outside the timed part
        if step >= args.warmup:
            step_s.append(elapsed)
    samples_per_s = [batch / s for s in step_s]
    print(json.dumps({"workload": args.workload, "torch": torch.__version__, "threads": torch.get_num_threads(),
                      "device": args.device, "precision": args.precision, "batch_size": batch, "steps": len(step_s),
                      "samples_per_s_median": statistics.median(samples_per_s)}))


if __name__ == "__main__":
    main(sys.argv[1:])
