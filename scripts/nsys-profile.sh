#!/usr/bin/env bash
# Profiles a gpubench run under Nsight Systems and writes its summaries beside the report:
#   scripts/nsys-profile.sh [--out-dir DIR] [--name NAME] [--timeout S] -- GPUBENCH_ARGS...
# e.g. scripts/nsys-profile.sh -- --matrix mlp/cpu/fp32,mlp/cpu/bf16 --preset quick
# Writes DIR/NAME.nsys-rep (open it in the Nsight Systems GUI), DIR/NAME.json (gpubench's
# report, unless GPUBENCH_ARGS has its own --out), DIR/NAME.nsys.log (nsys's own output) and
# `nsys stats` CSVs DIR/NAME_<report>.csv: nvtxsum (time per range name: each phase totalled
# over steps), nvtxpptrace (every range with its parent); on a GPU also nvtxkernsum and
# nvtxgpuproj (kernels per NVTX range), gpukernsum and gpumemtimesum. Defaults: DIR
# reports/nsys, NAME gpubench-<date>, a 900 s deadline.
# Traces: NVTX and OS runtime on the CPU; CUDA, cuDNN, cuBLAS, NVTX and OS runtime where
# nvidia-smi sees a GPU. With --profile-steps A:B in GPUBENCH_ARGS only steps A..B of each
# config are captured (the NVTX range profile-steps@gpubench; one report per config,
# NAME.1.nsys-rep, NAME.2.nsys-rep, ...).
# nsys is NSYS, else .tools/nsys/bin/nsys (scripts/install-nsys.sh), else nsys on PATH;
# gpubench is GPUBENCH, else build/gpubench. Paths (--out-dir, NSYS, GPUBENCH, and
# gpubench's own --out, --data) are relative to the directory it is called from. Exit
# code: gpubench's, 124 past the deadline, 2 for bad arguments (checked before anything is
# created or run).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

usage="usage: scripts/nsys-profile.sh [--out-dir DIR] [--name NAME] [--timeout S] -- GPUBENCH_ARGS..."
fail() { echo "nsys-profile: $*" >&2; exit 2; }
# An option's value: present, not empty, and not the next option (`--name -- --matrix ...`
# would otherwise take "--" as the name).
value_of() {
  [[ $# -ge 2 && -n $2 && $2 != -* ]] || fail "$1 needs a value ($1 $3); $usage"
  printf '%s' "$2"
}
out_dir=$root/reports/nsys name=gpubench-$(date +%Y%m%d-%H%M%S) deadline_s=900
while (($#)); do
  case $1 in
    --out-dir) out_dir=$(value_of "$1" "${2:-}" DIR) || exit 2; shift 2 ;;
    --name) name=$(value_of "$1" "${2:-}" NAME) || exit 2; shift 2 ;;
    --timeout) deadline_s=$(value_of "$1" "${2:-}" S) || exit 2; shift 2 ;;
    -h | --help) echo "$usage"; exit 0 ;;
    --) shift; break ;;
    *) fail "unknown option '$1'; $usage" ;;
  esac
