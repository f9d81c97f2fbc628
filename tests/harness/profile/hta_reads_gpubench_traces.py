"""Meta's Holistic Trace Analysis reads gpubench's --hta-dir traces with its own parser.

Runs a CPU ddp-2 config with --hta-dir, loads the config's folder with
hta.trace_analysis.TraceAnalysis and checks what a user would: both ranks found (from
distributedInfo), each rank's run, step and phase annotations there, as many steps as the
report says it measured. (HTA's temporal/idle breakdowns need GPU kernels: on a CPU trace
HTA itself fails with IndexError; the device validation run brings GPU traces back.)

usage: hta_reads_gpubench_traces.py GPUBENCH_EXE WORK_DIR
"""
import json
import os
import subprocess
import sys
import warnings

warnings.filterwarnings("ignore")


def main() -> int:
    gpubench, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    hta_dir = os.path.join(work, "hta")
    report_path = os.path.join(work, "report.json")
    run = subprocess.run([gpubench, "--matrix", "mlp/cpu/fp32/ddp-2", "--steps", "4", "--warmup", "1", "--threads", "1",
                          "--batch-size", "64", "--hta-dir", hta_dir, "--out", report_path, "--format", "json"],
                         capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        print(run.stdout, run.stderr)
        return 1
    with open(report_path) as f:
        row = json.load(f)["results"][0]
    assert row["status"] == "ok", row
    config_dir = os.path.join(hta_dir, "mlp_cpu_fp32_ddp-2")
    assert sorted(os.listdir(config_dir)) == ["rank-0.json", "rank-1.json"], os.listdir(config_dir)

    from hta.trace_analysis import TraceAnalysis  # HTA's own parser
    analyzer = TraceAnalysis(trace_dir=config_dir)
    ranks = sorted(analyzer.t.get_ranks())
    assert ranks == [0, 1], f"HTA found ranks {ranks}: distributedInfo not read"
    names = analyzer.t.symbol_table.get_sym_table()
    for rank in ranks:
        df = analyzer.t.get_trace(rank)
        counts = df["name"].map(lambda i: names[i]).value_counts().to_dict()
        cats = set(df["cat"].map(lambda i: names[i]))
        assert cats == {"user_annotation"}, f"rank {rank}: categories {cats}"
        measured = row["steps"]["measured"]
        steps = sum(n for name, n in counts.items() if name.startswith("step "))
        warmup = sum(n for name, n in counts.items() if name.startswith("warmup step "))
        assert steps == measured and warmup == row["steps"]["warmup"], f"rank {rank}: {steps} steps, {warmup} warm-up"
        for phase in ("data", "h2d", "forward", "backward", "optimizer"):
            assert counts.get(phase) == measured + warmup, f"rank {rank}: {counts.get(phase)} {phase} annotations"
        assert counts.get("mlp/cpu/fp32/ddp-2") == 1, counts
        assert (df["stream"] == -1).all(), "host annotations must not look like GPU activity"
        print(f"rank {rank}: {len(df)} events, {steps} steps, HTA {analyzer.__class__.__module__}")
    print("HTA read both ranks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
