#!/usr/bin/env python3
"""gpubench's CUDA rows over plain PyTorch's on the same GPU, from a device run's files.

scripts/device-validate.sh returns gpubench's reports (report-techniques.json,
report-stacks.json, report-gpu.json) and the Python rows of scripts/reference_loop.py
(python-reference.jsonl) from one call on the lent GPU. This prints two tables:
  gpubench row / plain PyTorch   each eager Python row (workload, precision: Adam as torch
                                 picks it) against gpubench's same config, WORKLOAD/cuda/
                                 PRECISION/pinned
  gpubench row / torch.compile   every ok gpubench row of the compiled row's workload
                                 against it (nanoGPT's recipe: torch.compile, fused Adam),
                                 best first: what a Python user gets at best
Both sides' number is the same statistic: the median over measured steps of batch / step
time, a step timed as the loop's period (no sync inside it, the loss read one step late);
gpubench's rows say so in timing.method "events", the Python rows in timing.method
"period". A row measured otherwise (--sync-phases, --timing step) is marked, as is a GPU
that differs between the two sides.

Usage: gpu_vs_python.py DIR [--python FILE] [--report FILE ...] [--markdown FILE] [--json FILE]
  DIR: the device run's $OUT as it came back (extras.tar.gz need not be unpacked)
"""
import argparse
import json
import os
import sys

REPORTS = ("report-techniques.json", "report-stacks.json", "report-gpu.json")


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", help="the device run's output folder")
    parser.add_argument("--python", help="the Python rows (default: DIR/python-reference.jsonl)")
    parser.add_argument("--report", action="append", help=f"a gpubench report (default: DIR's {', '.join(REPORTS)})")
    parser.add_argument("--markdown", help="also write the tables here")
    parser.add_argument("--json", help="also write every ratio here")
    args = parser.parse_args(argv)
    args.python = args.python or os.path.join(args.dir, "python-reference.jsonl")
    args.report = args.report or [p for p in (os.path.join(args.dir, r) for r in REPORTS) if os.path.exists(p)]
    if not os.path.exists(args.python):
        parser.error(f"no Python rows at {args.python}: the run's python stage writes python-reference.jsonl")
    if not args.report:
        parser.error(f"no gpubench report in {args.dir} ({', '.join(REPORTS)})")
    return args


def gpubench_rows(paths):
    """Every ok CUDA row of the reports: {id, report, samples_per_s, method, gpu}."""
    rows = []
    for path in paths:
        with open(path) as file:
            report = json.load(file)
        devices = report.get("env", {}).get("cuda", {}).get("devices", [])
        gpu = devices[0].get("name") if devices else None
        for result in report.get("results", []):
            config = result.get("config", {})
            if result.get("status") != "ok" or config.get("device") != "cuda":
                continue
            rows.append({"id": result["config_id"], "report": os.path.basename(path), "gpu": gpu,
                         "samples_per_s": result["throughput"]["samples_per_s"]["median"],
                         "method": result.get("timing", {}).get("method")})
    return rows


def python_rows(path):
    """The ok Python rows, and the skipped ones' reasons (a run without a device)."""
    ok, skipped = [], []
    with open(path) as file:
        for line in file:
            if line.strip():
                row = json.loads(line)
                (ok if row.get("status") == "ok" else skipped).append(row)
    return ok, skipped


def marks(gpubench, python):
    notes = []
    if gpubench["method"] != "events":
        notes.append(f"gpubench timed {gpubench['method']}")
    if python["timing"]["method"] != "period":
        notes.append(f"Python timed {python['timing']['method']}")
    if gpubench["gpu"] and python.get("gpu") and gpubench["gpu"] != python["gpu"]:
        notes.append(f"GPUs differ: {gpubench['gpu']} / {python['gpu']}")
    return "; ".join(notes)


def against_eager(gpubench, eager):
    by_id = {}
    for row in gpubench:
        by_id.setdefault(row["id"], row)  # the first report holding the id: techniques before the rest
    ratios = []
    for py in eager:
        row = by_id.get(f"{py['workload']}/cuda/{py['precision']}/pinned")
        if row:
            ratios.append({"gpubench": row, "python": py, "ratio": row["samples_per_s"] / py["samples_per_s_median"],
                           "note": marks(row, py)})
    return ratios


