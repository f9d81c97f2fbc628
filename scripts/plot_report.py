#!/usr/bin/env python3
"""Renders gpubench reports into PNGs: throughput by config, phase breakdown (stacked),
peak memory by config, step-time distribution. With two reports, bars are side by side.

    scripts/plot_report.py REPORT.json [OTHER.json] --out DIR

At most 300 configs with status ok (across the reports): each config's bar gets 0.6 inch so
that its label stays legible, and the widest chart (two reports of 300: 39600 pixels) stays
under the PNG renderer's 65536-pixel limit. A report that is not a gpubench report, or that
it cannot draw, is exit 2 with one line naming what is wrong, before any file is written:
what `gpubench compare` refuses (a row named twice, a `command` that is not a string) too.
A gpubench tune search's rows are named by config, batch and step, as gpubench names them.
Runs under the checkout's .venv (scripts/setup.sh installs matplotlib there), whatever
Python started it.
"""
import argparse
import json
import math
import os
import re
import stat
import sys

# The project's Python is its .venv (scripts/setup.sh installs what the scripts import
# there): started by another one (the shebang's python3), run again under it.
VENV = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, ".venv")
VENV_PYTHON = os.path.join(VENV, "bin", "python")
if os.path.realpath(sys.prefix) != os.path.realpath(VENV) and os.access(VENV_PYTHON, os.X_OK):
    os.execv(VENV_PYTHON, [VENV_PYTHON, os.path.abspath(__file__), *sys.argv[1:]])
plt = None  # matplotlib.pyplot, imported by main() once the reports are known to be drawable


def import_pyplot():
    """matplotlib's pyplot (a second to import): only after the reports passed their checks,
    so that a report it refuses is refused at once."""
    try:
        import matplotlib
    except ImportError:
        print(f"plot_report: matplotlib is not installed for {sys.executable}: scripts/setup.sh installs it into .venv",
              file=sys.stderr)
        sys.exit(2)
    matplotlib.use("Agg")  # files only, no display needed
    import matplotlib.pyplot as pyplot
    return pyplot


PHASES = ["data", "h2d", "forward", "backward", "optimizer", "other"]
MAX_CONFIGS = 300
# reports/schema/report.schema.json's pattern for a result's config_id (core/config/workload_name.h).
CONFIG_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}/(cpu|cuda)/[a-z0-9-]+(/[a-z0-9-]+)*$")
EXPECTED = {dict: "an object", list: "a list", str: "a string", float: "a number >= 0"}


def fail(message):
    print(f"plot_report: {message}", file=sys.stderr)
    sys.exit(2)


class BadReport(Exception):
    """What makes a report unplottable, as the one line the user reads."""


def describe(value):
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"a string ({json.dumps(value[:40])}{'...' if len(value) > 40 else ''})"
    return f"a list of {len(value)} items" if isinstance(value, list) else "an object"  # not dumped: may nest deep


def is_kind(value, kind):
    if kind is float:  # JSON numbers; true/false are not, nor NaN, infinities or negatives
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0
    return isinstance(value, kind)


def at(container, path, kind, where, optional=False):
    """The value at dotted `path` in `container`, checked to be `kind`; with `optional`,
    None where a key on the way is absent (a present value of the wrong kind still fails)."""
    value, walked, keys = container, [], path.split(".")
    for key in keys:
        if not isinstance(value, dict):
            raise BadReport(f"{where}: {'.'.join(walked)} is {describe(value)}; expected an object")
        if key not in value:
            if optional:
                return None
            expected = EXPECTED[kind] if len(walked) == len(keys) - 1 else "an object"
            raise BadReport(f"{where}: {'.'.join(walked + [key])} is missing; expected {expected}")
        value = value[key]
        walked.append(key)
    if not is_kind(value, kind):
        raise BadReport(f"{where}: {path} is {describe(value)}; expected {EXPECTED[kind]}")
    return value


