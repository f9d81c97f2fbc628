#!/usr/bin/env bash
# A private one-node Slurm cluster on loopback, for trying gpubench's DDP ranks under srun
# and sbatch on one machine (the ctest Slurm.* does; so can a user before a real cluster):
#   scripts/slurm-local.sh up      -> prints `export SLURM_CONF=...`; srun/sbatch then work
#   scripts/slurm-local.sh down    -> cancels jobs, stops slurmd, slurmctld, munged
# Needs root (the daemons run as root; no systemd, nothing in /etc is changed) and Debian's
# slurmctld slurmd slurm-client munge (scripts/setup.sh installs them). Everything lives in
# SLURM_LOCAL_DIR (default /tmp/gpubench-slurm; munged wants every folder above it a+x):
# slurm.conf, a private munge key and socket,
# state, spool, logs, pid files. SLURM_CPUS (default max(nproc, 2)) CPUs, so `-n 2` always
# fits; ports 6817/6818 (SLURMCTLD_PORT, SLURMD_PORT).
set -uo pipefail

dir=${SLURM_LOCAL_DIR:-/tmp/gpubench-slurm}
node=$(hostname -s)
cpus=${SLURM_CPUS:-$(n=$(nproc); ((n >= 2)) && echo "$n" || echo 2)}
mark="GPUBENCH_SLURM_LOCAL=$dir"   # in the daemons' environment: `down` finds strays by it
export SLURM_CONF=$dir/etc/slurm.conf

log() { echo "slurm-local: $*" >&2; }
# Exists and is not a zombie (a slow-reaping init leaves killed daemons as zombies).
alive() { [[ -n ${1:-} ]] && kill -0 "$1" 2>/dev/null && [[ $(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) != Z ]]; }
stop_pidfile() {
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 0
  if alive "$pid"; then
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 50); do alive "$pid" || break; sleep 0.2; done
    alive "$pid" && kill -KILL "$pid" 2>/dev/null
  fi
  rm -f "$1"
}

down() {
  if alive "$(cat "$dir/slurmctld.pid" 2>/dev/null)"; then
    local jobs
    jobs=$(squeue -h -o %i 2>/dev/null)
    if [[ -n $jobs ]]; then
      scancel --full $jobs 2>/dev/null   # srun ignores one SIGTERM; scancel ends the steps' tasks too
      for _ in $(seq 25); do [[ -z $(squeue -h -t R,CG -o %i 2>/dev/null) ]] && break; sleep 0.4; done
    fi
  fi
  stop_pidfile "$dir/slurmd.pid"
  stop_pidfile "$dir/slurmctld.pid"
  stop_pidfile "$dir/munge/munged.pid"
  # A daemon that died with jobs running leaves slurmstepd (it carries the mark) and its tasks.
  local p pid
  for p in /proc/[0-9]*; do
    pid=${p#/proc/}
    { tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -qxF "$mark" || continue
    log "killing leftover $(cat "$p/comm" 2>/dev/null) ($pid) and its children"
    pkill -KILL -P "$pid" 2>/dev/null
    kill -KILL "$pid" 2>/dev/null
  done
  return 0
}

up() {
  [[ $(id -u) == 0 ]] || { log "needs root (slurmd and munged run as root here)"; return 2; }
  for tool in slurmctld slurmd srun munged; do
    command -v "$tool" >/dev/null || { log "no $tool: install slurmctld slurmd slurm-client munge (scripts/setup.sh)"; return 2; }
  done
  down
  rm -rf "$dir/state" "$dir/spool" "$dir/log" "$dir/etc"
  mkdir -p "$dir/etc" "$dir/state" "$dir/spool" "$dir/log" "$dir/munge" || return 2
  chmod 755 "$dir" "$dir/munge"   # munged wants its socket folder a+x and not group/other-writable
  [[ -s $dir/munge/munge.key ]] || dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chmod 600 "$dir/munge/munge.key"
  local socket=$dir/munge/munge.socket
  # --origin: no name lookup of this host (it may not resolve).
  env "$mark" munged --key-file="$dir/munge/munge.key" --socket="$socket" --pid-file="$dir/munge/munged.pid" \
    --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed" --num-threads=2 --origin=127.0.0.1 ||
    { log "munged did not start (see $dir/munge/munged.log)"; return 1; }
  : >"$dir/etc/plugstack.conf"
  cat >"$SLURM_CONF" <<CONF
# Written by scripts/slurm-local.sh: one node on loopback, no cgroups, no accounting.
ClusterName=gpubench-local
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=${SLURMCTLD_PORT:-6817}
SlurmdPort=${SLURMD_PORT:-6818}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
PlugStackConfig=$dir/etc/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmdParameters=config_overrides
MailProg=/bin/true
KillWait=5
NodeName=$node NodeAddr=127.0.0.1 NodeHostname=$node CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
  env "$mark" slurmctld -f "$SLURM_CONF" -c -i || { log "slurmctld did not start (see $dir/log/slurmctld.log)"; return 1; }
  env "$mark" slurmd -f "$SLURM_CONF" -N "$node" || { log "slurmd did not start (see $dir/log/slurmd.log)"; return 1; }
  for _ in $(seq 120); do
    [[ $(sinfo -h -n "$node" -o %T 2>/dev/null) == idle ]] && { echo "export SLURM_CONF=$SLURM_CONF"; return 0; }
    sleep 0.5
  done
  log "node $node not idle after 60 s: $(sinfo -h -n "$node" -o %T 2>&1); logs in $dir/log"
  tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2
  return 1
}

case ${1:-} in
  up) up ;;
  down) down ;;
  *) echo "usage: scripts/slurm-local.sh up|down  (SLURM_LOCAL_DIR=$dir)" >&2; exit 2 ;;
esac
