#!/usr/bin/env bash
# The one prepared run for a lent GPU machine (../shared/device/README.md). Here, first:
#
#   scripts/device-validate.sh pack      -> .device-pack/ (scripts/device/pack.sh: gpubench,
#       gpubench-bench and the GPU test binaries, built against the same torch 2.11 wheel the
#       GPU machine has, with the libraries it lacks; ~14 MiB)
#   scripts/device-validate.sh prepare   -> .deps/ (the build dependencies, for when the pack
#       cannot be used there and the run builds instead)
#   OUT=/tmp/dv scripts/device-validate.sh   rehearses the run here (every CUDA config skips)
#
# There: run(carry=[".device-pack"], timeout_s=600, command="OUT=$OUT scripts/device-validate.sh").
# The run loads the pack's binaries with that machine's torch (scripts/device/libraries.sh
# checks with ldd that every library resolves) and builds only when one does not, saying so.
# Stages by value, each capped, the plan within BUDGET_S (480) s; printed before it starts:
# facts, ceilings, one config per technique on resnet50 and gpt2, the rest of the GPU matrix,
# the GPU tests, the harness overhead, HTA traces. Reports are rewritten after every config,
# so a stage cut short keeps what it measured. What comes back (at most 8 files, 2 folders):
#   $OUT/log (everything printed: facts, the plan, markdown reports, test output),
#   $OUT/stages.tsv, $OUT/ceilings-gpu.json (+ .benchmark.json), $OUT/report-techniques.json,
#   $OUT/report-gpu.json, $OUT/report-overhead.json (the default mode's cost), $OUT/extras.tar.gz
#   (report-overhead-sync.json: --sync-phases' cost; per-rank traces for Holistic Trace
#   Analysis, run here afterwards, and their report-hta.json).
# Environment: PYTHON (python3: the interpreter whose torch the binaries load), PACK_DIR
#   (.device-pack), BUILD_DIR (build-gpu, when building), BUDGET_S (480).
set -uo pipefail
cd "$(dirname "$0")/.."

if [[ ${1:-} == pack ]]; then
  exec scripts/device/pack.sh
fi
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
budget=${BUDGET_S:-480}
start=$(date +%s)
deadline=$((start + budget))
python=${PYTHON:-python3}
pack=${PACK_DIR:-.device-pack}
failed=0
printf 'stage\texit_code\tseconds\n' >"$OUT/stages.tsv"

say() { echo "== [$(($(date +%s) - start)) s] $*" | tee -a "$log"; }

