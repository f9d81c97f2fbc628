#!/usr/bin/python3
"""Renders gpubench reports into PNGs: throughput by config, phase breakdown (stacked),
peak memory by config, step-time distribution. With two reports, bars are side by side.

    scripts/plot_report.py REPORT.json [OTHER.json] --out DIR
"""
import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402

PHASES = ["data", "h2d", "forward", "backward", "optimizer", "other"]


def load(path):
    try:
        with open(path) as f:
            report = json.load(f)
    except (OSError, ValueError) as error:
        sys.exit(f"plot_report: cannot read report '{path}': {error}")
    if report.get("schema_version") != 1:
        sys.exit(f"plot_report: '{path}' has schema_version {report.get('schema_version')!r}, expected 1")
    return report


def ok_rows(report):
    return [r for r in report["results"] if r.get("status") == "ok"]


def label(report, path):
    return f"{os.path.basename(path)} ({report['tool'].get('git_commit', '?')})"


def bar_chart(reports, paths, value, ylabel, title, out, log_scale=False):
    ids = []
    for report in reports:
        ids += [r["config_id"] for r in ok_rows(report) if r["config_id"] not in ids]
    fig, ax = plt.subplots(figsize=(max(6, 0.6 * len(ids) * len(reports)), 4.5))
    width = 0.8 / len(reports)
    for k, (report, path) in enumerate(zip(reports, paths)):
        rows = {r["config_id"]: r for r in ok_rows(report)}
        xs = [i + k * width for i, cid in enumerate(ids) if cid in rows]
        ax.bar(xs, [value(rows[cid]) for cid in ids if cid in rows], width, label=label(report, path))
    ax.set_xticks([i + width * (len(reports) - 1) / 2 for i in range(len(ids))])
    ax.set_xticklabels(ids, rotation=35, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if log_scale:  # workloads differ by orders of magnitude
        ax.set_yscale("log")
    if len(reports) > 1:
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def throughput(row):
    return row["throughput"]["samples_per_s"]["median"]


def model_tflops(row):
    # Reports from before model FLOPs have none: plotted as 0.
    return row["throughput"].get("tflops_per_s", {}).get("median", 0)


def mfu_percent(row):
    # Against the datasheet peak where the GPU is known, else the measured matmul ceiling.
    utilization = row.get("utilization", {})
    return 100 * utilization.get("mfu_vs_vendor", utilization.get("mfu_vs_measured", 0))


def peak_memory_mib(row):
    memory = row.get("memory", {})
    return memory.get("cuda_peak_allocated_bytes", memory.get("host_peak_rss_bytes", 0)) / 2**20


def phase_chart(report, out):
    rows = ok_rows(report)
    fig, ax = plt.subplots(figsize=(max(6, 0.7 * len(rows)), 4.5))
    bottom = [0.0] * len(rows)
    for phase in PHASES:
        # A CUDA row's device phases (CUDA events), as the report's table; else the host's.
        shares = [100 * r.get("device_phases", r["phases"]).get(phase, {}).get("share", 0) for r in rows]
        ax.bar(range(len(rows)), shares, bottom=bottom, label=phase)
        bottom = [b + s for b, s in zip(bottom, shares)]
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([r["config_id"] for r in rows], rotation=35, ha="right", fontsize=8)
    ax.set_ylabel("% of median step time")
    ax.set_title("Where each step's time goes")
    ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def step_distribution(report, out):
    rows = ok_rows(report)
    fig, ax = plt.subplots(figsize=(max(6, 0.7 * len(rows)), 4.5))
    # Each config relative to its own median, so fast and slow configs share one axis.
    data = []
    for r in rows:
        samples = r["samples"]["step_ms"]
        median = r["step_ms"]["median"] or 1
        data.append([s / median for s in samples])
    ax.boxplot(data, labels=[r["config_id"] for r in rows], showfliers=True)
    ax.set_ylabel("step time / median")
    ax.set_title("Step-time distribution (noise per config)")
    plt.setp(ax.get_xticklabels(), rotation=35, ha="right", fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("reports", nargs="+", help="one or two gpubench JSON reports")
    parser.add_argument("--out", default="plots", help="output folder (default: plots)")
    args = parser.parse_args()
    if len(args.reports) > 2:
        sys.exit("plot_report: give one or two reports")
    reports = [load(p) for p in args.reports]
    if not any(ok_rows(r) for r in reports):
        sys.exit("plot_report: no config with status ok to plot")
    os.makedirs(args.out, exist_ok=True)
    bar_chart(reports, args.reports, throughput, "samples/s (median)", "Throughput by config",
              os.path.join(args.out, "throughput.png"), log_scale=True)
    bar_chart(reports, args.reports, model_tflops, "model TFLOP/s (median)", "Achieved model FLOP/s by config",
              os.path.join(args.out, "tflops.png"), log_scale=True)
    if any("utilization" in r and ("mfu_vs_vendor" in r["utilization"] or "mfu_vs_measured" in r["utilization"])
           for report in reports for r in ok_rows(report)):
        bar_chart(reports, args.reports, mfu_percent, "MFU %",
                  "MFU: datasheet peak (known GPU), else measured matmul",
                  os.path.join(args.out, "mfu.png"))
    bar_chart(reports, args.reports, peak_memory_mib, "MiB", "Peak memory (GPU allocator if measured, else host RSS)",
              os.path.join(args.out, "peak_memory.png"))
    phase_chart(reports[-1], os.path.join(args.out, "phases.png"))
    step_distribution(reports[-1], os.path.join(args.out, "step_times.png"))
    print(f"plots written to {args.out}/")


if __name__ == "__main__":
    main()
