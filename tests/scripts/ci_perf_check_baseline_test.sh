#!/usr/bin/env bash
# scripts/ci-perf-check.sh never overwrites its baseline (ctest ci_perf_check_keeps_its_baseline):
# a baseline inside OUT_DIR, however it is reached (the default ./perf-check, a link, a `..`
# through a link), is exit 2 with the baseline untouched, where the script used to delete it,
# compare the new run with itself and say "no regression". A baseline beside OUT_DIR whose
# name only starts like it is still compared.
#   ci_perf_check_baseline_test.sh CI_PERF_CHECK_SCRIPT GPUBENCH
set -uo pipefail
script=$(realpath -e -- "$1") && gpubench=$(realpath -e -- "$2") || exit 1  # the cases run in other folders
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail_check() { echo "FAILED: $*"; failures=$((failures + 1)); }
export GPUBENCH=$gpubench GPUBENCH_CI_MATRIX=mlp/cpu/fp32 GPUBENCH_CI_ARGS="--threads 1"

# A real quick report, the baseline every case starts from.
made=$tmp/made.json
"$gpubench" --matrix mlp/cpu/fp32 --preset quick --threads 1 --format json --out "$made" >"$tmp/made.log" 2>&1 ||
  { echo "FAILED: gpubench could not make a baseline report:"; cat "$tmp/made.log"; exit 1; }

# expect_refused WHAT BASELINE_FILES -- ARGS...: run in $case_dir (a fresh folder, below),
# exit 2 with the "inside the output folder" reason, every listed baseline file unchanged.
expect_refused() {
  local what=$1 files=() result status
  shift
  while [[ $1 != -- ]]; do files+=("$1"); shift; done
  shift
  result=$(cd "$case_dir" && bash "$script" "$@" 2>&1)
  status=$?
  local ok=1
  [[ $status -eq 2 ]] || { fail_check "$what: exit $status, expected 2"; ok=0; }
  [[ $result == *"is inside the output folder"* ]] || { fail_check "$what: no 'inside the output folder' reason"; ok=0; }
  for file in "${files[@]}"; do
    cmp -s "$made" "$case_dir/$file" || { fail_check "$what: baseline '$file' was changed or deleted"; ok=0; }
  done
  ((ok)) && echo "ok: $what" || printf '  its output:\n%s\n' "$result"
}
new_case() { case_dir=$tmp/$1; mkdir -p "$case_dir"; }
# Fresh folders per case: a case that failed (deleted its baseline) does not spoil the next.
runs_case() { new_case "$1" && mkdir -p "$case_dir/out/current" && cp "$made" "$case_dir/out/current/run-01.json" &&
  cp "$made" "$case_dir/out/current/run-02.json"; }
links_case() { new_case "$1" && mkdir -p "$case_dir/out/a/b" && cp "$made" "$case_dir/out/current.json" &&
  ln -s out "$case_dir/alias" && ln -s out/a/b "$case_dir/deep" && ln -s out/current.json "$case_dir/base-link.json"; }

new_case default
mkdir -p "$case_dir/perf-check" && cp "$made" "$case_dir/perf-check/current.json"
expect_refused "a baseline in the default OUT_DIR" perf-check/current.json -- perf-check/current.json

runs_case runs-in-current
expect_refused "a directory of runs that is OUT_DIR/current" out/current/run-01.json out/current/run-02.json -- \
  out/current --runs 2 out
runs_case runs-in-out
expect_refused "a directory of runs that is OUT_DIR itself" out/current/run-01.json out/current/run-02.json -- \
  out/current --runs 2 out/current

links_case linked-out
expect_refused "OUT_DIR given through a link" out/current.json -- out/current.json alias
links_case linked-baseline
expect_refused "a baseline given through a link" out/current.json -- base-link.json out
# Lexically deep/../../current.json is ./current.json, outside out/; through the link it is
# out/current.json, the file the check would replace.
links_case dotdot
expect_refused "a baseline whose .. crosses a link" out/current.json -- deep/../../current.json out

# Beside OUT_DIR, with a name that starts like it: compared, not refused, and kept.
new_case beside
cp "$made" "$case_dir/perf-check-base.json"
result=$(cd "$case_dir" && bash "$script" perf-check-base.json -- --threshold 50% 2>&1)
status=$?
if [[ ($status -eq 0 || $status -eq 1) && $result == *"### gpubench compare"* && -f $case_dir/perf-check/current.json ]] &&
  cmp -s "$made" "$case_dir/perf-check-base.json"; then
  echo "ok: a baseline beside OUT_DIR is compared"
else
  fail_check "a baseline beside OUT_DIR: exit $status, expected a comparison (0 or 1)"
  printf '  its output:\n%s\n' "$result"
fi

((failures == 0)) || { echo "$failures check(s) failed"; exit 1; }
echo "all checks passed"
