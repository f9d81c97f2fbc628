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
# gpubench is GPUBENCH, else build/gpubench. Exit code: gpubench's, 124 past the deadline,
# 2 for bad arguments.
set -uo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: scripts/nsys-profile.sh [--out-dir DIR] [--name NAME] [--timeout S] -- GPUBENCH_ARGS..." >&2; exit 2; }
out_dir=reports/nsys name=gpubench-$(date +%Y%m%d-%H%M%S) deadline_s=900
while (($#)); do
  case $1 in
    --out-dir) out_dir=${2:?}; shift 2 ;;
    --name) name=${2:?}; shift 2 ;;
    --timeout) deadline_s=${2:?}; shift 2 ;;
    --) shift; break ;;
    *) echo "nsys-profile: unknown option '$1'" >&2; usage ;;
  esac
done
(($#)) || usage
[[ $deadline_s =~ ^[1-9][0-9]*$ ]] || { echo "nsys-profile: --timeout '$deadline_s' is not a whole number of seconds > 0" >&2; exit 2; }
nsys=${NSYS:-}
[[ -z $nsys && -x .tools/nsys/bin/nsys ]] && nsys=.tools/nsys/bin/nsys
[[ -z $nsys ]] && nsys=$(command -v nsys || true)
[[ -n $nsys ]] || { echo "nsys-profile: no nsys (run scripts/install-nsys.sh, or set NSYS)" >&2; exit 2; }
gpubench=${GPUBENCH:-build/gpubench}
[[ -x $gpubench ]] || { echo "nsys-profile: no gpubench at $gpubench (run scripts/build.sh, or set GPUBENCH)" >&2; exit 2; }
mkdir -p "$out_dir" || exit 2
base=$out_dir/$name

args=("$@")
[[ " ${args[*]} " == *" --out "* ]] || args+=(--out "$base.json")
if nvidia-smi -L >/dev/null 2>&1; then gpu=1 traces=cuda,cudnn,cublas,nvtx,osrt; else gpu=0 traces=nvtx,osrt; fi
# --cpuctxsw=none: with 2022.4's default (process-tree) the agent spins at 100% of a core
# after the app exits and `nsys profile` never returns (seen on this project's VMs).
options=(-t "$traces" --sample=none --cpuctxsw=none --force-overwrite true -o "$base")
if [[ " ${args[*]} " == *" --profile-steps "* ]]; then
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
scratch=$(mktemp -d "${TMPDIR:-/tmp}/gpubench-nsys.XXXXXX") || exit 2
echo "nsys-profile: $("$nsys" --version) tracing $traces: $gpubench ${args[*]}" >&2
TMPDIR=$scratch setsid "$nsys" profile "${options[@]}" "$gpubench" "${args[@]}" >"$base.nsys.log" 2>&1 &
front=$!
( sleep "$deadline_s" </dev/null >/dev/null 2>&1; echo "nsys-profile: past the ${deadline_s} s deadline, stopping nsys" >&2; kill -TERM "$front" 2>/dev/null
  sleep 15; cleanup "$front" 0 ) &
watchdog=$!
wait "$front"
rc=$?
kill "$watchdog" 2>/dev/null && wait "$watchdog" 2>/dev/null
cleanup "$front" 30
rm -rf "$scratch"
((rc == 143)) && rc=124

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
