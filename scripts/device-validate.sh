#!/usr/bin/env bash
# The one prepared run for a lent GPU machine (../shared/device/README.md): build what CI
# builds (scripts/build.sh, against the machine's pip torch 2.11), run the test suite
# (the gpu-labelled tests run for real there), then the GPU matrix and the whole matrix,
# everything written under $OUT, every stage timed and bounded so the run ends within
# BUDGET_S seconds (default 540) even when a stage hangs.
#
#   Here, once (dev machine with the Debian packages):   scripts/device-validate.sh prepare
#     -> .deps/ (fmt, nlohmann-json, CLI11, GoogleTest, Google Benchmark, valijson, Gloo's headers)
#   There (carry .deps, run timeout ~600 s):             OUT=/path scripts/device-validate.sh
#     -> $OUT/log (everything), $OUT/stages.tsv (stage, exit code, seconds),
#        $OUT/ceilings-gpu.json (+ .benchmark.json), $OUT/report-standard-gpu.{json,md} (resnet50 and
#        gpt2, one config per technique, first), $OUT/report-gpu-default.{json,md},
#        $OUT/report-overhead-gpu.{json,md}, $OUT/report-all-quick.{json,md},
#        $OUT/ctest.log, $OUT/facts.txt (LibTorch 2.x facts to confirm),
#        $OUT/hta/<config>/rank-0.json + $OUT/report-hta.json (run HTA's temporal breakdown on
#        them here), $OUT/nsys/cupti.* (where the machine has nsys: CUPTI's state under it)
#   Environment: PYTHON (python3: the interpreter whose torch 2.11 is built against),
#                BUILD_DIR (build-gpu), BUDGET_S (540). Rehearse here with
#                PYTHON=.venv/bin/python BUILD_DIR=build OUT=/tmp/dv (every CUDA stage skips).
#
# Stage order puts what only this machine can show first: build, the machine's ceilings
# (copy bandwidth, matmul, one training step), the GPU matrix at the default preset
# reported against those ceilings, the harness overhead on two CUDA configs, the tests,
# then the whole matrix at the quick preset with the time that is left. The reports are
# rewritten after every config, so a stage cut short keeps what it measured.
set -uo pipefail
cd "$(dirname "$0")/.."

if [[ ${1:-} == prepare ]]; then
  set -e
  pack=${PACK_DEPS:-../shared/device/pack-deps.sh}
  [[ -x $pack ]] || { echo "device-validate: $pack not found (set PACK_DEPS)" >&2; exit 2; }
  "$pack" .deps
  # Not in pack-deps' list: header-only valijson (the report schema tests) and Gloo's
  # headers (c10d's ProcessGroupGloo.hpp; harness/parallel/gloo_group.cpp); and with their
  # libraries, the image decoders (libjpeg-turbo's TurboJPEG, libpng and the zlib its
  # header includes), which CMake finds by name in .deps/usr.
  copy_package() {  # PACKAGE PATTERN: the package's files matching PATTERN into .deps
    dpkg -s "$1" >/dev/null 2>&1 || { echo "device-validate: $1 is not installed here (scripts/setup.sh)" >&2; exit 2; }
    dpkg -L "$1" | while read -r f; do
      [[ ( -f $f || -L $f ) && $f == $2 ]] || continue
      mkdir -p ".deps$(dirname "$f")"
      cp -a "$f" ".deps$f"
    done
  }
  for package in libvalijson-dev libgloo-dev; do copy_package "$package" '/usr/include/*'; done
  for package in libturbojpeg0-dev libturbojpeg0 libpng-dev libpng16-16 zlib1g-dev zlib1g; do
    copy_package "$package" '/usr/*'
  done
  du -sh .deps
  exit 0
fi

: "${OUT:?set OUT to the folder that comes back (the device run sets it)}"
mkdir -p "$OUT"
log=$OUT/log
budget=${BUDGET_S:-540}
start=$(date +%s)
deadline=$((start + budget))
build_dir=${BUILD_DIR:-build-gpu}
export BUILD_DIR=$build_dir
failed=0
printf 'stage\texit_code\tseconds\n' >"$OUT/stages.tsv"

say() { echo "== [$(($(date +%s) - start)) s] $*" | tee -a "$log"; }

