#!/usr/bin/env python3
"""scripts/gpu_vs_python.py on a device run's files written here (ctest
gpu_vs_python_ratios_from_a_device_run): gpubench's rows over the eager Python rows of the
same config, and every gpt2 row over the torch.compile row, best first; a row timed another
way is marked, and a run where no pair exists (every row skipped) is exit 1. Under a second.

Usage: gpu_vs_python_test.py SOURCE_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

SOURCE_DIR = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
SCRIPT = os.path.join(SOURCE_DIR, "scripts", "gpu_vs_python.py")
GPU = "NVIDIA H100 80GB HBM3"
failures = []


def check(what, condition):
    print(("ok: " if condition else "FAILED: ") + what)
    if not condition:
        failures.append(what)


def gpubench_row(config_id, samples_per_s, method="events", status="ok"):
    workload, device, precision = config_id.split("/")[:3]
    return {"config_id": config_id, "status": status, "timing": {"method": method},
            "config": {"workload": workload, "device": device, "precision": precision},
            "throughput": {"samples_per_s": {"median": samples_per_s}}}


def python_row(workload, precision, samples_per_s, compiled=False, status="ok"):
    row = {"workload": workload, "device": "cuda", "precision": precision, "compile": compiled, "status": status,
           "timing": {"method": "period"}, "gpu": GPU, "adam_kernel": "fused" if compiled else "foreach",
           "samples_per_s_median": samples_per_s, "samples_per_s_window": samples_per_s * 0.99,
           "first_steps_s": [40.0, 0.2, 0.1] if compiled else [0.5, 0.1, 0.1]}
    if compiled:
        row.update(compile_s=39.8, graphs=1, graph_breaks=0)
    return row


def write_run(folder, reports, python):
    env = {"cuda": {"devices": [{"name": GPU}]}}
    for name, results in reports.items():
        with open(os.path.join(folder, name), "w") as out:
            json.dump({"env": env, "results": results}, out)
    with open(os.path.join(folder, "python-reference.jsonl"), "w") as out:
        out.writelines(json.dumps(row) + "\n" for row in python)


def run(folder):
    ratios = os.path.join(folder, "ratios.json")
    result = subprocess.run([sys.executable, SCRIPT, folder, "--json", ratios], capture_output=True, text=True)
    return result, (json.load(open(ratios)) if os.path.exists(ratios) else [])


with tempfile.TemporaryDirectory() as folder:
    write_run(folder, {
        "report-techniques.json": [gpubench_row("gpt2/cuda/amp-bf16/pinned", 100.0),
                                   gpubench_row("resnet50/cuda/fp32/pinned", 50.0),
                                   gpubench_row("gpt2/cuda/fp8/pinned", 0, status="skipped")],
        "report-stacks.json": [gpubench_row("gpt2/cuda/amp-bf16/pinned/adam-fused", 120.0),
                               gpubench_row("gpt2/cuda/fp32/pinned", 30.0, method="sync_phases")]},
        [python_row("gpt2", "amp-bf16", 80.0), python_row("resnet50", "fp32", 40.0),
         python_row("gpt2", "amp-fp16", 70.0), python_row("gpt2", "amp-bf16", 110.0, compiled=True)])
    result, ratios = run(folder)
    check("exit 0", result.returncode == 0)
    eager = {r["gpubench_id"]: r for r in ratios if r["kind"] == "vs_eager"}
    check("gpubench / plain PyTorch for each eager row with a gpubench twin",
          sorted(eager) == ["gpt2/cuda/amp-bf16/pinned", "resnet50/cuda/fp32/pinned"])
    check("gpt2 amp-bf16: 100 / 80", abs(eager["gpt2/cuda/amp-bf16/pinned"]["ratio"] - 1.25) < 1e-9)
    check("resnet50 fp32: 50 / 40", abs(eager["resnet50/cuda/fp32/pinned"]["ratio"] - 1.25) < 1e-9)
    compiled = [r for r in ratios if r["kind"] == "vs_compile"]
    check("every ok gpt2 row against torch.compile, best first",
          [r["gpubench_id"] for r in compiled] == ["gpt2/cuda/amp-bf16/pinned/adam-fused", "gpt2/cuda/amp-bf16/pinned",
                                                  "gpt2/cuda/fp32/pinned"])
    check("best gpt2 row / torch.compile: 120 / 110", abs(compiled[0]["ratio"] - 120 / 110) < 1e-9)
    check("a row timed with --sync-phases is marked", compiled[2]["note"] == "gpubench timed sync_phases")
    check("the table names the compile time", "compiled in 39.8 s" in result.stdout and "(best)" in result.stdout)

with tempfile.TemporaryDirectory() as folder:
    write_run(folder, {"report-techniques.json": [gpubench_row("gpt2/cuda/amp-bf16/pinned", 0, status="skipped")]},
              [dict(python_row("gpt2", "amp-bf16", 0), status="skipped", reason="no CUDA device: none here")])
    result, _ = run(folder)
    check("a run without a device: exit 1, the skip reason printed",
          result.returncode == 1 and "no CUDA device: none here" in result.stdout)

print(f"{len(failures)} failure(s)" if failures else "all checks passed")
sys.exit(1 if failures else 0)
