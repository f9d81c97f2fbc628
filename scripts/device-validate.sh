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
# 15 minutes of device time hold the machine's start (1-2) and this one call: stages by
# value, each capped, the caps summing to BUDGET_S (570) s, the plan printed before they
# start: facts (the C library and how the pack resolved first), ceilings, one config per
# technique on resnet50 and gpt2, the sharded modes on one GPU in a cap of their own, stacks (issue 37's ablation group on resnet50 and gpt2:
# the recipes, then their ablations), the built-in llama in a cap of its own, plain PyTorch
# on the same GPU (scripts/reference_loop.py: eager fp32/amp-bf16/amp-fp16, then gpt2
# amp-bf16 under torch.compile with fused Adam), the rest of the GPU matrix, the GPU tests
# (the short path tests first, then a sample of the technique pairs in a cap of their own),
# the harness overhead (CUPTI's cost on the recipes' rows), HTA traces. The rows compared
# with plain PyTorch or with each other run without CUPTI, as the Python rows do; CUPTI's
# cost and its attribution are measured in the overhead stage. Time a stage leaves unused
# goes to the next. Reports are rewritten after every config, so a stage cut short keeps
# what it measured. What comes back (8 files, the most a call returns):
#   $OUT/log (everything printed: facts, the plan, markdown reports, test output),
#   $OUT/stages.tsv, $OUT/ceilings-gpu.json, $OUT/report-techniques.json,
#   $OUT/report-stacks.json, $OUT/python-reference.jsonl (one JSON line per Python row),
#   $OUT/report-gpu.json, $OUT/extras.tar.gz (remade after each stage that adds to it:
#   ceilings-gpu.json.benchmark.json, Google Benchmark's raw output; report-sharded.json;
#   report-llama.json;
#   report-scripted.json; report-overhead.json, the default mode's cost with CUPTI on the
#   recipes' rows; report-overhead-sync.json, --sync-phases' cost; per-rank traces for
#   Holistic Trace Analysis, run here afterwards, and their report-hta.json).
# Afterwards, here: scripts/gpu_vs_python.py DIR prints gpubench's rows over the Python ones.
# Environment: PYTHON (python3: the interpreter whose torch the binaries load and the Python
#   stage runs), PACK_DIR (.device-pack), BUILD_DIR (build-gpu, when building), BUDGET_S (570).
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
budget=${BUDGET_S:-570}
start=$(date +%s)
deadline=$((start + budget))
python=${PYTHON:-python3}
pack=${PACK_DIR:-.device-pack}
failed=0
printf 'stage\texit_code\tseconds\n' >"$OUT/stages.tsv"
# What comes back beside the seven top-level files: tarred into $OUT/extras.tar.gz.
extras=$(mktemp -d)
pack_extras() { tar -czf "$OUT/extras.tar.gz" -C "$extras" . 2>/dev/null; }

say() { echo "== [$(($(date +%s) - start)) s] $*" | tee -a "$log"; }

# The plan's stages in value order and each one's cap in seconds; the caps sum to the budget.
order=(facts ceilings techniques sharded stacks llama python scripted gpu-rest gpu-paths gpu-pairs overhead overhead-sync hta)
declare -A cap=([facts]=15 [ceilings]=35 [techniques]=125 [sharded]=35 [stacks]=55 [llama]=75 [python]=100 [scripted]=15
  [gpu-rest]=5 [gpu-paths]=30 [gpu-pairs]=35 [overhead]=30 [overhead-sync]=8 [hta]=7)

# reserved_after NAME: the caps of the planned stages after NAME; -1 for a stage outside the
# plan (build), which gets its cap alone.
reserved_after() {
  local n found=0 sum=0
  for n in "${order[@]}"; do
    ((found)) && sum=$((sum + cap[$n]))
    [[ $n == "$1" ]] && found=1
  done
  ((found)) && echo "$sum" || echo -1
}