# stage NAME CAP_S COMMAND...: runs COMMAND (output to the log and the terminal) for at
# most CAP_S seconds and never past the deadline. timeout kills the whole process group,
# gpubench's per-config children included.
stage() {
  local name=$1 cap=$2
  shift 2
  local left limit rc t0
  left=$((deadline - $(date +%s)))
  limit=$((cap < left ? cap : left))
  if ((limit < 5)); then
    say "$name: skipped, no time left (${left} s)"
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

# Each stage's cap in seconds, by value; the plan printed below sums them.
declare -A cap=([facts]=20 [ceilings]=50 [techniques]=212 [gpu-rest]=63 [gpu-tests]=75 [overhead]=25 [overhead-sync]=20 [hta]=15)
say "device-validate: budget $budget s, output in $OUT"
export -f facts
stage facts "${cap[facts]}" bash -c 'facts'

# The binaries: the pack's with this machine's torch, else a build (minutes of the budget).
source scripts/device/libraries.sh
why=$(mktemp)
if [[ -x $pack/bin/gpubench ]] && use_pack "$pack" "$python" 2>"$why"; then
  bin=$pack/bin
  say "binaries: $pack ($(head -n1 "$pack/MANIFEST"), every library resolves)"
  tests=()
  for t in "${gpu_test_binaries[@]}"; do tests+=("$bin/${t##*/}"); done
else
  [[ -x $pack/bin/gpubench ]] || echo "no $pack/bin/gpubench (scripts/device-validate.sh pack makes it)" >>"$why"
  tee -a "$log" <"$why"
  build_dir=${BUILD_DIR:-build-gpu}
  say "binaries: no usable pack at $pack (above: why): building with scripts/build.sh"
  stage build 300 env PYTHON="$python" BUILD_DIR="$build_dir" scripts/build.sh
  [[ -d .deps/usr ]] && export LD_LIBRARY_PATH="$PWD/.deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  bin=$build_dir
  tests=("${gpu_test_binaries[@]/#/$build_dir/}")
fi
gpubench=$bin/gpubench
[[ -x $gpubench ]] || {
  say "no $gpubench: nothing to run"
  exit 1
}

# The plan. One config per technique per large workload first: what only this machine shows.
techniques=()
for t in fp32/pageable fp32/pinned amp-bf16/pinned amp-fp16/pinned tf32/pinned fp32/pinned/graph fp32/pinned/ddp-1; do
  techniques+=("resnet50/cuda/$t" "gpt2/cuda/$t")
done
techniques+=(gpt2/cuda/fp8/pinned)  # against gpt2's amp-bf16 row (fp8_vs_bf16)
# The rest of `--matrix gpu`, the large workloads first.
mapfile -t gpu_all < <("$gpubench" --list --matrix gpu 2>/dev/null | awk '{print $1}' | grep /cuda/)
rest=()
for id in "${gpu_all[@]}"; do [[ $id == resnet50/* || $id == gpt2/* ]] && rest+=("$id"); done
for id in "${gpu_all[@]}"; do [[ $id == resnet50/* || $id == gpt2/* ]] || rest+=("$id"); done
rest_ids=()
for id in "${rest[@]}"; do [[ " ${techniques[*]} " == *" $id "* ]] || rest_ids+=("$id"); done
join() { local IFS=,; echo "$*"; }
technique_s=14 rest_s=12
plan=$(printf '%s\t%s\t%s\n' \
  facts "${cap[facts]}" "" \
  ceilings "${cap[ceilings]}" "copy, matmul, train_step benchmarks" \
  techniques "${cap[techniques]}" "${#techniques[@]} configs, ${technique_s} s each: ${techniques[*]}" \
  gpu-rest "${cap[gpu-rest]}" "${#rest_ids[@]} configs in this order, ${rest_s} s each, as many as fit: ${rest_ids[*]}" \
  gpu-tests "${cap[gpu-tests]}" "${tests[*]##*/}" \
  overhead "${cap[overhead]}" "mlp, cnn: bare vs timers+events+NVTX vs CUPTI steps (the default mode)" \
  overhead-sync "${cap[overhead-sync]}" "mlp, cnn: the same with --sync-phases (the strict mode's cost)" \
  hta "${cap[hta]}" "mlp, cnn traces")
say "plan (stage, seconds, what):"
echo "$plan" | tee -a "$log"
echo "$plan" | awk -F'\t' -v b="$budget" '{s += $2} END {printf "plan total: %d s of the %d s budget\n", s, b}' | tee -a "$log"

ceilings=$OUT/ceilings-gpu.json
stage ceilings "${cap[ceilings]}" "$bin/gpubench-bench" '--benchmark_filter=^(copy/|matmul/cuda/|train_step/cuda/)' \
  --benchmark_min_time=0.05 "--ceilings-out=$ceilings"
ceilings_flag=()
[[ -s $ceilings ]] && ceilings_flag=(--ceilings "$ceilings")
# matrix NAME CAP CONFIG_S OUT_JSON CONFIGS GPUBENCH_ARGS...: one matrix stage, markdown in the log.
matrix() {
  local name=$1 cap=$2 config_s=$3 json=$4 configs=$5
  shift 5
  stage "$name" "$cap" "$gpubench" --matrix "$configs" --config-timeout "$config_s" \
    "${ceilings_flag[@]}" --out "$json" --format markdown "$@"
}
matrix techniques "${cap[techniques]}" "$technique_s" "$OUT/report-techniques.json" "$(join "${techniques[@]}")" --preset quick
((${#rest_ids[@]})) && matrix gpu-rest "${cap[gpu-rest]}" "$rest_s" "$OUT/report-gpu.json" "$(join "${rest_ids[@]}")" --preset quick
gpu_tests() {
  local t rc=0
  for t in "$@"; do "$t" --gtest_brief=1 || rc=1; done
  return $rc
}
export -f gpu_tests
stage gpu-tests "${cap[gpu-tests]}" bash -c 'gpu_tests "$@"' _ "${tests[@]}"
matrix overhead "${cap[overhead]}" 12 "$OUT/report-overhead.json" mlp/cuda/fp32/pinned,cnn/cuda/fp32/pinned --overhead --steps 60
extras=$(mktemp -d)
matrix overhead-sync "${cap[overhead-sync]}" 10 "$extras/report-overhead-sync.json" mlp/cuda/fp32/pinned,cnn/cuda/fp32/pinned --overhead --steps 40 --sync-phases
matrix hta "${cap[hta]}" 10 "$extras/report-hta.json" mlp/cuda/fp32/pinned,cnn/cuda/fp32/pinned --steps 20 --warmup 3 --hta-dir "$extras/traces"
tar -czf "$OUT/extras.tar.gz" -C "$extras" . 2>/dev/null
rm -rf "$extras" "$OUT"/*.tmp.* 2>/dev/null
say "device-validate: done in $(($(date +%s) - start)) s (failed=$failed)"
tee -a "$log" <"$OUT/stages.tsv"
exit $failed