def check_ok_row(row, where):
    """Everything the charts read from an ok row, so that drawing cannot fail on it."""
    config_id = at(row, "config_id", str, where)
    if not CONFIG_ID.match(config_id):
        raise BadReport(f"{where}: config_id {json.dumps(config_id)} is not a gpubench config id "
                        "(expected lowercase workload/device/precision..., e.g. mlp/cpu/fp32)")
    where = f"{where} ({config_id})"
    at(row, "throughput.samples_per_s.median", float, where)
    at(row, "throughput.tflops_per_s.median", float, where, optional=True)
    for key in ("utilization.mfu_vs_vendor", "utilization.mfu_vs_measured",
                "memory.cuda_peak_allocated_bytes", "memory.host_peak_rss_bytes"):
        at(row, key, float, where, optional=True)
    at(row, "phases", dict, where)
    for phases in ("phases", "device_phases"):
        for phase in PHASES:
            at(row, f"{phases}.{phase}.share", float, where, optional=True)
    samples = at(row, "samples.step_ms", list, where)
    if not samples:
        raise BadReport(f"{where}: samples.step_ms is empty; expected the step times of the run")
    for i, sample in enumerate(samples):
        if not is_kind(sample, float):
            raise BadReport(f"{where}: samples.step_ms[{i}] is {describe(sample)}; expected a number >= 0")
    at(row, "step_ms.median", float, where)


def result_key(row):
    """How gpubench names a row (reports/compare/report_loader.h): its config id, and for a
    tune search's row (its "tune" step) the batch and step, "mlp/cpu/fp32 batch 128 (final 1)"."""
    tune = row.get("tune")
    if not isinstance(tune, dict):
        return row["config_id"]
    return f"{row['config_id']} batch {tune.get('batch_size', '?')} ({tune.get('phase', '?')} {tune.get('round', '?')})"


def check_report(report, path):
    where = f"'{path}'"
    if not isinstance(report, dict):
        raise BadReport(f"{where} is {describe(report)}; expected a gpubench report (a JSON object)")
    version = report.get("schema_version")
    if isinstance(version, bool) or version != 1:  # True == 1 in Python
        raise BadReport(f"{where} has schema_version {describe(version)}, expected 1")
    at(report, "tool", dict, where)
    at(report, "tool.git_commit", str, where, optional=True)
    at(report, "command", str, where, optional=True)
    seen = set()
    for i, row in enumerate(at(report, "results", list, where)):
        row_where = f"{where} results[{i}]"
        if not isinstance(row, dict):
            raise BadReport(f"{row_where} is {describe(row)}; expected an object")
        if at(row, "status", str, row_where) == "ok":
            check_ok_row(row, row_where)
        if isinstance(row.get("config_id"), str):
            if result_key(row) in seen:
                raise BadReport(f"{row_where} ({result_key(row)}) appears twice; expected one result per config")
            seen.add(result_key(row))


def load(path):
    try:
        # A regular file only (after links): opening a FIFO waits for a writer that never comes.
        if not stat.S_ISREG(os.stat(path).st_mode):
            fail(f"cannot read report '{path}': not a regular file (a FIFO, device or socket)")
        with open(path) as f:
            report = json.load(f)
    except (OSError, ValueError) as error:
        fail(f"cannot read report '{path}': {error}")
    except RecursionError:  # json's parser recurses once per [ or {
        fail(f"cannot read report '{path}': its JSON nests too deep to be a gpubench report")
    try:
        check_report(report, path)
    except BadReport as error:
        fail(str(error))
    return report


def ok_rows(report):
    return [r for r in report["results"] if r.get("status") == "ok"]


def label(report, path):
    # A file name is not TeX: '$' escaped, or matplotlib reads "$...$" as math (and may fail
    # on it). Config ids cannot hold one (CONFIG_ID); the log axes' own labels are math.
    text = f"{os.path.basename(path)} ({report['tool'].get('git_commit', '?')})"
    return text.replace("$", r"\$")


