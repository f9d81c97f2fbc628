#!/usr/bin/env bash
# Before/after the LibTorch switch: Debian 1.13 (OpenBLAS) vs pip 2.11 (MKL), same machine,
# interleaved ABBA per round, 2 threads, fixed step counts.
set -u
old=/work/base-113/build/gpubench
new=/work/main/build/gpubench
out=${1:-/tmp/switch/out}
mkdir -p "$out"
declare -A steps=([mlp]=200 [cnn]=40 [transformer]=16)
for round in ${ROUNDS:-1 2 3}; do
  for w in mlp cnn transformer; do
    if (( round % 2 )); then order="old new"; else order="new old"; fi
    for side in $order; do
      bin=$old; [[ $side == new ]] && bin=$new
      $bin --matrix $w/cpu/fp32 --steps ${steps[$w]} --warmup 3 --threads 2 --out "$out/$side-$w-r$round.json" --format table >/dev/null 2>&1
      echo "$round $w $side $(python3 -c "import json,sys; r=json.load(open('$out/$side-$w-r$round.json'))['results'][0]; print(r['status'], r.get('throughput',{}).get('samples_per_s',{}).get('median'))")"
    done
  done
done
