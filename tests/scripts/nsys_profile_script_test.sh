#!/usr/bin/env bash
# scripts/nsys-profile.sh as a user calls it from their own folder (ctest
# nsys_profile_paths_arguments_and_timer, label nsys): a missing option value or an nsys that
# is not there is exit 2 with one line and nothing created; relative --out-dir, --out and
# --data are the caller's, not the checkout's; the deadline timer (`sleep S`) is gone when
# the script ends, after a run, a failed run or the deadline (exit 124).
#   nsys_profile_script_test.sh NSYS_PROFILE_SCRIPT NSYS GPUBENCH
set -uo pipefail
script=$(realpath -e -- "$1") && nsys=$(realpath -e -- "$2") && gpubench=$(realpath -e -- "$3") ||
  { echo "FAILED: needs the script, nsys (scripts/install-nsys.sh) and gpubench: $*"; exit 1; }
checkout=$(dirname "$(dirname "$script")")
tmp=$(mktemp -d)
stray=nsys-script-test-$$  # a name no one else uses: found in the checkout, it is this test's
trap 'rm -rf "$tmp" "${checkout:?}/$stray" "${checkout:?}/$stray.json"' EXIT
cd "$tmp" || exit 1
failures=0
check() {  # check WHAT COMMAND...: runs COMMAND, counts a failure when it fails
  local what=$1
  shift
  if "$@"; then echo "ok: $what"; else echo "FAILED: $what"; failures=$((failures + 1)); return 1; fi
}
export NSYS=$nsys GPUBENCH=$gpubench
# Timer lengths no other process uses, so that a leftover is this test's.
timeout_ok=$((4000 + $$ % 1000)) timeout_failed=$((5000 + $$ % 1000)) timeout_refused=$((6000 + $$ % 1000))

# pids_running TEXT: the processes whose command line holds TEXT (read with tr, whose own
# command line does not).
pids_running() {
  local dir
  for dir in /proc/[0-9]*; do
    [[ $({ tr '\0' ' ' <"$dir/cmdline"; } 2>/dev/null) == *"$1"* ]] && printf '%s ' "${dir#/proc/}"
  done
}
# no_timer_left SECONDS: true when no `sleep SECONDS` of the script (in this test's process
# group, which the script's children share) outlived it; one that did is ended here, so that
# a failing run leaves nothing behind either.
group=$(ps -o pgid= -p $$ | tr -d ' ')
no_timer_left() {
  local pid left=""
  for pid in $(pids_running "sleep $1 "); do
    [[ $(ps -o pgid=,args= -p "$pid" | awk '{ print $1, $2, $3 }') == "$group sleep $1" ]] && left+="$pid "
  done
  [[ -z $left ]] && return 0
  echo "  left running: sleep $1 (pids $left)"
  kill $left 2>/dev/null
  return 1
}

# refused WHAT EXPECTED_TEXT ARGS...: exit 2, one line naming what was wrong, no bash error.
refused() {
  local what=$1 expected=$2 output status
  shift 2
  output=$(bash "$script" "$@" 2>&1)
  status=$?
  if [[ $status -eq 2 && $(wc -l <<<"$output") -eq 1 && $output == "nsys-profile: "*"$expected"* ]]; then
    echo "ok: $what"
  else
    echo "FAILED: $what: exit $status, expected 2 and one line with '$expected'; output:"
    echo "$output"
    failures=$((failures + 1))
  fi
}
refused "--out-dir without a value" "--out-dir needs a value" --out-dir
refused "--name without a value" "--name needs a value" --name
refused "--timeout without a value" "--timeout needs a value" --timeout
refused "--name followed by --" "--name needs a value" --name -- --matrix mlp/cpu/fp32
# A name with a '/' created the output folder, then failed in nsys with a stray tail error.
refused "--name with a '/'" "--name 'a/b' is not a file name" --name a/b --out-dir "$stray" -- --matrix mlp/cpu/fp32
refused "--name '..'" "--name '..' is not a file name" --name .. --out-dir "$stray" -- --matrix mlp/cpu/fp32
check "nothing created for a refused --name" test ! -e "$stray" -a ! -e "$checkout/$stray"
NSYS=/nonexistent/nsys refused "NSYS that does not exist" "NSYS '/nonexistent/nsys' is not an executable file" \
  --timeout "$timeout_refused" --out-dir "$stray" -- --matrix mlp/cpu/fp32
check "nothing created for a refused NSYS" test ! -e "$stray" -a ! -e "$checkout/$stray"
check "no timer left for a refused NSYS" no_timer_left "$timeout_refused"

mkdir -p mnist  # 32 blank 28x28 images in MNIST's IDX files, for a relative --data
{ printf '\x00\x00\x08\x03\x00\x00\x00\x20\x00\x00\x00\x1c\x00\x00\x00\x1c'; head -c $((32 * 784)) /dev/zero; } >mnist/train-images-idx3-ubyte
{ printf '\x00\x00\x08\x01\x00\x00\x00\x20'; head -c 32 /dev/zero; } >mnist/train-labels-idx1-ubyte

# Output to files, not $(...): a leftover timer holding the pipe would make $(...) wait for it.
bash "$script" --timeout "$timeout_ok" --out-dir "$stray" --name run -- --matrix mlp/cpu/fp32 --steps 2 \
  --warmup 1 --threads 1 --batch-size 16 --data mnist --out "$stray.json" >run.log 2>&1
status=$?
check "a profiled run from the caller's folder is exit 0" test "$status" -eq 0 || sed 's/^/  /' run.log
check "relative --out-dir is the caller's" test -s "$stray/run.nsys-rep" -a ! -e "$checkout/$stray"
check "relative --out is the caller's" test -s "$stray.json" -a ! -e "$checkout/$stray.json"
check "relative --data is the caller's" grep -qs '"data_source": "mnist-idx:mnist (32 of 32 images)"' "$stray.json"
check "no timer left after a run" no_timer_left "$timeout_ok"

bash "$script" --timeout "$timeout_failed" --out-dir "$stray" --name failed -- --matrix mlp/cpu/nonsense >failed.log 2>&1
status=$?
check "a run that gpubench refuses is its exit 2" test "$status" -eq 2 || sed 's/^/  /' failed.log
check "no timer left after a failed run" no_timer_left "$timeout_failed"

bash "$script" --timeout 3 --out-dir "$stray" --name late -- --matrix mlp/cpu/fp32 --steps 100000 \
  --warmup 1 --threads 1 --out "$tmp/late.json" >late.log 2>&1
status=$?
check "past --timeout the exit is 124" test "$status" -eq 124 || sed 's/^/  /' late.log
check "past --timeout the run is stopped" test -z "$(pids_running "$tmp/late.json")"
check "past --timeout no grace timer is left" no_timer_left 15

((failures == 0)) || { echo "$failures check(s) failed"; exit 1; }
echo "all checks passed"