def against_compiled(gpubench, compiled):
    ratios = []
    for py in compiled:
        rows = [r for r in gpubench if r["id"].startswith(py["workload"] + "/cuda/")]
        for row in sorted(rows, key=lambda r: -r["samples_per_s"]):
            ratios.append({"gpubench": row, "python": py, "ratio": row["samples_per_s"] / py["samples_per_s_median"],
                           "note": marks(row, py)})
    return ratios


def tables(eager_ratios, compiled_ratios, compiled, skipped):
    lines = ["## gpubench row / plain PyTorch (eager, same config, same GPU)", "",
             "| gpubench row | report | gpubench samples/s | PyTorch samples/s (Adam) | gpubench / PyTorch | "
             "PyTorch window samples/s | note |", "|---|---|---:|---:|---:|---:|---|"]
    for r in eager_ratios:
        g, p = r["gpubench"], r["python"]
        lines.append(f"| {g['id']} | {g['report']} | {g['samples_per_s']:.1f} | {p['samples_per_s_median']:.1f} "
                     f"({p['adam_kernel']}) | {r['ratio']:.3f}x | {p.get('samples_per_s_window', 0):.1f} | "
                     f"{r['note']} |")
    for p in compiled:
        lines += ["", f"## gpubench row / torch.compile ({p['workload']} {p['precision']}, Adam {p['adam_kernel']}: "
                      f"{p['samples_per_s_median']:.1f} samples/s, window {p.get('samples_per_s_window', 0):.1f}; "
                      f"compiled in {p.get('compile_s', 0):.1f} s, first steps {', '.join(f'{s:.2f}' for s in p['first_steps_s'])} s; "
                      f"{p.get('graphs', '?')} graphs, {p.get('graph_breaks', '?')} breaks)", "",
                  "| gpubench row | report | gpubench samples/s | gpubench / torch.compile | note |",
                  "|---|---|---:|---:|---|"]
        for i, r in enumerate(x for x in compiled_ratios if x["python"] is p):
            best = " (best)" if i == 0 else ""
            g = r["gpubench"]
            lines.append(f"| {g['id']}{best} | {g['report']} | {g['samples_per_s']:.1f} | {r['ratio']:.3f}x | "
                         f"{r['note']} |")
    for p in skipped:
        lines.append(f"\nPython row {p['workload']} {p['precision']}{' compiled' if p.get('compile') else ''}: "
                     f"{p.get('status')}: {p.get('reason', '')}")
    return "\n".join(lines) + "\n"


def main(argv):
    args = parse_args(argv)
    gpubench = gpubench_rows(args.report)
    ok, skipped = python_rows(args.python)
    eager = [p for p in ok if not p.get("compile")]
    compiled = [p for p in ok if p.get("compile")]
    eager_ratios, compiled_ratios = against_eager(gpubench, eager), against_compiled(gpubench, compiled)
    text = tables(eager_ratios, compiled_ratios, compiled, skipped)
    print(text, end="")
    if args.markdown:
        with open(args.markdown, "w") as out:
            out.write(text)
    if args.json:
        flat = lambda rs, kind: [{"kind": kind, "gpubench_id": r["gpubench"]["id"], "report": r["gpubench"]["report"],  # noqa: E731
                                  "gpubench_samples_per_s": r["gpubench"]["samples_per_s"],
                                  "python_samples_per_s": r["python"]["samples_per_s_median"],
                                  "python_precision": r["python"]["precision"], "ratio": r["ratio"], "note": r["note"]}
                                 for r in rs]
        with open(args.json, "w") as out:
            json.dump(flat(eager_ratios, "vs_eager") + flat(compiled_ratios, "vs_compile"), out, indent=1)
    if not eager_ratios and not compiled_ratios:
        print("gpu_vs_python: no pair to compare (no ok CUDA row on one side or the other)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
