#!/usr/bin/env python3
"""The plainest PyTorch training loop of each gpubench workload, as the yardstick.

gpubench's C++ loop must never be slower than what a user would write first in Python:
the same models, shapes and cross-entropy (scripts/reference_models.py), Adam(lr=1e-3), one
fixed batch, no DataLoader, and a step of zero_grad / forward / loss / backward / step. It
prints one JSON line per precision; scripts/compare_with_python.py (CPU) and
scripts/gpu_vs_python.py (a device run's files) set it against gpubench's rows.

Timing (--timing; the JSON's "timing" says which ran and what its statistic is):
  step    each step ends with a device sync and is timed alone; the loss is read after it,
          outside the timed part. The CPU default, the one compare_with_python.py's
          published ratios were measured with.
  period  the loop as a real one runs (DESIGN.md, "Measuring on a GPU as a real loop runs"),
          the CUDA default: no sync inside a step; step N's loss is copied to pinned host
          memory without waiting and read while step N+1 is queued, the wait inside the
          step, so a step's time is the loop's period, the GPU's step time once the host
          runs ahead. This is how gpubench times its CUDA rows (harness/run/trainer.cpp).
Both sides report the median over timed steps of batch / step time: the Python side's
samples_per_s_median is the same statistic as a gpubench row's
throughput.samples_per_s.median. period also gives samples_per_s_window: the timed steps'
samples over the window from the first timed step to one sync after the last.

On a GPU (--device cuda) the model lives on cuda:0 and one pinned host batch is copied to it
each step (non_blocking), as gpubench's pinned rows; --precision picks fp32 (TF32 off, as
gpubench's fp32), amp-bf16 or amp-fp16 (autocast + torch.amp.GradScaler), several at once
as a comma list (one process: torch and the model code imported once). Without a device
each row is a "skipped" line with torch's reason, and the exit code is 0.

What a Python user gets at best (nanoGPT's recipe): --compile runs model and loss under
torch.compile (inductor), --adam fused torch's fused Adam kernel. The warm-up steps are
timed one by one, each closed by a sync (first_steps_s): they hold the compilation, and
compile_s is their time beyond as many steady steps.

Usage: reference_loop.py WORKLOAD [--threads N] [--steps N] [--warmup N] [--batch-size N]
           [--device cpu|cuda] [--precision fp32|amp-bf16|amp-fp16[,...]]
           [--timing step|period] [--adam default|for-loop|foreach|fused] [--compile]
"""
import argparse
import collections
import gc
import json
import math
import statistics
import sys
import time

import torch
import torch.nn as nn

sys.dont_write_bytecode = True  # importing the models beside this script leaves no __pycache__ in the tree
from reference_models import WORKLOADS  # noqa: E402

PRECISIONS = ("fp32", "amp-bf16", "amp-fp16")
GPUBENCH_STATISTIC = ("throughput.samples_per_s.median: the median over measured steps of global batch / step time, "
                      "a CUDA step timed as the loop's period (no sync inside it, the loss read one step late)")
STATISTIC = {
    "step": "median over timed steps of batch / step time, each step ended by a device sync on CUDA (the loss read "
            "after the timed part)",
    "period": "median over timed steps of batch / step time, a step timed as the loop's period: no sync inside it, "
              "the previous step's loss read inside it (one step late), as gpubench's CUDA rows",
}
LOSS_READ = {"step": "after each step, outside its timed part",
             "period": "one step late: step N's loss is read after step N+1 is queued, inside that step (on CUDA "
                       "through a non_blocking copy into pinned memory and an event, no wait when it is queued)"}


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workload", choices=sorted(WORKLOADS))
    parser.add_argument("--threads", type=int, default=0, help="intra-op threads (default: torch's)")
    parser.add_argument("--steps", type=int, default=30, help="timed steps")
    parser.add_argument("--warmup", type=int, default=3, help="untimed steps first")
    parser.add_argument("--batch-size", type=int, default=0, help="default: the workload's for the device")
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--precision", default="fp32",
                        help="comma list of fp32, amp-bf16, amp-fp16 (CUDA only: autocast bf16, or fp16 with GradScaler)")
    parser.add_argument("--timing", choices=["step", "period"], help="default: step on cpu, period on cuda")
    parser.add_argument("--adam", choices=["default", "for-loop", "foreach", "fused"], default="default",
                        help="Adam's kernel: torch's choice (foreach on CUDA), or the one named")
    parser.add_argument("--compile", action="store_true", help="model and loss under torch.compile (inductor)")
    args = parser.parse_args(argv)
    args.precisions = args.precision.split(",")
    unknown = [p for p in args.precisions if p not in PRECISIONS]
    if unknown:
        parser.error(f"--precision {unknown}: expected a comma list of {', '.join(PRECISIONS)}")
    if args.device != "cuda" and args.precisions != ["fp32"]:
        parser.error("--precision amp-* is a CUDA precision (gpubench's CPU bf16 is another config)")
    if args.steps < 1 or args.warmup < 0 or args.threads < 0 or args.batch_size < 0:
        parser.error("--steps must be >= 1 and --warmup, --threads, --batch-size >= 0")
    if args.compile and args.warmup < 1:
        parser.error("--compile needs --warmup >= 1: the first steps compile, and are kept out of the timed ones")
    args.timing = args.timing or ("period" if args.device == "cuda" else "step")
    return args


