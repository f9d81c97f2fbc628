#!/usr/bin/env bash
# CI performance gate: run the quick preset, compare, write a markdown summary, exit as
# `gpubench compare` does (0 ok, 1 regression, 2 bad input, 3 compare failed); 2 also when
# a matrix run could not be used (it crashed, or a config failed under --strict). Two ways:
#
#   scripts/ci-perf-check.sh BASELINE [--runs N] [OUT_DIR] [-- compare flags, e.g. --threshold 30%]
#       This build against a committed baseline: a report (N = 1, the default: the
#       per-step test), or a directory of runs (N >= 2 runs of this build: the run-level
#       test). Cheap, but a baseline from another day or runner differs by run-to-run
#       drift (measured on a shared 2-core VM: up to 25%), so the threshold must exceed it.
#
#   scripts/ci-perf-check.sh --base-bin BASE_GPUBENCH [--runs N] [OUT_DIR] [-- compare flags]
#       Same job: the base build (e.g. the target branch, built in a worktree) and this
#       build run N times each (default 5), interleaved base,head,head,base,... so that
#       drift through the job hits both alike, then `gpubench compare --paired`: run i of
#       each side ran back to back and is compared as a pair. No baseline file, no
#       day-to-day drift; what it can resolve depends on the runner's run-to-run noise and
#       N (docs/ci.md has the figures measured on a 2-core VM).
#
# Paths are taken relative to the directory it is called from; a BASELINE inside OUT_DIR
# (default ./perf-check) is refused (exit 2). Env: GPUBENCH_CI_MATRIX
# (default: the three CPU fp32 configs), GPUBENCH_CI_ARGS (more matrix flags for every run,
# split on whitespace, e.g. "--threads 1": on a 2-vCPU shared VM one thread cut mlp's
# run-to-run spread from 11% to 3.3%), GPUBENCH (this build's binary, default the repo's
# build/gpubench). The summary is appended to $GITHUB_STEP_SUMMARY when set; OUT_DIR also
# gets junit.xml (a test case per config, for the CI server's test view) and compare.html
# (the comparison drawn, `gpubench report`): upload them as the job's artifacts.
set -uo pipefail
usage="usage: scripts/ci-perf-check.sh BASELINE [--runs N] [OUT_DIR] [-- compare flags]
       scripts/ci-perf-check.sh --base-bin BASE_GPUBENCH [--runs N] [OUT_DIR] [-- compare flags]"