def bar_chart(reports, paths, value, ylabel, title, out, log_scale=False):
    ids = config_ids(reports)
    fig, ax = plt.subplots(figsize=(max(6, 0.6 * len(ids) * len(reports)), 4.5))
    width = 0.8 / len(reports)
    positive = False
    for k, (report, path) in enumerate(zip(reports, paths)):
        rows = {result_key(r): r for r in ok_rows(report)}
        xs = [i + k * width for i, cid in enumerate(ids) if cid in rows]
        heights = [value(rows[cid]) for cid in ids if cid in rows]
        positive = positive or any(h > 0 for h in heights)
        ax.bar(xs, heights, width, label=label(report, path))
    ax.set_xticks([i + width * (len(reports) - 1) / 2 for i in range(len(ids))])
    ax.set_xticklabels(ids, rotation=35, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    # Workloads differ by orders of magnitude; all zero (reports from before model FLOPs) has
    # no log scale.
    if log_scale and positive:
        ax.set_yscale("log")
    if len(reports) > 1:
        ax.legend(fontsize=8)
    fig.tight_layout()
    save(fig, out)


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
    ax.set_xticklabels([result_key(r) for r in rows], rotation=35, ha="right", fontsize=8)
    ax.set_ylabel("% of median step time")
    ax.set_title("Where each step's time goes")
    ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    save(fig, out)


def step_distribution(report, out):
    rows = ok_rows(report)
    fig, ax = plt.subplots(figsize=(max(6, 0.7 * len(rows)), 4.5))
    # Each config relative to its own median, so fast and slow configs share one axis.
    data = []
    for r in rows:
        samples = r["samples"]["step_ms"]
        median = r["step_ms"]["median"] or 1
        data.append([s / median for s in samples])
    ax.boxplot(data, showfliers=True)  # labels set apart: matplotlib 3.11 renamed boxplot's labels=
    ax.set_xticks(range(1, len(rows) + 1))
    ax.set_xticklabels([result_key(r) for r in rows])
    ax.set_ylabel("step time / median")
    ax.set_title("Step-time distribution (noise per config)")
    plt.setp(ax.get_xticklabels(), rotation=35, ha="right", fontsize=8)
    fig.tight_layout()
    save(fig, out)


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, as every other refusal here
        fail(f"{message} (usage: scripts/plot_report.py REPORT.json [OTHER.json] --out DIR)")


def config_ids(reports):
    ids = []
    for report in reports:
        ids += [result_key(r) for r in ok_rows(report) if result_key(r) not in ids]
    return ids


def save(fig, out):
    try:
        fig.savefig(out, dpi=110)
    except OSError as error:
        fail(f"cannot write '{out}': {error.strerror or error}")
    finally:
        plt.close(fig)


def main():
    parser = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("reports", nargs="+", help="one or two gpubench JSON reports")
    parser.add_argument("--out", default="plots", help="output folder (default: plots)")
    args = parser.parse_args()
    if len(args.reports) > 2:
        fail(f"give one or two reports, not {len(args.reports)}")
    reports = [load(p) for p in args.reports]
    count = len(config_ids(reports))
    if count == 0:
        fail("no config with status ok to plot")
    if count > MAX_CONFIGS:
        fail(f"{count} configs with status ok, more than the {MAX_CONFIGS} a chart can label; "
             "plot a report of fewer configs")
    global plt
    plt = import_pyplot()
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as error:
        fail(f"cannot create the output folder '{args.out}': {error.strerror or error}")
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
    # Of the last (newer) report only; not the older one's in its place, which would mislead.
    if ok_rows(reports[-1]):
        phase_chart(reports[-1], os.path.join(args.out, "phases.png"))
        step_distribution(reports[-1], os.path.join(args.out, "step_times.png"))
    else:
        print(f"plot_report: '{args.reports[-1]}' has no config with status ok: no phases.png, step_times.png",
              file=sys.stderr)
    print(f"plots written to {args.out}/")


if __name__ == "__main__":
    main()