def cuda_unavailable_reason():
    """None when cuda:0 can be used, else torch's own reason (as gpubench's skipped rows give LibTorch's)."""
    if torch.cuda.is_available():
        return None
    try:
        torch.cuda.init()
        detail = "torch sees no device"
    except Exception as error:  # the driver's or the build's message
        detail = str(error).strip()
    return f"no CUDA device: {detail} (torch {torch.__version__}, built for CUDA {torch.version.cuda})"


class LateLossReadback:
    """Each loss starts towards the host when its step is queued and is read a step later,
    as gpubench's (harness/run/cuda_loss_readback.cpp): on CUDA a non_blocking copy into a
    pinned scalar and an event, the wait on that event only."""

    def __init__(self, cuda):
        self.cuda, self.queue, self.read = cuda, collections.deque(), []

    def start(self, loss):
        if not self.cuda:
            self.queue.append((loss.detach(), None))
            return
        host = torch.empty((), dtype=loss.dtype, pin_memory=True)
        host.copy_(loss.detach(), non_blocking=True)
        event = torch.cuda.Event()
        event.record()
        self.queue.append((host, event))

    def wait_oldest(self):
        value, event = self.queue.popleft()
        if event is not None:
            event.synchronize()
        loss = value.item()
        if not math.isfinite(loss):  # as gpubench: a non-finite loss fails the row, naming its step
            raise SystemExit(f"reference_loop: the loss became {loss} at step {len(self.read)}")
        self.read.append(loss)
        return loss

    def drain(self):
        while self.queue:
            self.wait_oldest()


def float32_math(precision):
    """fp32 is IEEE fp32 (TF32 off, as gpubench's fp32 rows); AMP rows keep torch's defaults
    (cuBLAS TF32 off, cuDNN TF32 on), as gpubench's. Read back, not assumed."""
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = precision != "fp32"
    name = lambda tf32: "tf32" if tf32 else "ieee-fp32"  # noqa: E731
    return {"matmul": name(torch.backends.cuda.matmul.allow_tf32),
            "convolution": name(torch.backends.cudnn.allow_tf32)}


def make_optimizer(model, adam):
    params = list(model.parameters())
    kwargs = {"for-loop": {"foreach": False}, "foreach": {"foreach": True}, "fused": {"fused": True}}.get(adam, {})
    optimizer = torch.optim.Adam(params, lr=1e-3, **kwargs)
    kernel = adam
    if adam == "default":  # what torch picks for these parameters (foreach on CUDA, the for-loop on the CPU)
        try:
            from torch.optim.optimizer import _default_to_fused_or_foreach
            fused, foreach = _default_to_fused_or_foreach(params, differentiable=False, use_fused=False)
            kernel = "fused" if fused else "foreach" if foreach else "for-loop"
        except Exception:
            kernel = "torch's default"
    return optimizer, kernel


class ModelAndLoss(nn.Module):
    """Forward and loss as one module, so --compile compiles both (nanoGPT's model returns its loss)."""

    def __init__(self, model, loss_fn):
        super().__init__()
        self.model, self.loss_fn = model, loss_fn

    def forward(self, data, target):
        return self.loss_fn(self.model(data), target)


