#!/usr/bin/env python3
"""gpubench's CPU row of a config'd decoder family against transformers' own model of the same
config.json trained by a plain PyTorch loop (same torch, threads, batch, sequence, Adam).

For each family a ~100M-parameter config.json is written (random weights: both sides draw
their own init; the step's cost does not depend on the values). Each round runs the two sides
one after the other, the order turning by round so a drift of the machine hits both alike:
  gpubench  build/gpubench --model m=DIR --weights random --matrix m/cpu/fp32 (its median samples/s)
  python    AutoModelForCausalLM.from_config + torch.optim.Adam, timed per step, the median
The table gives gpubench / python per round and their median (above 1: gpubench is faster).
Run it with the torch gpubench was built against (.venv/bin/python): the same LibTorch.

Usage: compare_families_with_transformers.py [--gpubench build/gpubench] [--rounds 3] [--threads 2]
           [--steps 5] [--warmup 1] [--batch 4] [--seq 128] [--families llama,qwen3,gemma3_text,phi3]
           (mixtral and qwen3_moe: the mixtures of experts, ~120M parameters, 8 experts, top 2)
           [--markdown FILE] [--json FILE]
       compare_families_with_transformers.py --python-side DIR   (one Python measurement, JSON on stdout)
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

SHAPE = dict(vocab_size=32000, hidden_size=768, intermediate_size=2048, num_hidden_layers=10, num_attention_heads=12,
             max_position_embeddings=2048, rms_norm_eps=1e-5, tie_word_embeddings=True)
# ~100M parameters each (transformers' count printed in the table); what each family adds.
CONFIGS = {
    "llama": dict(SHAPE, model_type="llama", architectures=["LlamaForCausalLM"], num_key_value_heads=4,
                  rope_parameters=dict(rope_type="default", rope_theta=10000.0)),
    "qwen3": dict(SHAPE, model_type="qwen3", architectures=["Qwen3ForCausalLM"], num_key_value_heads=4, head_dim=64,
                  rope_parameters=dict(rope_type="default", rope_theta=1e6)),
    "gemma3_text": dict(SHAPE, model_type="gemma3_text", architectures=["Gemma3ForCausalLM"], num_key_value_heads=4,
                        head_dim=64, query_pre_attn_scalar=64, sliding_window=64, hidden_activation="gelu_pytorch_tanh",
                        layer_types=["sliding_attention"] * 5 + ["full_attention"] + ["sliding_attention"] * 4,
                        rope_parameters={"sliding_attention": dict(rope_type="default", rope_theta=1e4),
                                         "full_attention": dict(rope_type="default", rope_theta=1e6)},
                        pad_token_id=0),
    "phi3": dict(SHAPE, model_type="phi3", architectures=["Phi3ForCausalLM"], num_key_value_heads=12,
                 original_max_position_embeddings=2048, pad_token_id=0,
                 rope_parameters=dict(rope_type="default", rope_theta=10000.0)),
}
# Mixtures of experts of ~120M parameters (~35M active): 8 experts, top 2.
MOE_SHAPE = dict(vocab_size=32000, hidden_size=512, num_hidden_layers=8, num_attention_heads=8, num_key_value_heads=4,
                 max_position_embeddings=2048, rms_norm_eps=1e-5, tie_word_embeddings=True,
                 num_experts_per_tok=2, rope_parameters=dict(rope_type="default", rope_theta=1e6))
CONFIGS["mixtral"] = dict(MOE_SHAPE, model_type="mixtral", architectures=["MixtralForCausalLM"], num_local_experts=8,
                          intermediate_size=1024)
CONFIGS["qwen3_moe"] = dict(MOE_SHAPE, model_type="qwen3_moe", architectures=["Qwen3MoeForCausalLM"], num_experts=8,
                            moe_intermediate_size=1024, intermediate_size=2048, norm_topk_prob=True, head_dim=64)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpubench", default=os.path.join(os.path.dirname(__file__), "..", "build", "gpubench"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--families", default="llama,qwen3,gemma3_text,phi3",
                        help="of: " + ", ".join(CONFIGS))
    parser.add_argument("--markdown")
    parser.add_argument("--json")
    parser.add_argument("--python-side", metavar="DIR", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def python_side(folder, args):
    """transformers' model of the folder's config.json in a plain loop: median samples/s."""
    import torch
    import torch.nn.functional as F
    from transformers import AutoConfig, AutoModelForCausalLM
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(folder), dtype=torch.float32)
    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    vocab = model.config.vocab_size
    times = []
    for step in range(args.warmup + args.steps):
        tokens = torch.randint(0, vocab, (args.batch, args.seq + 1))
        start = time.perf_counter()
        logits = model(input_ids=tokens[:, :-1]).logits
        loss = F.cross_entropy(logits.reshape(-1, vocab), tokens[:, 1:].reshape(-1))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if step >= args.warmup:
            times.append(time.perf_counter() - start)
    return {"samples_per_s": args.batch / statistics.median(times),
            "parameters": sum(p.numel() for p in model.parameters())}


def gpubench_side(folder, args):
    with tempfile.TemporaryDirectory() as out:
        report = os.path.join(out, "r.json")
        subprocess.run([args.gpubench, "--model", "m=" + folder, "--weights", "random", "--matrix", "m/cpu/fp32",
                        "--batch-size", str(args.batch), "--seq-len", str(args.seq), "--steps", str(args.steps),
                        "--warmup", str(args.warmup), "--threads", str(args.threads), "--checkpoint-check", "off",
                        "--out", report], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(report) as f:
            row = json.load(f)["results"][0]
    if row["status"] != "ok":
        raise SystemExit("gpubench's row failed: " + str(row.get("reason")))
    return row["throughput"]["samples_per_s"]["median"]


def main(argv):
    args = parse_args(argv)
    if args.python_side:
        print(json.dumps(python_side(args.python_side, args)))
        return
    results = {}
    with tempfile.TemporaryDirectory() as root:
        for family in args.families.split(","):
            folder = os.path.join(root, family)
            os.makedirs(folder)
            with open(os.path.join(folder, "config.json"), "w") as f:
                json.dump(CONFIGS[family], f)
            ratios, ours, theirs, parameters = [], [], [], 0
            for round_index in range(args.rounds):
                sides = ["gpubench", "python"] if round_index % 2 == 0 else ["python", "gpubench"]
                measured = {}
                for side in sides:
                    if side == "gpubench":
                        measured[side] = gpubench_side(folder, args)
                    else:
                        out = subprocess.run([sys.executable, __file__, "--python-side", folder] + argv, check=True,
                                             capture_output=True, text=True, env=dict(os.environ, PYTHONWARNINGS="ignore"))
                        python = json.loads(out.stdout.strip().splitlines()[-1])
                        measured[side], parameters = python["samples_per_s"], python["parameters"]
                ours.append(measured["gpubench"])
                theirs.append(measured["python"])
                ratios.append(measured["gpubench"] / measured["python"])
                print(f"{family} round {round_index + 1}: gpubench {ours[-1]:.2f} samples/s, transformers {theirs[-1]:.2f}, "
                      f"ratio {ratios[-1]:.2f}", file=sys.stderr)
            results[family] = {"parameters": parameters, "gpubench": ours, "transformers": theirs, "ratios": ratios,
                               "median_ratio": statistics.median(ratios)}
    lines = ["| family | parameters | gpubench samples/s (median of rounds) | transformers loop | gpubench / transformers "
             "per round | median |", "|---|---|---|---|---|---|"]
    for family, r in results.items():
        lines.append(f"| {family} | {r['parameters'] / 1e6:.1f}M | {statistics.median(r['gpubench']):.2f} | "
                     f"{statistics.median(r['transformers']):.2f} | {', '.join(f'{x:.2f}' for x in r['ratios'])} | "
                     f"{r['median_ratio']:.2f}x |")
    table = "\n".join(lines)
    print(table)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"batch": args.batch, "seq": args.seq, "threads": args.threads, "steps": args.steps,
                       "results": results}, f, indent=2)


if __name__ == "__main__":
    main(sys.argv[1:])