# stage NAME CAP_S COMMAND...: runs COMMAND (output to the log and the terminal) for at
# most its cap plus what earlier stages left unused (the time the later stages' caps do not
# claim), and never past the deadline. The command sees STAGE_DEADLINE (epoch seconds).
# timeout kills the whole process group, gpubench's per-config children included.
stage() {
  local name=$1 stage_cap=$2  # not `cap`: reserved_after reads the global table through bash's dynamic scope
  shift 2
  local left limit rc t0 reserved
  left=$((deadline - $(date +%s)))
  limit=$((stage_cap < left ? stage_cap : left))
  reserved=$(reserved_after "$name")
  ((reserved >= 0 && left - reserved > limit)) && limit=$((left - reserved))
  if ((limit < 5)); then
    say "$name: skipped, no time left (${left} s)"
    printf '%s\tskipped\t0\n' "$name" >>"$OUT/stages.tsv"
    failed=1
    return
  fi
  say "$name (at most $limit s): $*"
  t0=$(date +%s)
  STAGE_DEADLINE=$((t0 + limit)) timeout --kill-after=5 "$limit" "$@" 2>&1 | tee -a "$log"
  rc=$?
  ((rc == 124)) && say "$name: timed out after $limit s"
  say "$name: exit $rc after $(($(date +%s) - t0)) s"
  printf '%s\t%s\t%s\n' "$name" "$rc" "$(($(date +%s) - t0))" >>"$OUT/stages.tsv"
  ((rc != 0)) && failed=1
  return 0
}

# shellcheck disable=SC2317  # called through bash -c (export -f)
facts() {
  # First what decides whether the pack could be used (its binaries need the glibc and
  # libstdc++ symbol versions MANIFEST names): an older host builds instead, for minutes.
  cat "$PACK_RESOLUTION"
  nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv
  nvcc --version 2>/dev/null | tail -n2 || /usr/local/cuda/bin/nvcc --version | tail -n2
  cmake --version | head -n1
  ninja --version
  c++ --version | head -n1
  echo "cores: $(nproc)"
  "${PYTHON:-python3}" - <<'PY'
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
# The Python stage: its references, and Triton, which torch.compile's inductor needs on a GPU.
for module in ("torchvision", "transformers", "triton"):
    try:
        print(module, __import__(module).__version__)
    except Exception as e:
        print("no", module + ":", e)
PY
}

say "device-validate: budget $budget s, output in $OUT"

# The binaries: the pack's with this machine's torch, else a build (minutes of the budget);
# the plan needs them to list configs, so it comes after them, and the facts after the plan.
source scripts/device/libraries.sh
why=$(mktemp)
# How the pack resolved, for the facts stage to print first (and here, before any build).
export PACK_RESOLUTION
PACK_RESOLUTION=$(mktemp)
{
  echo "C library here: $(ldd --version 2>&1 | head -n1)"
  if [[ -f $pack/MANIFEST ]]; then
    grep '^needs ' "$pack/MANIFEST" | sed 's/^/pack /' || echo "pack MANIFEST names no needs (packed before they were recorded)"
  fi
} >"$PACK_RESOLUTION"
if [[ -x $pack/bin/gpubench ]] && use_pack "$pack" "$python" 2>"$why"; then
  bin=$pack/bin
  echo "pack resolution: $pack used ($(head -n1 "$pack/MANIFEST"), every library resolves)" >>"$PACK_RESOLUTION"
  say "binaries: $pack ($(head -n1 "$pack/MANIFEST"), every library resolves)"
  tests=()
  for t in "${gpu_test_binaries[@]}"; do tests+=("$bin/${t##*/}"); done
