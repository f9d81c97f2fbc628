#!/usr/bin/env python3
"""gpubench's CPU fp32 loop against the plain PyTorch eager loop (scripts/reference_loop.py).

Runs, for each workload and each round, four sides one after the other (the order turns
by round, so a drift of the machine hits all alike), each with the same threads, steps and
warm-up: gpubench as shipped (--host-malloc retain), gpubench with glibc's allocator
defaults (--host-malloc glibc), the Python loop as a user runs it (glibc defaults), and the
Python loop with the same allocator setting as gpubench's default (GLIBC_TUNABLES). A
round's ratios are of median samples/s; the table gives each ratio's median over rounds:
  shipped / Python        what gpubench reports against the user's plain loop
  same allocator, glibc   the two loops alone, both with glibc's defaults
  same allocator, retain  the two loops alone, both retaining freed memory
Run it with the torch gpubench was built against (.venv/bin/python): the same LibTorch.
The Python loop is timed per step (reference_loop.py --timing step: on the CPU nothing runs
ahead, so the loop's period is the same time). On a GPU, scripts/device-validate.sh runs the
Python rows beside gpubench's and scripts/gpu_vs_python.py reads that run's files.
Both sides use each workload's CPU batch (resnet50 8, gpt2 1 x 1024 tokens); their ids are
named, so they run although `all` leaves them out on a CPU-only machine.

Usage: compare_with_python.py [--gpubench build/gpubench] [--rounds 3] [--threads 2]
                              [--steps 30] [--warmup 3] [--workloads mlp,cnn,transformer,resnet50,gpt2]
                              [--markdown FILE] [--json FILE]
"""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOADS = ("mlp", "cnn", "transformer", "resnet50", "gpt2")
# What --host-malloc retain sets with mallopt (core/device/host_malloc.cpp), for Python.
RETAIN_TUNABLES = "glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=2147483647"
SIDES = ("gpubench", "gpubench_glibc", "python", "python_retain")


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpubench", default=os.path.join(HERE, "..", "build", "gpubench"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--markdown", help="also write the table as markdown here")
    parser.add_argument("--json", help="also write every round's numbers here (NAME.python-comparison.json beside "
                                       "committed reports: the report test skips that suffix)")
    args = parser.parse_args(argv)
    args.workloads = args.workloads.split(",")
    unknown = [w for w in args.workloads if w not in WORKLOADS]
    if unknown:
        parser.error(f"unknown workload(s) {unknown}: expected a comma list of {', '.join(WORKLOADS)}")
    if min(args.rounds, args.threads, args.steps) < 1 or args.warmup < 0:
        parser.error("--rounds, --threads and --steps must be >= 1, --warmup >= 0")
    if not os.access(args.gpubench, os.X_OK):
        parser.error(f"--gpubench {args.gpubench} is not an executable: build it first (scripts/build.sh)")
    return args


def run_gpubench(args, workload, scratch, host_malloc):
    out = os.path.join(scratch, f"{workload}.json")
    command = [args.gpubench, "--matrix", f"{workload}/cpu/fp32", "--threads", str(args.threads),
               "--steps", str(args.steps), "--warmup", str(args.warmup), "--host-malloc", host_malloc,
               "--format", "json", "--out", out]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out) as report:
        result = json.load(report)["results"][0]
    if result["status"] != "ok":
        raise SystemExit(f"gpubench {workload}/cpu/fp32 did not run: {result['status']}: {result.get('reason')}")
    return result["throughput"]["samples_per_s"]["median"]


def run_reference(args, workload, tunables):
    command = [sys.executable, os.path.join(HERE, "reference_loop.py"), workload, "--threads", str(args.threads),
               "--steps", str(args.steps), "--warmup", str(args.warmup), "--timing", "step"]
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    env.pop("GLIBC_TUNABLES", None)
    if tunables:
        env["GLIBC_TUNABLES"] = tunables
    line = subprocess.run(command, check=True, capture_output=True, text=True, env=env).stdout.strip().splitlines()[-1]
    return json.loads(line)


def run_side(args, workload, scratch, side):
    """Median samples/s of one side, and the torch version when it is the Python loop."""
    if side.startswith("gpubench"):
        return run_gpubench(args, workload, scratch, "glibc" if side == "gpubench_glibc" else "retain"), None
    reference = run_reference(args, workload, RETAIN_TUNABLES if side == "python_retain" else "")
    return reference["samples_per_s_median"], reference["torch"]


def measure(args):
    rounds = {w: [] for w in args.workloads}
    torch_version = None
    with tempfile.TemporaryDirectory(prefix="gpubench-vs-python-") as scratch:
        for round_index in range(args.rounds):
            for workload in args.workloads:
                sides = {}
                shift = round_index % len(SIDES)
                for side in SIDES[shift:] + SIDES[:shift]:
                    sides[side], version = run_side(args, workload, scratch, side)
                    torch_version = version or torch_version
                sides["ratio"] = sides["gpubench"] / sides["python"]
                sides["ratio_glibc"] = sides["gpubench_glibc"] / sides["python"]
                sides["ratio_retain"] = sides["gpubench"] / sides["python_retain"]
                rounds[workload].append(sides)
                print(f"round {round_index + 1} {workload}: " + ", ".join(f"{k} {v:.3f}" for k, v in sides.items()),
                      file=sys.stderr)
    return rounds, torch_version


def table(args, rounds, torch_version):
    date = datetime.date.today().isoformat()
    lines = ["| workload | gpubench samples/s (shipped: retain) | Python eager samples/s (glibc defaults) | "
             "shipped / Python | same allocator, glibc | same allocator, retain | rounds | threads | LibTorch | date |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    for workload, sides in rounds.items():
        median = lambda key: statistics.median(s[key] for s in sides)  # noqa: E731
        lines.append(f"| {workload} | {median('gpubench'):.1f} | {median('python'):.1f} | {median('ratio'):.3f}x | "
                     f"{median('ratio_glibc'):.3f}x | {median('ratio_retain'):.3f}x | {len(sides)} | {args.threads} | "
                     f"{torch_version} | {date} |")
    return "\n".join(lines) + "\n"


def main(argv):
    args = parse_args(argv)
    rounds, torch_version = measure(args)
    text = table(args, rounds, torch_version)
    print(text, end="")
    if args.markdown:
        with open(args.markdown, "w") as out:
            out.write(text)
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"torch": torch_version, "threads": args.threads, "steps": args.steps, "warmup": args.warmup,
                       "rounds": rounds}, out, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