def make_step(args, precision, batch):
    """The training step as a closure returning the loss tensor, and what the row states about it."""
    model_class, _, make_batch, loss_fn = WORKLOADS[args.workload]
    cuda = args.device == "cuda"
    torch.manual_seed(42)
    model = model_class().to(args.device)
    model.train()
    optimizer, kernel = make_optimizer(model, args.adam)
    host_data, host_target = make_batch(batch)
    if cuda:  # one pinned host batch, copied each step as gpubench's pinned rows copy theirs
        host_data, host_target = host_data.pin_memory(), host_target.pin_memory()
    compute_loss = ModelAndLoss(model, loss_fn)
    if args.compile:
        compute_loss = torch.compile(compute_loss)
    amp_dtype = {"amp-bf16": torch.bfloat16, "amp-fp16": torch.float16}.get(precision)
    scaler = torch.amp.GradScaler("cuda", enabled=precision == "amp-fp16")

    def step():
        data = host_data.to(args.device, non_blocking=True)  # on the CPU the batch itself, no copy
        target = host_target.to(args.device, non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(args.device, dtype=amp_dtype or torch.bfloat16, enabled=amp_dtype is not None):
            loss = compute_loss(data, target)
        if scaler.is_enabled():
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
            optimizer.step()
        return loss

    return step, kernel


def sync(cuda):
    if cuda:
        torch.cuda.synchronize()


def first_steps(step, args, cuda, readback):
    """The warm-up steps, each timed alone and closed by a sync: with --compile they hold the compilation."""
    times = []
    for index in range(args.warmup):
        start = time.perf_counter()
        readback.start(step())
        readback.drain()
        sync(cuda)
        times.append(time.perf_counter() - start)
        if cuda or args.compile:  # progress where first steps are long: a cut run still shows the compile time
            print(f"reference_loop: warm-up step {index + 1}/{args.warmup}: {times[-1]:.3f} s", file=sys.stderr,
                  flush=True)
    return times


def timed_steps(step, args, cuda, readback):
    """Per-step seconds, the window's seconds (None for step timing) and the last loss read."""
    step_s = []
    window_start = time.perf_counter()
    for _ in range(args.steps):
        start = time.perf_counter()
        loss = step()
        if args.timing == "step":
            sync(cuda)
            step_s.append(time.perf_counter() - start)
            readback.start(loss)
            readback.drain()  # outside the timed part: how the published CPU ratios were measured
            continue
        readback.start(loss)
        if len(readback.queue) > 1:
            readback.wait_oldest()
        step_s.append(time.perf_counter() - start)
    readback.drain()
    sync(cuda)
    window_s = time.perf_counter() - window_start if args.timing == "period" else None
    return step_s, window_s, readback.read[-1]


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1) + 0.5))]


def graph_counts():
    """Dynamo's graphs and graph breaks so far (its internal counters; absent when they move)."""
    try:
        from torch._dynamo.utils import counters
        return {"graphs": counters["stats"]["unique_graphs"], "graph_breaks": sum(counters["graph_break"].values())}
    except Exception:
        return {}


def row_header(args, precision, batch):
    return {"workload": args.workload, "device": args.device, "precision": precision, "batch_size": batch,
            "adam": args.adam, "compile": args.compile, "timing": {"method": args.timing}}


def run_row(args, precision, batch):
    cuda = args.device == "cuda"
    row = row_header(args, precision, batch)
    if cuda:
        row["float32_math"] = float32_math(precision)
        row["gpu"] = torch.cuda.get_device_name(0)
        row["data"] = "one pinned host batch, copied to cuda:0 (non_blocking) each step, on the default stream"
    step, row["adam_kernel"] = make_step(args, precision, batch)
    readback = LateLossReadback(cuda)  # one for the row, so a non-finite loss names its step
    row["first_steps_s"] = first_steps(step, args, cuda, readback)
    step_s, window_s, last_loss = timed_steps(step, args, cuda, readback)
    rates = [batch / s for s in step_s]
    row["timing"].update(statistic=STATISTIC[args.timing], gpubench_statistic=GPUBENCH_STATISTIC,
                         loss_read=LOSS_READ[args.timing])
    row.update(status="ok", torch=torch.__version__, threads=torch.get_num_threads(), steps=len(step_s),
               warmup=args.warmup, step_s_median=statistics.median(step_s),
               samples_per_s_median=statistics.median(rates), samples_per_s_p10=percentile(rates, 0.1),
               samples_per_s_p90=percentile(rates, 0.9), last_loss=last_loss)
    if window_s is not None:
        row["samples_per_s_window"] = batch * len(step_s) / window_s
    if args.compile:  # the warm-up's time beyond as many steady steps: dynamo, inductor, kernel builds
        row["compile_s"] = max(0.0, sum(row["first_steps_s"]) - args.warmup * row["step_s_median"])
        row.update(graph_counts())
    if cuda:
        row["cuda_peak_allocated_bytes"] = torch.cuda.max_memory_allocated()
    return row


def main(argv):
    args = parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    model_batches = WORKLOADS[args.workload][1]
    batch = args.batch_size or model_batches[1 if args.device == "cuda" else 0]
    reason = cuda_unavailable_reason() if args.device == "cuda" else None
    for precision in args.precisions:
        if reason:
            row = dict(row_header(args, precision, batch), status="skipped", reason=reason)
        else:
            row = run_row(args, precision, batch)
            if args.device == "cuda":  # the next precision starts from an empty device, as a process of its own
                gc.collect()
                torch.cuda.empty_cache()
                torch.cuda.reset_peak_memory_stats()
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