else
  [[ -x $pack/bin/gpubench ]] || echo "no $pack/bin/gpubench (scripts/device-validate.sh pack makes it)" >>"$why"
  { echo "pack resolution: $pack NOT used, building instead (up to 300 s of the budget):"; sed 's/^/  /' "$why"; } >>"$PACK_RESOLUTION"
  tee -a "$log" <"$PACK_RESOLUTION"
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
# The sharded modes on one GPU (issue 48), in a stage of their own after the techniques: as
# the last rows there, each with a whole-model gather and a 1.5 GB checkpoint round trip,
# the techniques' cap cut them (issue 55, finding 2). Here without the round trip (the CPU
# tests prove it) and beside their own ddp-1 baseline (zero2_vs_ddp, fsdp_vs_ddp). What one
# rank can show: at N=1 NCCL's all-gathers and reduce-scatters are local copies on NCCL's
# stream, so these rows check the caching allocator under freed and re-gathered storage,
# the stream waits and the per-rank memory against the estimate -- not the scaling, nor
# the communication's cost or its overlap, which need two GPUs or more.
sharded_ids=(gpt2/cuda/fp32/pinned/ddp-1 gpt2/cuda/fp32/pinned/zero2-1 gpt2/cuda/fp32/pinned/fsdp-1)
sharded_s=11
# Stacks: issue 37's `ablation` group (recipes, each less one part, each part alone) on the
# large workloads, its CUDA configs only (the group holds CPU ones too), run as ids with
# --workload so the report still records the recipes its ablations are computed from. The
# deepest in each workload's stack first (its parts counted as the id's segments, a precision
# other than fp32 one more): the recipes, then each less one part (what each part buys in
# the stack), the group's order kept within a depth, so a cut stage keeps those.
# A gpubench without the group answers exit 2: the stage records that answer as its failure
# and the run goes on.
stacks_listing=$("$gpubench" --list --matrix ablation --workload resnet50,gpt2 2>&1)
stacks_rc=$?
stacks_ids=()
((stacks_rc == 0)) && mapfile -t stacks_ids < <(awk '$1 ~ /\/cuda\// {print $1}' <<<"$stacks_listing" |
  awk -F/ '{id[NR] = $0; w[NR] = $1; n[NR] = NF + ($3 != "fp32"); if (n[NR] > depth[$1]) depth[$1] = n[NR]}
    END {for (i = 1; i <= NR; i++) printf "%d %d %s\n", depth[w[i]] - n[i], i, id[i]}' | sort -n -k1,1 -k2,2 | cut -d' ' -f3)
# The rest of `--matrix gpu`, the large workloads first.
mapfile -t gpu_all < <("$gpubench" --list --matrix gpu 2>/dev/null | awk '{print $1}' | grep /cuda/)
rest=()
for id in "${gpu_all[@]}"; do [[ $id == resnet50/* || $id == gpt2/* ]] && rest+=("$id"); done
for id in "${gpu_all[@]}"; do [[ $id == resnet50/* || $id == gpt2/* ]] || rest+=("$id"); done
# The built-in llama (Llama-3.2-1B's shape, issue 38) after the recipes and their ablations,
# in a cap of its own, so rows that fail there cost only its cap: its recipe, its FP8 recipe
# its bf16 ckpt row, without the checkpoint round trip (15 GB saved and reloaded
# outlast a config's timeout; issue 47, finding 3).
# Then its FSDP row on one GPU (its estimate's gathered units and reductions against the
# measured peak; built on the host and moved unit by unit, issue 55 finding 8: its start's
# time and that its peak holds no whole fp32 model).
# And the built-in moe's plain amp-bf16 row (issue 57): its experts through the fused
# torch::_grouped_mm (never run on a GPU before; `moe.experts_computed_as` says it ran), the
# load report and its estimate against the measured peak on a GPU.
llama_ids=(llama/cuda/amp-bf16/pinned/graph llama/cuda/fp8/pinned/graph llama/cuda/amp-bf16/pinned/ckpt
  llama/cuda/amp-bf16/pinned/fsdp-1/ckpt moe/cuda/amp-bf16/pinned)
llama_s=15
rest_ids=()
for id in "${rest[@]}"; do
  [[ " ${techniques[*]} ${sharded_ids[*]} ${stacks_ids[*]} ${llama_ids[*]} " == *" $id "* ]] || rest_ids+=("$id")
done
# Plain PyTorch on this GPU, each row at gpubench's CUDA batch (resnet50 256, gpt2 16 x 1024
# tokens), timed as gpubench's CUDA rows (the loop's period): "ARGS|CAP_S", 0 = the rest of
# the stage. Eager rows a process per workload (torch imported once); then what a Python
# user gets at best, nanoGPT's recipe, its compilation timed apart from its steps.
python_rows=("resnet50 --precision amp-bf16,fp32,amp-fp16 --warmup 3 --steps 15|35"
  "gpt2 --precision amp-bf16,fp32,amp-fp16 --warmup 3 --steps 15|40"
  "gpt2 --precision amp-bf16 --compile --adam fused --warmup 3 --steps 20|0")
join() { local IFS=,; echo "$*"; }
technique_s=16 stacks_s=14 rest_s=12
# The GPU tests, the short ones first, each test's result printed as it ends (gtest's own
# printer: --gtest_brief printed nothing of a binary that timeout killed): the paths binary
# (no training), the training binary's short suites, its config runs; then, in a cap of its
# own, the technique pairs (76 CUDA configs and their baselines, minutes in all) sampled.
pairs_test=GpuStacks.EveryLegalCudaPairTrainsAsThePlainConfig
pairs_every=4
short_suites='GpuGraphCapture.*:GpuGradScaler.*:GpuBatchSource.*:GpuMemoryStats.*:GpuStepTiming.*:GpuFp8.Linear*'
paths_test=test_gpu_paths training_test=test_gpu_training
for t in "${tests[@]}"; do
  [[ $t == */test_gpu_paths ]] && paths_test=$t
  [[ $t == */test_gpu_training ]] && training_test=$t
done
gpu_path_runs() {  # one command line a line
  echo "$paths_test --gtest_color=no"
  echo "$training_test --gtest_color=no --gtest_filter=$short_suites"
  echo "$training_test --gtest_color=no --gtest_filter=-$short_suites:$pairs_test"
}
gpu_pair_run() { echo "GPUBENCH_PAIRS_EVERY=$pairs_every $training_test --gtest_color=no --gtest_filter=$pairs_test"; }
# CUPTI's cost where it matters: the recipes' rows, a CUDA Graph's capture with CUPTI attached.
overhead_ids=(gpt2/cuda/amp-bf16/pinned/graph resnet50/cuda/amp-bf16/pinned)
if ((stacks_rc != 0)); then
  stacks_plan="not in this gpubench: --list --matrix ablation answered exit $stacks_rc ($(tail -n1 <<<"$stacks_listing")); recorded as failed, the run goes on"
else
  stacks_plan="${#stacks_ids[@]} CUDA configs of --matrix ablation, deepest stacks first, at most ${stacks_s} s each, as many as fit: ${stacks_ids[*]}"
fi
plan=$(printf '%s\t%s\t%s\n' \
  facts "${cap[facts]}" "" \
  ceilings "${cap[ceilings]}" "copy, matmul, train_step benchmarks" \
  techniques "${cap[techniques]}" "${#techniques[@]} configs, at most ${technique_s} s each: ${techniques[*]}" \
  sharded "${cap[sharded]}" "${#sharded_ids[@]} configs, at most ${sharded_s} s each, --checkpoint-check off: ${sharded_ids[*]} (one rank: NCCL's collectives are local copies; these rows check the allocator, the stream waits and the memory per rank, not the communication's cost or overlap)" \
  stacks "${cap[stacks]}" "$stacks_plan" \
  llama "${cap[llama]}" "${#llama_ids[@]} configs, at most ${llama_s} s each, --checkpoint-check off: ${llama_ids[*]}" \
  python "${cap[python]}" "scripts/reference_loop.py --device cuda, rows (ARGS|cap s, 0 = the rest): $(printf '[%s] ' "${python_rows[@]}")" \
  scripted "${cap[scripted]}" "a TorchScript resnet18 exported here (torch.jit.script): r18/cuda/amp-bf16/pinned and its graph row" \
  gpu-rest "${cap[gpu-rest]}" "${#rest_ids[@]} configs in this order, ${rest_s} s each, as many as fit: ${rest_ids[*]}" \
  gpu-paths "${cap[gpu-paths]}" "$(gpu_path_runs | paste -sd ';' -) (each test's result printed as it ends)" \
  gpu-pairs "${cap[gpu-pairs]}" "$(gpu_pair_run) (every ${pairs_every}th legal CUDA technique pair)" \
  overhead "${cap[overhead]}" "${overhead_ids[*]}: bare vs timers+events+NVTX vs CUPTI steps (the default mode; CUPTI attached through a graph's capture); CUPTI's cost against its 3% and the kernels CUPTI placed by start time, printed" \
  overhead-sync "${cap[overhead-sync]}" "mlp, cnn: bare vs timers vs CUPTI steps with --sync-phases (the strict mode's cost)" \
  hta "${cap[hta]}" "mlp, cnn traces")
say "plan (stage, seconds, what; time a stage leaves unused goes to the next):"
echo "$plan" | tee -a "$log"
echo "$plan" | awk -F'\t' -v b="$budget" '{s += $2} END {printf "plan total: %d s of the %d s budget%s\n", s, b,
  (s > b ? ": the deadline cuts the last stages" : "")}' | tee -a "$log"