done
(($#)) || fail "no gpubench arguments after --; $usage"
[[ $deadline_s =~ ^[1-9][0-9]*$ ]] || fail "--timeout '$deadline_s' is not a whole number of seconds > 0"
# NAME is a file name stem in DIR: a '/' would put the files in another folder (or none).
[[ $name != */* && $name != . && $name != .. ]] ||
  fail "--name '$name' is not a file name: expected a name without '/' (the files go in --out-dir)"
nsys=${NSYS:-}
[[ -z $nsys && -x $root/.tools/nsys/bin/nsys ]] && nsys=$root/.tools/nsys/bin/nsys
[[ -z $nsys ]] && { nsys=$(command -v nsys) || fail "no nsys (run scripts/install-nsys.sh, or set NSYS)"; }
[[ $nsys == */* ]] || nsys=$(command -v -- "$nsys") || fail "NSYS '${NSYS:-}' is not a command on PATH"
[[ -x $nsys && ! -d $nsys ]] || fail "NSYS '$nsys' is not an executable file (run scripts/install-nsys.sh, or set NSYS)"
gpubench=${GPUBENCH:-$root/build/gpubench}
[[ -x $gpubench && ! -d $gpubench ]] || fail "no gpubench at '$gpubench' (run scripts/build.sh, or set GPUBENCH)"
made=$(mkdir -p -- "$out_dir" 2>&1) || fail "cannot create the output folder '$out_dir': ${made#mkdir: }"
base=$out_dir/$name

args=("$@")
has_flag() { local arg; for arg in "${args[@]}"; do [[ $arg == "$1" || $arg == "$1"=* ]] && return 0; done; return 1; }
has_flag --out || args+=(--out "$base.json")
if nvidia-smi -L >/dev/null 2>&1; then gpu=1 traces=cuda,cudnn,cublas,nvtx,osrt; else gpu=0 traces=nvtx,osrt; fi
# --cpuctxsw=none: with 2022.4's default (process-tree) the agent spins at 100% of a core
# after the app exits and `nsys profile` never returns (seen on this project's VMs).
options=(-t "$traces" --sample=none --cpuctxsw=none --force-overwrite true -o "$base")
if has_flag --profile-steps; then
  options+=(--capture-range=nvtx --nvtx-capture=profile-steps@gpubench --capture-range-end=repeat)
fi

# nsys leaves its agent daemon (own session, parent 1) and the app (own session) behind when
# it is killed, and a stuck agent spins: the cleanup finds both by what marks them, the
# agent's --session-name and the app's QUADD_AGENT_PID, gives them `grace` seconds to end by
# themselves, then kills their sessions.
cleanup() {
  local front=$1 grace=$2 sids=" $1 " pid sid victims agents=""
  for dir in /proc/[0-9]*; do
    pid=${dir#/proc/}
    if { tr "\0" "\n" <"$dir/cmdline"; } 2>/dev/null | grep -qxE -- "--session-name=profile-.*-$front"; then
      agents+=" $pid"
    fi
    if [[ $agents == *" $pid" ]] || { tr "\0" "\n" <"$dir/environ"; } 2>/dev/null | grep -qx "QUADD_AGENT_PID=$front"; then
      sid=$(ps -o sid= -p "$pid" 2>/dev/null | tr -d ' ')
      [[ -n $sid && $sid != 0 && $sid != 1 && $sids != *" $sid "* ]] && sids+="$sid "
    fi
  done
  session_members() {
    ps -eo pid=,sid=,stat= | awk -v s="$sids" -v me=$$ 'BEGIN { n = split(s, a, " "); for (i = 1; i <= n; i++) w[a[i]] = 1 }
      ($2 in w) && $1 != me && $3 !~ /^Z/ { printf " %s", $1 }'
  }
  for ((i = 0; i < grace * 2; ++i)); do [[ -z $(session_members) ]] && break; sleep 0.5; done
  victims=$(session_members)
  [[ -n $victims ]] && { echo "nsys-profile: killing what nsys left behind:$victims" >&2; kill -KILL $victims 2>/dev/null; }
  remove_stale_agent_files
  return 0
}

# A killed agent leaves /dev/shm/NSys-<version> (the agents' shared registry) behind, and
# every later `nsys profile` on the machine then fails with "Agent launcher failed". With no
# agent running, the files are stale.
remove_stale_agent_files() {
  local dir
  for dir in /proc/[0-9]*; do
    { tr "\0" "\n" <"$dir/cmdline"; } 2>/dev/null | grep -qx -- "--start-agent" && return 0
  done
  for file in /dev/shm/NSys-* /dev/shm/quadd-agent-instance-*; do
    [[ -e $file ]] && { echo "nsys-profile: removing $file, left by an nsys agent that no longer runs" >&2; rm -f "$file"; }
  done
  return 0
}

remove_stale_agent_files
# nsys's scratch (.qdstrm, session files) in a private folder, removed afterwards.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/gpubench-nsys.XXXXXX") || fail "cannot create a scratch folder in ${TMPDIR:-/tmp}"
timer=""
# Whatever way the script ends, its timer (a `sleep`) and scratch go with it.
trap '[[ -n $timer ]] && kill "$timer" 2>/dev/null; rm -rf "$scratch"' EXIT
echo "nsys-profile: $("$nsys" --version) tracing $traces: $gpubench ${args[*]}" >&2
TMPDIR=$scratch setsid "$nsys" profile "${options[@]}" "$gpubench" "${args[@]}" >"$base.nsys.log" 2>&1 &
front=$!

# wait_for_nsys SECONDS: 0 when nsys ended within SECONDS (its exit status in rc), 1 when the
# time ran out first. The timer is a child of this shell, so it is ended (not orphaned)
# whichever comes first.
wait_for_nsys() {
  local first="" status
  # Not on the caller's stdout: a $(...) around this script would wait for the timer too.
  sleep "$1" >/dev/null 2>&1 &
  timer=$!
  wait -n -p first "$front" "$timer"
  status=$?
  if [[ $first == "$front" ]]; then
    kill "$timer" 2>/dev/null; wait "$timer" 2>/dev/null; timer=""
    rc=$status
    return 0
  fi
  timer=""
  return 1
}
rc=0
if ! wait_for_nsys "$deadline_s"; then
  echo "nsys-profile: past the ${deadline_s} s deadline, stopping nsys" >&2
  kill -TERM "$front" 2>/dev/null
  # 15 s to write what it has, then whatever is left of its sessions is killed.
  wait_for_nsys 15 || { cleanup "$front" 0; wait "$front"; }
  rc=124
fi
cleanup "$front" 30
rm -rf "$scratch"

shopt -s nullglob
reports=()
for report in "$base".nsys-rep "$base".[0-9]*.nsys-rep; do [[ -f $report ]] && reports+=("$report"); done
((${#reports[@]})) || { echo "nsys-profile: nsys wrote no report (exit $rc); its output: $base.nsys.log" >&2; tail -n 20 "$base.nsys.log" >&2; exit $((rc ? rc : 1)); }
stats=nvtxsum,nvtxpptrace
((gpu)) && stats+=,nvtxkernsum,nvtxgpuproj,gpukernsum,gpumemtimesum
for report in "${reports[@]}"; do
  stem=${report%.nsys-rep}
  timeout 300 "$nsys" stats --report "$stats" --format csv --force-export true --force-overwrite true -o "$stem" "$report" \
    >>"$base.nsys.log" 2>&1 || echo "nsys-profile: nsys stats failed on $report (see $base.nsys.log)" >&2
  timeout 120 "$nsys" stats --report nvtxsum --format column "$report" 2>/dev/null | grep -v '^Generating\|^Processing\|^$'
  echo "nsys-profile: $report (open in the Nsight Systems GUI), summaries ${stem}_{${stats}}.csv" >&2
done
exit "$rc"
