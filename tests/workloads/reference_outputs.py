#!/usr/bin/env python3
"""The references gpubench's standard workloads must equal, run once from a seed.

Builds torchvision's resnet50() or HF transformers' GPT2LMHeadModel (with the GPT2Config
that is nanoGPT's GPT: vocab 50304, exact gelu, dropouts 0, sdpa attention), runs one
training-mode forward and backward in fp32 on the CPU, and writes into OUTDIR:
  weights.pt  dict(model.state_dict()) before the step (the reference's own names)
  io.pt       {"input", "target", "logits", "loss"}
  grads.pt    {name: grad} for every named parameter
  after.pt    {name: buffer} after the forward (BatchNorm running statistics), resnet50
Plain dicts: LibTorch's unpickler does not take an OrderedDict. The C++ side
(tests/workloads/reference_equality_test.cpp) loads weights.pt by name into gpubench's model and compares.

Usage: reference_outputs.py resnet50|gpt2 OUTDIR [--threads 1]
"""
import argparse
import os
import sys

import torch
import torch.nn.functional as F


def resnet50_case():
    import torchvision
    model = torchvision.models.resnet50()  # weights=None: built from the seed
    data = torch.randn(2, 3, 224, 224)
    target = torch.randint(0, 1000, (2,))
    return model, data, target, lambda logits: F.cross_entropy(logits, target)


def gpt2_case():
    from transformers import GPT2Config, GPT2LMHeadModel
    config = GPT2Config(vocab_size=50304, n_positions=1024, n_embd=768, n_layer=12, n_head=12,
                        activation_function="gelu", resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                        layer_norm_epsilon=1e-5)
    config._attn_implementation = "sdpa"
    model = GPT2LMHeadModel(config)
    if model.config._attn_implementation != "sdpa":
        raise SystemExit(f"GPT2LMHeadModel uses {model.config._attn_implementation!r} attention, expected sdpa")
    tokens = torch.randint(0, 50257, (2, 257))
    data, target = tokens[:, :-1].contiguous(), tokens[:, 1:].contiguous()

    def loss_of(logits):
        return F.cross_entropy(logits.reshape(-1, logits.size(-1)), target.reshape(-1))

    def forward(inputs):
        return model(input_ids=inputs).logits
    return model, data, target, loss_of, forward


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workload", choices=["resnet50", "gpt2"])
    parser.add_argument("outdir")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    case = resnet50_case() if args.workload == "resnet50" else gpt2_case()
    model, data, target, loss_of = case[:4]
    forward = case[4] if len(case) > 4 else model
    model.train()
    os.makedirs(args.outdir, exist_ok=True)
    torch.save(dict(model.state_dict()), os.path.join(args.outdir, "weights.pt"))  # before the forward moves BN statistics
    logits = forward(data)
    loss = loss_of(logits)
    loss.backward()
    torch.save({"input": data, "target": target, "logits": logits.detach(), "loss": loss.detach()},
               os.path.join(args.outdir, "io.pt"))
    torch.save({name: p.grad for name, p in model.named_parameters()}, os.path.join(args.outdir, "grads.pt"))
    torch.save({name: b.clone() for name, b in model.named_buffers()}, os.path.join(args.outdir, "after.pt"))
    print(f"{args.workload}: loss {loss.item():.6f}, {sum(p.numel() for p in model.parameters())} parameters, "
          f"written to {args.outdir}")


if __name__ == "__main__":
    main(sys.argv[1:])
