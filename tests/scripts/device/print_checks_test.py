#!/usr/bin/env python3
"""scripts/device/print_checks.py on a device run's report written here (ctest
device_print_checks_reads_a_report): one line per check of issue 47 that only a GPU shows
(the estimate against the allocator's peak, the capture, the round trip left out, CUPTI's
cost and its placing of kernels), a failed row's reason, and a missing report said, exit 0.

Usage: print_checks_test.py SOURCE_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

SOURCE_DIR = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "..")
SCRIPT = os.path.join(SOURCE_DIR, "scripts", "device", "print_checks.py")
GIB = 1024**3
failures = []


def check(what, condition, output=""):
    print(("ok: " if condition else "FAILED: ") + what)
    if not condition:
        print(output)
        failures.append(what)


def run(path):
    done = subprocess.run([sys.executable, SCRIPT, path], capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


report = {"results": [
    {"config_id": "llama/cuda/amp-bf16/pinned/graph", "status": "ok",
     "workload": {"memory_estimate": {"device_total_bytes": 50 * GIB}},
     "memory": {"cuda_peak_reserved_bytes": 45 * GIB, "cuda_peak_allocated_bytes": 40 * GIB},
     "cuda_graph": {"capture_ms": 812.4, "replays": 12},
     "checkpoint": {"done": False, "reason": "off (--checkpoint-check off)"}},
    {"config_id": "gpt2/cuda/amp-bf16/pinned/graph", "status": "ok",
     "overhead": {"levels": [{"name": "bare"}, {"name": "timers_nvtx"},
                             {"name": "cupti", "overhead": {"estimate": 0.012}, "target": 0.03,
                              "judgement": "within_target"}]},
     "cupti": {"status": "ok", "records": {"kernels_placed_by_start_time": 0, "kernels_in_measured_steps": 9000,
                                           "runtime_calls_in_measured_steps": 4000,
                                           "driver_calls_in_measured_steps": 5000}}},
    {"config_id": "llama/cuda/fp8/pinned/graph", "status": "failed", "reason": "CUDA out of memory"},
]}
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "report.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(report, f)
    code, out = run(path)
    check("exit 0", code == 0, out)
    check("the estimate against the peak", "estimate 50.0 GiB, peak reserved 45.0 GiB (allocated 40.0 GiB), "
          "reserved/estimate 0.90" in out, out)
    check("the capture", "graph: captured in 812 ms, 12 replays" in out, out)
    check("the round trip left out", "round trip: left out (off (--checkpoint-check off))" in out, out)
    check("CUPTI's cost and judgement", "against 0.03: within_target" in out, out)
    check("kernels placed by start time", "0 of 9000 kernels in measured steps placed by start time; 4000 runtime "
          "and 5000 driver calls" in out, out)
    check("a failed row's reason", "checks: llama/cuda/fp8/pinned/graph: failed (CUDA out of memory)" in out, out)
    code, out = run(os.path.join(tmp, "missing.json"))
    check("a missing report is said, exit 0", code == 0 and "checks: no report to read" in out, out)
sys.exit(1 if failures else 0)