fail() { echo "ci-perf-check: $*" >&2; exit 2; }
absolute() { [[ $1 == /* ]] && printf '%s' "$1" || printf '%s/%s' "$PWD" "$1"; }

baseline="" base_bin="" runs="" out_dir="" compare_flags=() positionals=()
while [[ $# -gt 0 ]]; do
  case $1 in
    -h | --help) echo "$usage"; exit 0 ;;
    --base-bin)
      [[ $# -ge 2 && -n $2 ]] || fail "--base-bin needs the base build's gpubench binary"
      base_bin=$(absolute "$2"); shift 2 ;;
    --runs)
      [[ $# -ge 2 ]] || fail "--runs needs a number"
      runs=$2; shift 2 ;;
    --) shift; compare_flags=("$@"); break ;;
    -*) fail "unknown option '$1' (compare flags go after --)
$usage" ;;
    *) positionals+=("$1"); shift ;;
  esac
done
# Positionals: BASELINE then OUT_DIR, or only OUT_DIR with --base-bin (wherever it came).
[[ -z $base_bin && ${#positionals[@]} -gt 0 ]] && { baseline=$(absolute "${positionals[0]}"); positionals=("${positionals[@]:1}"); }
if [[ -n $base_bin && ${#positionals[@]} -gt 0 && -f ${positionals[0]} ]]; then
  fail "'${positionals[0]}' is a file: give a BASELINE or --base-bin, not both (with --base-bin the argument is OUT_DIR)"
fi
[[ ${#positionals[@]} -gt 0 ]] && out_dir=$(absolute "${positionals[0]}")
[[ ${#positionals[@]} -gt 1 ]] && fail "unexpected argument '${positionals[1]}' (compare flags go after --)
$usage"
[[ -n $base_bin || -n $baseline ]] || fail "$usage"
[[ -z $runs || $runs =~ ^[1-9][0-9]*$ ]] || fail "--runs '$runs' is not a whole number >= 1"
if [[ -n $base_bin ]]; then
  runs=${runs:-5}
  ((runs >= 2)) || fail "--runs $runs: the same-job check needs at least 2 runs a side"
  [[ -x $base_bin && ! -d $base_bin ]] || fail "base binary '$base_bin' is not an executable file"
else
  runs=${runs:-1}
  [[ -e $baseline ]] || fail "baseline '$baseline' does not exist"
  if [[ -d $baseline ]]; then
    ((runs >= 2)) || fail "baseline '$baseline' is a directory of runs: give --runs N >= 2 (runs of this build)"
  else
    ((runs == 1)) || fail "--runs $runs needs a baseline directory of runs; '$baseline' is one report"
  fi
fi
out_dir=${out_dir:-$PWD/perf-check}
# OUT_DIR is this check's to overwrite (current.json, current/run-*.json, summary.md): a
# baseline inside it would be deleted and the new run compared with itself ("no
# regression"). Decided on the resolved paths (links, ..), as the files are reached.
if [[ -n $baseline ]]; then
  real_baseline=$(realpath -e -- "$baseline" 2>/dev/null) || fail "baseline '$baseline' cannot be resolved"
  real_out=$(realpath -m -- "$out_dir" 2>/dev/null) || fail "output folder '$out_dir' cannot be resolved"
  if [[ $real_baseline/ == "${real_out%/}"/* ]]; then
    resolved=""
    [[ $real_baseline != "$baseline" || $real_out != "$out_dir" ]] && resolved=" (resolved: '$real_baseline' in '$real_out')"
    fail "baseline '$baseline' is inside the output folder '$out_dir'$resolved, which each check overwrites: keep the baseline elsewhere or give another OUT_DIR"
  fi
fi
gpubench=$(absolute "${GPUBENCH:-$(cd "$(dirname "$0")/.." && pwd)/build/gpubench}")
matrix=${GPUBENCH_CI_MATRIX:-mlp/cpu/fp32,cnn/cpu/fp32,transformer/cpu/fp32}
read -r -a extra_args <<< "${GPUBENCH_CI_ARGS:-}"
[[ -x $gpubench ]] || fail "'$gpubench' is not built (scripts/build.sh)"
# The baseline is read as compare will read it (against itself), before minutes of matrix
# runs: a file that is not a gpubench report, a folder holding one, or a report with no ok
# config to compare with, is exit 2 now, with compare's reason.
if [[ -n $baseline ]]; then
  why=$("$gpubench" compare "$baseline" "$baseline" --format json 2>&1 >/dev/null)
  status=$?
  why=$(grep -v "^gpubench compare: warning:" <<<"$why")  # that it is compared with itself
  ((status == 0 || status == 1)) || fail "baseline '$baseline' cannot be compared: ${why#gpubench: error: }"
fi
mkdir -p "$out_dir" || fail "cannot create '$out_dir'"

# One quick-preset run of `binary` into `report`. A failed config does not stop the check
# (it is a row with its reason, and compare says so) unless GPUBENCH_CI_ARGS has --strict;
# bad input or a crash does.
run_matrix() {
  local binary=$1 report=$2
  rm -f "$report"  # never compare a report left by an earlier check
  "$binary" --matrix "$matrix" --preset quick ${extra_args[@]+"${extra_args[@]}"} --format json \
    --out "$report" > /dev/null
  local status=$?
  local command="'$binary --matrix $matrix --preset quick ${extra_args[*]:-}'"
  [[ $status -eq 2 ]] && fail "$command refused its input (exit 2)"
  if [[ $status -eq 1 && " ${extra_args[*]:-} " == *" --strict "* ]]; then
    fail "$command: a config failed (--strict); its reason is in '$report'"
  fi
  [[ $status -eq 0 ]] || fail "$command died (exit $status)"
  [[ -f $report ]] || fail "$command wrote no report '$report' (exit $status)"
}

# N runs named run-01.json... into `dir` (old runs removed, nothing else).
clear_runs() {
  mkdir -p "$1" && rm -f "$1"/run-*.json
}

compare_base="" compare_new="" paired=()
if [[ -n $baseline ]]; then
  compare_base=$baseline
  if ((runs == 1)); then
    compare_new=$out_dir/current.json
    run_matrix "$gpubench" "$compare_new"
  else
    compare_new=$out_dir/current
    clear_runs "$compare_new"
    for ((i = 1; i <= runs; i++)); do run_matrix "$gpubench" "$(printf '%s/run-%02d.json' "$compare_new" "$i")"; done
  fi
else
  compare_base=$out_dir/base compare_new=$out_dir/head paired=(--paired)
  clear_runs "$compare_base"
  clear_runs "$compare_new"
  for ((i = 1; i <= runs; i++)); do
    name=$(printf 'run-%02d.json' "$i")
    # ABBA order: a drift that grows through the job is not always charged to one side.
    if ((i % 2)); then
      run_matrix "$base_bin" "$compare_base/$name"
      run_matrix "$gpubench" "$compare_new/$name"
    else
      run_matrix "$gpubench" "$compare_new/$name"
      run_matrix "$base_bin" "$compare_base/$name"
    fi
    echo "ci-perf-check: pair $i of $runs done" >&2
  done
fi
rm -f "$out_dir/junit.xml" "$out_dir/compare.html"
"$gpubench" compare "$compare_base" "$compare_new" ${paired[@]+"${paired[@]}"} --format markdown \
  --junit "$out_dir/junit.xml" ${compare_flags[@]+"${compare_flags[@]}"} > "$out_dir/summary.md"
status=$?
cat "$out_dir/summary.md"
# The same decision drawn (compare.html), with the compare flags the page takes too. A build
# without Chart.js cannot draw it: said, and the verdict stands.
page_flags=()
for ((i = 0; i < ${#compare_flags[@]}; i++)); do
  case ${compare_flags[i]} in
    --threshold | --alpha | --metric) page_flags+=("${compare_flags[i]}" "${compare_flags[i + 1]:-}"); i=$((i + 1)) ;;
    --threshold=* | --alpha=* | --metric=*) page_flags+=("${compare_flags[i]}") ;;
  esac
done
if ((status <= 1)); then
  "$gpubench" report "$compare_base" "$compare_new" ${paired[@]+"${paired[@]}"} --html "$out_dir/compare.html" \
    ${page_flags[@]+"${page_flags[@]}"} >&2 || echo "ci-perf-check: no compare.html (see above); the verdict stands" >&2
fi
[[ -n ${GITHUB_STEP_SUMMARY:-} ]] && cat "$out_dir/summary.md" >> "$GITHUB_STEP_SUMMARY"
exit $status