# stage NAME CAP_S RESERVE_PCT COMMAND...: runs COMMAND (output to the log and the
# terminal) for at most CAP_S seconds and never past the deadline minus RESERVE_PCT % of the
# budget (time kept for later stages). timeout kills the whole process group, gpubench's
# per-config children included.
stage() {
  local name=$1 cap=$2 reserve=$(($3 * budget / 100))
  shift 3
  local now left limit rc t0
  now=$(date +%s)
  left=$((deadline - now - reserve))
  limit=$((cap < left ? cap : left))
  if ((limit < 5)); then
    say "$name: skipped, no time left (${left} s before the reserve)"
    printf '%s\tskipped\t0\n' "$name" >>"$OUT/stages.tsv"
    failed=1
    return
  fi
  say "$name (at most $limit s): $*"
  t0=$(date +%s)
  timeout --kill-after=5 "$limit" "$@" 2>&1 | tee -a "$log"
  rc=$?
  ((rc == 124)) && say "$name: timed out after $limit s"
  say "$name: exit $rc after $(($(date +%s) - t0)) s"
  printf '%s\t%s\t%s\n' "$name" "$rc" "$(($(date +%s) - t0))" >>"$OUT/stages.tsv"
  ((rc != 0)) && failed=1
  return 0
}

# shellcheck disable=SC2317  # called through bash -c (export -f)
facts() {
  nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv
  nvcc --version 2>/dev/null | tail -n2 || /usr/local/cuda/bin/nvcc --version | tail -n2
  cmake --version | head -n1
  ninja --version
  c++ --version | head -n1
  echo "cores: $(nproc)"
  "${PYTHON:-python3}" - <<'EOF'
import os, torch
root = os.path.dirname(torch.__file__)
inc = os.path.join(root, "include")
print("torch", torch.__version__, "cuda", torch.version.cuda, "devices", torch.cuda.device_count(),
      "cxx11abi", torch.compiled_with_cxx11_abi())
print("cmake prefix", torch.utils.cmake_prefix_path)
print("wheel has include/gloo:", os.path.isdir(os.path.join(inc, "gloo")))
am = os.path.join(inc, "ATen", "autocast_mode.h")
text = open(am).read() if os.path.exists(am) else ""
try:
    import nvidia.nccl as n
    print("nccl wheel include:", os.path.join(list(n.__path__)[0], "include"), "torch loads NCCL", torch.cuda.nccl.version())
except Exception as e:
    print("no nvidia-nccl wheel:", e)
print("wheel has c10d/symm_mem:", os.path.isdir(os.path.join(inc, "torch", "csrc", "distributed", "c10d", "symm_mem")))
for name in ("set_autocast_gpu_dtype", "set_autocast_enabled", "set_autocast_dtype", "is_autocast_enabled"):
    print("autocast_mode.h mentions", name + ":", name in text)
EOF
}