export -f facts
stage facts "${cap[facts]}" bash -c 'facts'

ceilings=$OUT/ceilings-gpu.json
stage ceilings "${cap[ceilings]}" "$bin/gpubench-bench" '--benchmark_filter=^(copy/|matmul/cuda/|train_step/cuda/)' \
  --benchmark_min_time=0.05 "--ceilings-out=$ceilings" "--benchmark_out=$extras/ceilings-gpu.json.benchmark.json"
pack_extras
ceilings_flag=()
[[ -s $ceilings ]] && ceilings_flag=(--ceilings "$ceilings")
# matrix NAME CAP CONFIG_S OUT_JSON CONFIGS GPUBENCH_ARGS...: one matrix stage, markdown in the log.
matrix() {
  local name=$1 stage_cap=$2 config_s=$3 json=$4 configs=$5
  shift 5
  stage "$name" "$stage_cap" "$gpubench" --matrix "$configs" --config-timeout "$config_s" \
    "${ceilings_flag[@]}" --out "$json" --format markdown "$@"
}
# The rows compared with plain PyTorch and with each other run without CUPTI, as the Python
# rows do (issue 47, finding 8); the overhead stage measures what CUPTI adds.
matrix techniques "${cap[techniques]}" "$technique_s" "$OUT/report-techniques.json" "$(join "${techniques[@]}")" --preset quick --no-cupti
matrix sharded "${cap[sharded]}" "$sharded_s" "$extras/report-sharded.json" "$(join "${sharded_ids[@]}")" --preset quick \
  --no-cupti --checkpoint-check off
