#!/usr/bin/env bash
# Remakes the committed examples under reports/examples/ with this build, one section per
# folder, each with the command that made it. tests/reports/committed_reports_test.cpp
# fails for an example made with another LibTorch than the build's unless a README.md
# beside it says what it records (a dated measurement kept as evidence), so an example
# cannot go stale silently: regenerate it, or say what it is.
#
#   scripts/regenerate-examples.sh SECTION...   (sections below; `all` = every one)
#     quick             cpu-quick.{json,md} and plots/ (docs/ci.md)   ~1 min
#     utilization       utilization-cpu/: matmul ceilings, then --matrix all against them ~4 min
#     overhead          overhead-cpu/: the six --overhead runs of the README's table       ~25 min
#     perf-check        perf-check/: the six same-job A/A and A/B runs of its README       ~30 min
#     python-reference  python-reference/: scripts/compare_with_python.py, small and real  ~30 min
#
# Run on a quiet machine, one section at a time if need be. After overhead, perf-check or
# python-reference, update the figures the README quotes from them (and their README's
# date, build and LibTorch); CommittedReports.* then checks the verdicts still follow.
# Environment: GPUBENCH (build/gpubench), GPUBENCH_BENCH (build/gpubench-bench), PYTHON
# (.venv/bin/python: the torch the build uses, for the Python comparison).
set -euo pipefail
cd "$(dirname "$0")/.."
gpubench=${GPUBENCH:-build/gpubench}
bench=${GPUBENCH_BENCH:-build/gpubench-bench}
python=${PYTHON:-.venv/bin/python}
examples=reports/examples
die() {
  echo "regenerate-examples: $*" >&2
  exit 2
}
[[ -x $gpubench ]] || die "no $gpubench: build first (scripts/build.sh)"
(($#)) || die "name a section: quick utilization overhead perf-check python-reference, or all"

quick() {
  "$gpubench" --matrix mlp/cpu/fp32,mlp/cpu/bf16,mlp/cpu/fp32/ddp-2,cnn/cpu/fp32,mlp/cuda/fp32/pinned --preset quick \
    --format markdown --out "$examples/cpu-quick.json" >"$examples/cpu-quick.md"
  scripts/plot_report.py "$examples/cpu-quick.json" --out "$examples/plots"
}

utilization() {
  local dir=$examples/utilization-cpu
  "$bench" '--benchmark_filter=matmul.*cpu' --benchmark_repetitions=3 "--ceilings-out=$dir/cpu-ceilings.json" >/dev/null
  "$gpubench" --matrix all --preset quick --ceilings "$dir/cpu-ceilings.json" --format markdown \
    --out "$dir/cpu-quick.json" >"$dir/cpu-quick.md"
}

overhead() {
  local dir=$examples/overhead-cpu
  "$gpubench" --matrix mlp/cpu/fp32 --overhead --preset full --format markdown --out "$dir/mlp-cpu-fp32-full.json" >"$dir/mlp-cpu-fp32-full.md"
  "$gpubench" --matrix cnn/cpu/fp32 --overhead --steps 120 --format markdown --out "$dir/cnn-cpu-fp32.json" >"$dir/cnn-cpu-fp32.md"
  "$gpubench" --matrix transformer/cpu/fp32 --overhead --steps 80 --format markdown --out "$dir/transformer-cpu-fp32.json" >"$dir/transformer-cpu-fp32.md"
  "$gpubench" --matrix mlp/cpu/fp32 --overhead --threads 1 --steps 3000 --format json --out "$dir/mlp-cpu-fp32-threads1-steps3000.json" >/dev/null
  "$gpubench" --matrix cnn/cpu/fp32 --overhead --threads 1 --steps 600 --format json --out "$dir/cnn-cpu-fp32-threads1-steps600.json" >/dev/null
}

# perf_pair FOLDER PAIRS MATRIX HEAD_FLAGS ARGS: one same-job run of scripts/ci-perf-check.sh,
# base and head being this build (head with HEAD_FLAGS: the A/B runs' hidden step delay).
perf_pair() {
  local folder=$examples/perf-check/$1 pairs=$2 matrix=$3 head_flags=$4 args=$5 head
  head=$(mktemp)
  printf '#!/bin/sh\nexec %q "$@" %s\n' "$(realpath "$gpubench")" "$head_flags" >"$head"
  chmod +x "$head"
  rm -rf "$folder"
  GPUBENCH=$head GPUBENCH_CI_MATRIX=$matrix GPUBENCH_CI_ARGS=$args \
    scripts/ci-perf-check.sh --base-bin "$gpubench" --runs "$pairs" "$folder" || true  # the A/B runs exit 1
  rm -f "$head"
}
perf-check() {
  local three=mlp/cpu/fp32,cnn/cpu/fp32,transformer/cpu/fp32
  perf_pair aa-5-pairs-threads1 5 "$three" "" "--threads 1"
  perf_pair aa-5-pairs-threads2 5 "$three" "" ""
  perf_pair aa-8-pairs-mlp-threads1 8 mlp/cpu/fp32 "" "--threads 1"
  perf_pair aa-8-pairs-mlp-threads2 8 mlp/cpu/fp32 "" ""
  perf_pair ab-5-pairs-threads1-sleep5ms 5 "$three" "--test-step-delay-ms 5" "--threads 1"
  perf_pair ab-10-pairs-threads1-sleep5ms 10 "$three" "--test-step-delay-ms 5" "--threads 1"
}

python-reference() {
  local dir=$examples/python-reference
  "$python" scripts/compare_with_python.py --gpubench "$gpubench" --rounds 3 --workloads mlp,cnn,transformer \
    --json "$dir/rounds.python-comparison.json" --markdown "$dir/ratios.md"
  "$python" scripts/compare_with_python.py --gpubench "$gpubench" --rounds 3 --steps 6 --warmup 2 --workloads resnet50,gpt2 \
    --json "$dir/real-scale.python-comparison.json" --markdown "$dir/real-scale-ratios.md"
}

sections=("$@")
[[ ${sections[*]} == all ]] && sections=(quick utilization overhead perf-check python-reference)
for section in "${sections[@]}"; do
  case $section in
    quick | utilization | overhead | perf-check | python-reference) ;;
    *) die "unknown section '$section': expected quick, utilization, overhead, perf-check, python-reference or all" ;;
  esac
done
for section in "${sections[@]}"; do
  start=$(date +%s)
  echo "regenerate-examples: $section ..." >&2
  "$section"
  echo "regenerate-examples: $section done in $(($(date +%s) - start)) s" >&2
done