say "device-validate: budget $budget s, output in $OUT"
export -f facts
export OUT
# shellcheck disable=SC2016  # expanded by the inner bash
stage facts 30 90 bash -c 'facts >"$OUT/facts.txt" 2>&1; cat "$OUT/facts.txt"'
stage build 300 30 env PYTHON="${PYTHON:-python3}" scripts/build.sh
if [[ -x $build_dir/gpubench ]]; then
  grep -ho -- '-D_GLIBCXX_USE_CXX11_ABI=[01]' "$build_dir/build.ninja" | sort | uniq -c >>"$OUT/facts.txt" || true
  [[ -d .deps/usr ]] && export LD_LIBRARY_PATH="$PWD/.deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  gpubench=$build_dir/gpubench
  ceilings=$OUT/ceilings-gpu.json
  if [[ -x $build_dir/gpubench-bench ]]; then
    # One pass per benchmark (min_time 0.05 s): ceilings to within a few percent, in ~30 s.
    stage ceilings 60 24 "$build_dir/gpubench-bench" '--benchmark_filter=^(copy/|matmul/cuda/|train_step/cuda/)' \
      --benchmark_min_time=0.05 "--ceilings-out=$ceilings"
  fi
  ceilings_flag=""
  [[ -s $ceilings ]] && ceilings_flag="--ceilings '$ceilings'"
  # What the GPU report is for first: the standard workloads, one config per technique.
  standard=resnet50/cuda/fp32/pinned,resnet50/cuda/amp-bf16/pinned,resnet50/cuda/amp-fp16/pinned,resnet50/cuda/tf32/pinned
  standard+=,resnet50/cuda/fp32/pageable,resnet50/cuda/fp32/pinned/channels-last
  standard+=,gpt2/cuda/fp32/pinned,gpt2/cuda/amp-bf16/pinned,gpt2/cuda/amp-fp16/pinned,gpt2/cuda/tf32/pinned
  stage matrix-standard-gpu 150 30 bash -c "'$gpubench' --matrix $standard --preset quick --config-timeout 40 $ceilings_flag --out '$OUT/report-standard-gpu.json' --format markdown >'$OUT/report-standard-gpu.md'; rc=\$?; cat '$OUT/report-standard-gpu.md'; exit \$rc"
  stage matrix-gpu-default 200 18 bash -c "'$gpubench' --matrix gpu --preset default --config-timeout 60 $ceilings_flag --out '$OUT/report-gpu-default.json' --format markdown >'$OUT/report-gpu-default.md'; rc=\$?; cat '$OUT/report-gpu-default.md'; exit \$rc"
  # Per-rank Kineto-style traces for Holistic Trace Analysis, run here afterwards (the GPU
  # machine has no registry): HTA's temporal breakdown against the report's GPU busy share.
  stage hta-traces 40 8 bash -c "'$gpubench' --matrix mlp/cuda/fp32/pinned,cnn/cuda/fp32/pinned --steps 20 --warmup 3 --config-timeout 30 --hta-dir '$OUT/hta' --out '$OUT/report-hta.json' --format markdown"
  # Under Nsight Systems (if this machine has the nsys CLI) gpubench's CUPTI must give way:
  # the row says "unavailable" with the holder named, and NVTX still reaches nsys.
  stage nsys-cupti 45 6 bash -c "command -v nsys >/dev/null || { echo 'nsys-cupti: no nsys on this machine'; exit 0; }; NSYS='$(command -v nsys 2>/dev/null)' GPUBENCH='$gpubench' scripts/nsys-profile.sh --timeout 40 --out-dir '$OUT/nsys' --name cupti -- --matrix mlp/cuda/fp32/pinned --steps 10 --warmup 2 --config-timeout 30 --format json >/dev/null; '${PYTHON:-python3}' -c \"import json; r=json.load(open('$OUT/nsys/cupti.json'))['results'][0]; print('under nsys: cupti', r.get('cupti'))\""
  stage overhead-gpu 60 10 bash -c "'$gpubench' --matrix mlp/cuda/fp32/pinned,cnn/cuda/fp32/pinned --overhead --steps 90 --config-timeout 25 --out '$OUT/report-overhead-gpu.json' --format markdown >'$OUT/report-overhead-gpu.md'; rc=\$?; cat '$OUT/report-overhead-gpu.md'; exit \$rc"
  # end_to_end: the CPU timing tests (compare, ci-perf-check), RUN_SERIAL and CI's already;
  # here they would spend the stage's budget on what needs no GPU.
  # Also left out: the reference-equality and real-data tests (CPU-only, a minute of fp32 GPT-2).
  stage ctest 75 3 bash -c "ctest --test-dir '$build_dir' -j8 -LE 'end_to_end|nsys|reference' -E 'RealData|Gpt2LossFalls' --timeout 70 --output-on-failure >'$OUT/ctest.log' 2>&1; rc=\$?; tail -n 40 '$OUT/ctest.log'; exit \$rc"
  stage matrix-all-quick 400 1 bash -c "'$gpubench' --matrix all --preset quick --config-timeout 45 $ceilings_flag --out '$OUT/report-all-quick.json' --format markdown >'$OUT/report-all-quick.md'; rc=\$?; cat '$OUT/report-all-quick.md'; exit \$rc"
else
  say "no $build_dir/gpubench: skipping tests and matrices"
  failed=1
fi
say "device-validate: done in $(($(date +%s) - start)) s (failed=$failed)"
tee -a "$log" <"$OUT/stages.tsv"
exit $failed