"$python" scripts/device/print_checks.py "$extras/report-sharded.json" 2>&1 | tee -a "$log"  # each rank's estimate against its peak
pack_extras
if ((stacks_rc != 0)); then  # asked again inside the stage: its answer and exit code are the stage's
  stage stacks "${cap[stacks]}" "$gpubench" --list --matrix ablation --workload resnet50,gpt2
elif ((${#stacks_ids[@]} == 0)); then
  stage stacks "${cap[stacks]}" bash -c 'echo "stacks: --matrix ablation lists no CUDA config for resnet50, gpt2" >&2; exit 1'
else
  matrix stacks "${cap[stacks]}" "$stacks_s" "$OUT/report-stacks.json" "$(join "${stacks_ids[@]}")" \
    --workload resnet50,gpt2 --preset quick --no-cupti
fi
matrix llama "${cap[llama]}" "$llama_s" "$extras/report-llama.json" "$(join "${llama_ids[@]}")" --workload llama,moe \
  --preset quick --no-cupti --checkpoint-check off
"$python" scripts/device/print_checks.py "$extras/report-llama.json" 2>&1 | tee -a "$log"
pack_extras

# python_reference PYTHON JSONL "ARGS|CAP_S"...: each row of reference_loop.py on cuda under
# its own cap (0: the rest of the stage), its JSON lines into JSONL and the log. Without a
# device each row is a "skipped" line with torch's reason (exit 0).
# shellcheck disable=SC2317  # called through bash -c (export -f)
python_reference() {
  local python=$1 jsonl=$2 row args row_cap limit rc=0 row_rc
  shift 2
  for row in "$@"; do
    args=${row%|*} row_cap=${row##*|}
    limit=$((STAGE_DEADLINE - $(date +%s)))
    ((row_cap > 0 && row_cap < limit)) && limit=$row_cap
    if ((limit < 5)); then
      echo "python: no time left for [$args]"
      rc=1
      continue
    fi
    echo "python: [$args] at most $limit s"
    # shellcheck disable=SC2086  # ARGS are words
    PYTHONUNBUFFERED=1 timeout --kill-after=5 "$limit" "$python" scripts/reference_loop.py $args --device cuda |
      tee -a "$jsonl"
    row_rc=${PIPESTATUS[0]}
    ((row_rc == 124)) && echo "python: [$args] timed out after $limit s"
    ((row_rc != 0)) && rc=1
  done
  return "$rc"
}
export -f python_reference
stage python "${cap[python]}" bash -c 'python_reference "$@"' _ "$python" "$OUT/python-reference.jsonl" "${python_rows[@]}"
# A user's model as code (issue 39): a scripted resnet18 exported with this machine's torch,
# its amp-bf16 row and the same step captured in a CUDA Graph; into the extras.
# shellcheck disable=SC2317  # called through bash -c (export -f)
scripted_model() {
  local python=$1 gpubench=$2 json=$3 archive
  archive=$(mktemp --suffix=.pt)
  PYTHONWARNINGS=ignore "$python" -c 'import sys, torch, torchvision
torch.manual_seed(0); torch.jit.script(torchvision.models.resnet18()).save(sys.argv[1])' "$archive" || return 1
  "$gpubench" --model r18="$archive" --input r18=3x224x224 --classes r18=1000 --matrix r18/cuda/amp-bf16/pinned,r18/cuda/amp-bf16/pinned/graph \
    --preset quick --config-timeout 12 --out "$json" --format markdown --no-cupti
}
export -f scripted_model
stage scripted "${cap[scripted]}" bash -c 'scripted_model "$@"' _ "$python" "$gpubench" "$extras/report-scripted.json"
pack_extras
((${#rest_ids[@]})) && matrix gpu-rest "${cap[gpu-rest]}" "$rest_s" "$OUT/report-gpu.json" "$(join "${rest_ids[@]}")" --preset quick --no-cupti
# gpu_tests LINE...: each command line in turn (an optional VAR=value, a binary, its flags),
# whatever the one before returned; exit 1 when one failed.
# shellcheck disable=SC2317  # called through bash -c (export -f)
gpu_tests() {
  local line rc=0
  set -f  # the filters' * are gtest's, not the shell's
  for line in "$@"; do
    echo "gpu tests: $line"
    # shellcheck disable=SC2086  # LINE is words
    env $line || rc=1
  done
  return "$rc"
}
export -f gpu_tests
mapfile -t path_runs < <(gpu_path_runs)
stage gpu-paths "${cap[gpu-paths]}" bash -c 'gpu_tests "$@"' _ "${path_runs[@]}"
stage gpu-pairs "${cap[gpu-pairs]}" bash -c 'gpu_tests "$@"' _ "$(gpu_pair_run)"
matrix overhead "${cap[overhead]}" 15 "$extras/report-overhead.json" "$(join "${overhead_ids[@]}")" --overhead --steps 45
"$python" scripts/device/print_checks.py "$extras/report-overhead.json" 2>&1 | tee -a "$log"
pack_extras
matrix overhead-sync "${cap[overhead-sync]}" 10 "$extras/report-overhead-sync.json" mlp/cuda/fp32/pinned,cnn/cuda/fp32/pinned --overhead --steps 40 --sync-phases
pack_extras
matrix hta "${cap[hta]}" 10 "$extras/report-hta.json" mlp/cuda/fp32/pinned,cnn/cuda/fp32/pinned --steps 20 --warmup 3 --hta-dir "$extras/traces"
pack_extras
rm -rf "$extras" "$OUT"/*.tmp.* 2>/dev/null
say "device-validate: done in $(($(date +%s) - start)) s (failed=$failed)"
tee -a "$log" <"$OUT/stages.tsv"
returned=$(find "$OUT" -type f | wc -l)
((returned > 8)) && say "WARNING: $returned files under $OUT: a call returns at most 8"
exit $failed
