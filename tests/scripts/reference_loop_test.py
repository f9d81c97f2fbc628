#!/usr/bin/env python3
"""scripts/reference_loop.py as the device run's Python stage runs it, on this machine's CPU
(ctest reference_loop_times_as_gpubench_and_compiles): the period timing (no sync inside a
step, the loss read one step late, one sync closing the window), torch.compile with fused
Adam (inductor's C++ backend: needs a C++ compiler), the CPU default left as
compare_with_python.py uses it, and --device cuda: skipped rows with torch's reason without
a device, measured rows with one. The compile run starts first and the others run while it
compiles (~45 s in all on 2 cores with a cold inductor cache, ~15 s warm).

Usage: reference_loop_test.py SOURCE_DIR
"""
import json
import math
import os
import subprocess
import sys

import torch

SOURCE_DIR = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
SCRIPT = os.path.join(SOURCE_DIR, "scripts", "reference_loop.py")
ENV = dict(os.environ, PYTHONWARNINGS="ignore")
failures = []


def start(*args):
    return subprocess.Popen([sys.executable, SCRIPT, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=ENV)


def rows_of(process, what):
    out, err = process.communicate(timeout=240)
    if process.returncode != 0:
        failures.append(f"{what}: exit {process.returncode}\n{err[-2000:]}")
        return []
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def check(what, condition):
    print(("ok: " if condition else "FAILED: ") + what)
    if not condition:
        failures.append(what)


def check_measured(what, row, method, steps, warmup):
    check(f"{what}: status ok", row.get("status") == "ok")
    check(f"{what}: timing.method {method}", row["timing"]["method"] == method)
    check(f"{what}: says its statistic and gpubench's", "median" in row["timing"]["statistic"] and
          row["timing"]["gpubench_statistic"].startswith("throughput.samples_per_s.median"))
    check(f"{what}: {steps} timed steps, {warmup} first steps timed apart",
          row["steps"] == steps and len(row["first_steps_s"]) == warmup and all(s > 0 for s in row["first_steps_s"]))
    check(f"{what}: samples/s median within p10..p90",
          0 < row["samples_per_s_p10"] <= row["samples_per_s_median"] <= row["samples_per_s_p90"])
    check(f"{what}: a finite loss read", math.isfinite(row["last_loss"]))


compiled = start("mlp", "--compile", "--adam", "fused", "--timing", "period", "--steps", "3", "--warmup", "2",
                 "--batch-size", "32", "--threads", "1")

# The period timing on the CPU: the code path the CUDA rows take, but for the device's waits.
(row,) = rows_of(start("mlp", "--timing", "period", "--steps", "4", "--warmup", "1", "--threads", "1"), "period")
check_measured("period", row, "period", 4, 1)
check("period: one step late", row["timing"]["loss_read"].startswith("one step late"))
check("period: a window closed by one sync", row["samples_per_s_window"] > 0)
check("period: Adam as torch picks it on the CPU", row["adam"] == "default" and row["adam_kernel"] == "for-loop")

# The CPU default, as compare_with_python.py reads it: the step timing, samples_per_s_median.
(row,) = rows_of(start("mlp", "--steps", "2", "--warmup", "0", "--threads", "1"), "cpu default")
check_measured("cpu default", row, "step", 2, 0)
check("cpu default: no window", "samples_per_s_window" not in row)

# --device cuda: what the Python stage gets on this machine, and on a GPU.
cuda_rows = rows_of(start("mlp", "--device", "cuda", "--precision", "fp32,amp-bf16", "--steps", "3", "--warmup", "1"),
                    "cuda")
check("cuda: one row per precision", [r["precision"] for r in cuda_rows] == ["fp32", "amp-bf16"])
for row in cuda_rows:
    if torch.cuda.is_available():
        check_measured(f"cuda {row['precision']}", row, "period", 3, 1)
        check(f"cuda {row['precision']}: names the GPU", bool(row.get("gpu")))
    else:
        check(f"cuda {row['precision']}: skipped with torch's reason",
              row["status"] == "skipped" and row["reason"].startswith("no CUDA device: "))
check("cuda fp32 is IEEE fp32", not torch.cuda.is_available() or
      cuda_rows[0]["float32_math"] == {"matmul": "ieee-fp32", "convolution": "ieee-fp32"})

# Usage errors are exit 2, before anything runs.
for args, what in ((["--compile", "--warmup", "0"], "--compile without warm-up"),
                   (["--precision", "amp-bf16"], "amp on the CPU"), (["--precision", "fp64"], "an unknown precision")):
    code = subprocess.run([sys.executable, SCRIPT, "mlp", *args], capture_output=True, env=ENV).returncode
    check(f"{what} is refused (exit 2)", code == 2)

# torch.compile (inductor) with fused Adam, its compilation timed apart from its steps.
(row,) = rows_of(compiled, "compile") or ({"status": "missing", "timing": {"method": None}},)
if row.get("status") == "ok":
    check_measured("compile", row, "period", 3, 2)
    check("compile: compiled, fused Adam", row["compile"] is True and row["adam_kernel"] == "fused")
    check("compile: the compilation is in the first step, not in the timed ones",
          row["compile_s"] > 0 and row["first_steps_s"][0] > row["step_s_median"])
    check("compile: one graph, no break", row.get("graphs") == 1 and row.get("graph_breaks") == 0)

print(f"{len(failures)} failure(s)" if failures else "all checks passed")
sys.exit(1 if failures else 0)
