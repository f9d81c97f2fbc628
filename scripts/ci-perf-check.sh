#!/usr/bin/env bash
# CI performance gate: run the quick preset, compare against a baseline report, write a
# markdown summary, exit as `gpubench compare` does (0 ok, 1 regression, 2 bad input).
#
#   scripts/ci-perf-check.sh BASELINE.json [OUT_DIR] [-- extra compare flags, e.g. --threshold 5%]
#
# Env: GPUBENCH_CI_MATRIX (default: the three CPU fp32 configs), GPUBENCH (the binary,
# default build/gpubench). The summary is appended to $GITHUB_STEP_SUMMARY when set.
set -uo pipefail
cd "$(dirname "$0")/.."
baseline=${1:?usage: scripts/ci-perf-check.sh BASELINE.json [OUT_DIR] [-- compare flags]}
shift
out_dir=${1:-perf-check}
[[ $# -gt 0 && $1 != "--" ]] && shift
[[ ${1:-} == "--" ]] && shift
gpubench=${GPUBENCH:-build/gpubench}
matrix=${GPUBENCH_CI_MATRIX:-mlp/cpu/fp32,cnn/cpu/fp32,transformer/cpu/fp32}
[[ -f $baseline ]] || { echo "ci-perf-check: baseline '$baseline' does not exist" >&2; exit 2; }
[[ -x $gpubench ]] || { echo "ci-perf-check: '$gpubench' is not built (scripts/build.sh)" >&2; exit 2; }
mkdir -p "$out_dir"
"$gpubench" --matrix "$matrix" --preset quick --format json --out "$out_dir/current.json" > /dev/null || exit 2
"$gpubench" compare "$baseline" "$out_dir/current.json" --format markdown "$@" > "$out_dir/summary.md"
status=$?
cat "$out_dir/summary.md"
[[ -n ${GITHUB_STEP_SUMMARY:-} ]] && cat "$out_dir/summary.md" >> "$GITHUB_STEP_SUMMARY"
exit $status
