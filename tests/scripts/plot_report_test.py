#!/usr/bin/env python3
"""scripts/plot_report.py on malformed and valid reports (ctest plot_report_refuses_bad_reports).

Every malformed report, made here from a real one (reports/examples/cpu-quick.json), is
exit 2 with one line "plot_report: ..." on stderr, no traceback and no output folder; a
valid report still plots (each PNG written, not empty), alone, beside another whose file
name has TeX's '$', and at the stated limit of configs.

    plot_report_test.py PLOT_REPORT_SCRIPT EXAMPLE_REPORT
Run with the checkout's .venv Python (plot_report.py runs itself under it; scripts/setup.sh
installs matplotlib there).
"""
import copy
import json
import os
import subprocess
import sys
import tempfile

script, example = sys.argv[1], sys.argv[2]
with open(example) as f:
    REAL = json.load(f)
PNGS = ["throughput.png", "tflops.png", "peak_memory.png", "phases.png", "step_times.png"]


def changed(change):
    """A copy of the real report with `change(report)` applied (it edits in place)."""
    report = copy.deepcopy(REAL)
    change(report)
    return report


DELETE = object()


def ok_row(path, value=DELETE):
    """A change that sets the first ok row's dotted `path` to `value`, or deletes it."""
    def change(report):
        row = next(r for r in report["results"] if r["status"] == "ok")
        *parents, last = path.split(".")
        for parent in parents:
            row = row[parent]
        if value is DELETE:
            del row[last]
        else:
            row[last] = value
    return change


def many_rows(count):
    """A change to `count` copies of the first ok row, each its own config id."""
    def change(report):
        row = next(r for r in report["results"] if r["status"] == "ok")
        report["results"] = [dict(copy.deepcopy(row), config_id=f"mlp/cpu/fp32/x{i}") for i in range(count)]
    return change


# name -> the file's text (a str) or a report (a dict or other JSON value)
MALFORMED = {
    "an empty file": "",
    "text that is not JSON": "{\"schema_version\": 1,",
    "a JSON list": [],
    "a JSON number": 3,
    "JSON nested 100000 deep": "[" * 100000,
    "schema_version 2": changed(lambda r: r.update(schema_version=2)),
    "no results": changed(lambda r: r.pop("results")),
    "results an object": changed(lambda r: r.update(results={})),
    "a result that is a string": changed(lambda r: r["results"].insert(0, "ok")),
    "a result without status": changed(lambda r: r["results"][0].pop("status")),
    "no tool": changed(lambda r: r.pop("tool")),
    "tool a list": changed(lambda r: r.update(tool=[])),
    "an ok row without throughput": changed(ok_row("throughput")),
    "throughput a string": changed(ok_row("throughput.samples_per_s.median", "fast")),
    "throughput true": changed(ok_row("throughput.samples_per_s.median", True)),
    "throughput NaN": changed(ok_row("throughput.samples_per_s.median", float("nan"))),
    "an ok row without samples": changed(ok_row("samples")),
    "a step sample that is a string": changed(ok_row("samples.step_ms", [1.0, "2"])),
    "no step samples": changed(ok_row("samples.step_ms", [])),
    "no step_ms median": changed(ok_row("step_ms.median")),
    "an ok row without phases": changed(ok_row("phases")),
    "a phase share that is a string": changed(ok_row("phases.forward.share", "half")),
    "memory a string": changed(ok_row("memory", "lots")),
    "an ok row without config_id": changed(ok_row("config_id")),
    "a '$' (TeX) in a config id": changed(ok_row("config_id", "mlp/cpu/$x^$")),
    "no ok row": changed(lambda r: [row.update(status="skipped") for row in r["results"]]),
    # What gpubench compare refuses: a row named twice (it kept one of them), a command that
    # is not a string.
    "a config id twice": changed(lambda r: r["results"].append(copy.deepcopy(r["results"][0]))),
    "command a number": changed(lambda r: r.update(command=3)),
    "1000 ok rows": changed(many_rows(1000)),
}

failures = []


