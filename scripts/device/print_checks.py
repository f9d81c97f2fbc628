#!/usr/bin/env python3
"""What a device run's report says about the checks issue 47 left to the GPU, one line a row.

scripts/device-validate.sh runs it on the llama and overhead stages' reports, into the log:
  memory   the estimate the row was admitted by against the CUDA allocator's peak (the
           decoder estimate, finding 10; a CUDA Graph's pool with the cache released before
           capture, finding 2)
  graph    capture time and replays (finding 1: llama's rotary tables made before capture)
  round    why the checkpoint round trip was left out, if it was (finding 3)
  cupti    CUPTI's added cost against its 3% target (finding 8) and the kernels it placed
           by start time for want of a launch record (finding 7: with driver API records
           nearly none)

Usage: print_checks.py REPORT.json
"""
import json
import sys

GIB = 1024.0**3


def gib(value):
    return f"{value / GIB:.1f} GiB" if isinstance(value, (int, float)) else "?"


def memory_check(row):
    estimate = row.get("workload", {}).get("memory_estimate", {}).get("device_total_bytes")
    peak = row.get("memory", {}).get("cuda_peak_reserved_bytes")
    allocated = row.get("memory", {}).get("cuda_peak_allocated_bytes")
    if estimate is None or peak is None:
        return None
    ratio = f"{peak / estimate:.2f}" if estimate else "?"
    return f"memory: estimate {gib(estimate)}, peak reserved {gib(peak)} (allocated {gib(allocated)}), reserved/estimate {ratio}"


def graph_check(row):
    graph = row.get("cuda_graph")
    if not graph:
        return None
    return f"graph: captured in {graph.get('capture_ms', 0):.0f} ms, {graph.get('replays', 0)} replays"


def round_trip_check(row):
    checkpoint = row.get("checkpoint", {})
    if checkpoint.get("done"):
        return f"round trip: made, parameters_equal {checkpoint.get('parameters_equal')}"
    reason = checkpoint.get("reason")
    return f"round trip: left out ({reason})" if reason else None


def cupti_check(row):
    lines = []
    for level in row.get("overhead", {}).get("levels", []):
        if level.get("name") == "cupti" and "overhead" in level:
            added = level["overhead"]
            lines.append(f"cupti cost: {json.dumps(added)} against {level.get('target')}: {level.get('judgement')}")
    records = row.get("cupti", {}).get("records")
    if records:
        lines.append(
            "cupti attribution: {} of {} kernels in measured steps placed by start time; {} runtime and {} driver calls".format(
                records.get("kernels_placed_by_start_time"),
                records.get("kernels_in_measured_steps"),
                records.get("runtime_calls_in_measured_steps"),
                records.get("driver_calls_in_measured_steps", "no"),
            )
        )
    elif row.get("cupti", {}).get("status") not in (None, "ok"):
        lines.append(f"cupti: {row['cupti'].get('status')} ({row['cupti'].get('reason')})")
    return "; ".join(lines) or None


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, ValueError) as error:
        print(f"checks: no report to read ({error})")
        return 0
    for row in report.get("results", []):
        head = f"checks: {row.get('config_id', '?')}: {row.get('status', '?')}"
        if row.get("status") != "ok":
            head += f" ({str(row.get('reason', ''))[:300]})"
        print(head)
        for check in (memory_check, graph_check, round_trip_check, cupti_check):
            line = check(row)
            if line:
                print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