def run(args, out):
    return subprocess.run([script, *args, "--out", out], capture_output=True, text=True, timeout=120)


def expect_refused(what, args, out):
    result = run(args, out)
    lines = result.stderr.splitlines()
    problems = []
    if result.returncode != 2:
        problems.append(f"exit {result.returncode}, expected 2")
    if len(lines) != 1 or not lines[0].startswith("plot_report: "):
        problems.append(f"stderr is not one line 'plot_report: ...' ({len(lines)} lines)")
    if "Traceback" in result.stderr:
        problems.append("a Python traceback")
    if os.path.exists(out) and not os.path.isfile(out):
        problems.append("the output folder was created")
    report(what, problems, result)


def expect_plots(what, args, out, pngs):
    result = run(args, out)
    problems = [] if result.returncode == 0 else [f"exit {result.returncode}, expected 0"]
    problems += [f"{png} missing or empty" for png in pngs
                 if not os.path.isfile(os.path.join(out, png)) or os.path.getsize(os.path.join(out, png)) == 0]
    report(what, problems, result)


def report(what, problems, result):
    if problems:
        failures.append(what)
        print(f"FAILED: {what}: {'; '.join(problems)}\n  stderr: {result.stderr.strip()[-600:]}")
    else:
        print(f"ok: {what}: {result.stderr.strip() or result.stdout.strip()}")


with tempfile.TemporaryDirectory() as tmp:
    for i, (what, content) in enumerate(MALFORMED.items()):
        path = os.path.join(tmp, f"bad-{i}.json")
        with open(path, "w") as f:
            f.write(content if isinstance(content, str) else json.dumps(content))
        expect_refused(what, [path], os.path.join(tmp, f"out-{i}"))
    expect_refused("a report that does not exist", [os.path.join(tmp, "missing.json")], os.path.join(tmp, "out-m"))
    # A FIFO (or a link to one) was opened and waited on for a writer: now named, exit 2.
    fifo, fifo_link = os.path.join(tmp, "fifo.json"), os.path.join(tmp, "fifo-link.json")
    os.mkfifo(fifo)
    os.symlink(fifo, fifo_link)
    for what, path in (("a FIFO", fifo), ("a link to a FIFO", fifo_link)):
        try:
            expect_refused(what, [path], os.path.join(tmp, "out-fifo"))
        except subprocess.TimeoutExpired:
            failures.append(what)
            print(f"FAILED: {what}: still waiting on it after 120 s")
    expect_refused("three reports", [example] * 3, os.path.join(tmp, "out-3"))
    expect_refused("an unknown option", [example, "--bogus"], os.path.join(tmp, "out-o"))
    open(os.path.join(tmp, "a-file"), "w").close()
    expect_refused("--out that is a file", [example], os.path.join(tmp, "a-file"))

    expect_plots("the example report", [example], os.path.join(tmp, "plots"), PNGS)
    dollar = os.path.join(tmp, "run$^$.json")  # legend labels are file names: not TeX either
    with open(dollar, "w") as f:
        json.dump(REAL, f)
    expect_plots("two reports, one named with '$'", [example, dollar], os.path.join(tmp, "plots-2"), PNGS)
    at_limit = os.path.join(tmp, "at-limit.json")
    with open(at_limit, "w") as f:
        json.dump(changed(many_rows(300)), f)
    expect_plots("300 ok rows (the limit)", [at_limit], os.path.join(tmp, "plots-300"), PNGS)

    def tune_search(report):  # one stack at two batches and again in the final: three rows, three names
        row = next(r for r in report["results"] if r["status"] == "ok")
        report["results"] = [dict(copy.deepcopy(row), tune={"phase": phase, "round": n, "batch_size": batch})
                             for phase, n, batch in (("greedy", 0, 64), ("batch", 1, 128), ("final", 1, 128))]
    search = os.path.join(tmp, "search.json")
    with open(search, "w") as f:
        json.dump(changed(tune_search), f)
    expect_plots("a tune search's rows, one config at several batches", [search], os.path.join(tmp, "plots-tune"), PNGS)

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("all checks passed")
