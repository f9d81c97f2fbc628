#!/usr/bin/env bash
# Builds gpubench against the LibTorch inside your pip-installed torch: on a machine with a
# GPU this is the way to a gpubench that runs the CUDA configurations (Debian's libtorch-dev
# is CPU-only). Result: build-gpu/gpubench.
#
#   scripts/build-with-pip-torch.sh [--lean] [extra cmake arguments...]
#     --lean   gpubench and its test suite only (no microbenchmarks)
#   Environment: PYTHON (python3), CUDA_HOME (/usr/local/cuda), BUILD_DIR (build-gpu),
#                JOBS (all cores), TORCH_CUDA_ARCH_LIST (read from nvidia-smi when unset)
#
# Needs: a torch wheel with CUDA (pip install torch), the CUDA toolkit its CMake config
# asks for (nvcc, cudart, CUPTI), CMake >= 3.22, Ninja, a C++17 compiler, and fmt,
# nlohmann-json, CLI11, GoogleTest (+ Google Benchmark without --lean). On a machine that
# cannot install those, a .deps/ prefix in the project root is used when present
# (../shared/device/README.md; scripts/device-validate.sh prepare makes one).
set -euo pipefail
cd "$(dirname "$0")/.."

lean=0
if [[ ${1:-} == --lean ]]; then
  lean=1
  shift
fi
python=${PYTHON:-python3}
build_dir=${BUILD_DIR:-build-gpu}
jobs=${JOBS:-$(nproc)}
cuda_home=${CUDA_HOME:-/usr/local/cuda}

die() {
  echo "build-with-pip-torch: $*" >&2
  exit 2
}

command -v "$python" >/dev/null || die "'$python' not found (set PYTHON to the interpreter that has torch)"
torch_prefix=$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null) ||
  die "'$python' cannot import torch: pip install torch (a CUDA build) first"
read -r torch_version torch_cuda < <("$python" -c 'import torch; print(torch.__version__, torch.version.cuda)')
echo "build-with-pip-torch: torch $torch_version (CUDA $torch_cuda) at $torch_prefix" >&2
[[ $torch_cuda == None ]] && echo "build-with-pip-torch: warning: this torch has no CUDA: gpubench will be CPU-only" >&2

prefix=$torch_prefix
cxx_flags=""
if [[ -d .deps/usr ]]; then
  # Build dependencies copied from a Debian machine (relocatable CMake configs and libs).
  prefix="$PWD/.deps/usr;$prefix"
  export LD_LIBRARY_PATH="$PWD/.deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  # Header-only dependencies without a CMake config (valijson): searched after every other
  # include directory, so nothing in .deps can shadow LibTorch's own headers.
  cxx_flags="-idirafter $PWD/.deps/usr/include"
  echo "build-with-pip-torch: using dependencies from .deps/" >&2
fi

cmake_args=(-S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=$prefix")
[[ -n $cxx_flags ]] && cmake_args+=("-DCMAKE_CXX_FLAGS=$cxx_flags")
if [[ -x $cuda_home/bin/nvcc ]]; then
  # The wheel's Caffe2 config looks for the toolkit (FindCUDA and CUDAToolkit both).
  export PATH="$cuda_home/bin:$PATH"
  cmake_args+=("-DCUDAToolkit_ROOT=$cuda_home" "-DCUDA_TOOLKIT_ROOT_DIR=$cuda_home" "-DCMAKE_CUDA_COMPILER=$cuda_home/bin/nvcc")
else
  echo "build-with-pip-torch: warning: no nvcc under CUDA_HOME=$cuda_home: torch's CMake config may not find CUDA" >&2
fi
if [[ -z ${TORCH_CUDA_ARCH_LIST:-} ]] && command -v nvidia-smi >/dev/null; then
  # Caffe2's config otherwise probes the GPU itself; nothing here compiles device code.
  arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d ' ' || true)
  [[ -n $arch ]] && export TORCH_CUDA_ARCH_LIST=$arch
fi
((lean)) && cmake_args+=(-DGPUBENCH_BUILD_BENCH=OFF)
# Caffe2's config stops when the wheel was built with cuDNN and finds none: point it at
# torch's own nvidia-cudnn wheel (unused, and harmless, where the config does not ask).
cudnn_root=$("$python" -c 'import nvidia.cudnn as c; print(list(c.__path__)[0])' 2>/dev/null || true)
if [[ -n $cudnn_root && -f $cudnn_root/include/cudnn.h ]]; then
  cudnn_lib=$(find "$cudnn_root/lib" -maxdepth 1 -name 'libcudnn.so*' 2>/dev/null | sort | head -n1)
  [[ -n $cudnn_lib ]] && cmake_args+=("-DCUDNN_INCLUDE_PATH=$cudnn_root/include" "-DCUDNN_LIBRARY_PATH=$cudnn_lib")
fi
# c10d's NCCL header must see the nccl.h of the NCCL torch loads (its nvidia-nccl wheel),
# not whatever the toolkit ships (cmake/GpubenchFeatures.cmake says why).
nccl_include=$("$python" -c 'import os, nvidia.nccl as n; print(os.path.join(list(n.__path__)[0], "include"))' 2>/dev/null || true)
if [[ -f $nccl_include/nccl.h ]]; then
  cmake_args+=("-DGPUBENCH_NCCL_INCLUDE_DIR=$nccl_include")
  echo "build-with-pip-torch: nccl.h from $nccl_include; torch loads NCCL $("$python" -c 'import torch; print(".".join(map(str, torch.cuda.nccl.version())))' 2>/dev/null || echo '?')" >&2
  # LibTorch was built against the NCCL its wheel pins; an upgraded nvidia-nccl wheel would
  # give a header (and library) torch's own structs were not laid out for.
  "$python" - >&2 <<'PY' || true
import importlib.metadata as md, re
for pin in [r for r in (md.requires("torch") or []) if r.lower().startswith("nvidia-nccl")]:
    name = re.split(r"[=<>!~; ]", pin, maxsplit=1)[0]
    wanted = re.search(r"==\s*([^;, ]+)", pin)
    have = md.version(name)
    if wanted and wanted.group(1) != have:
        print(f"build-with-pip-torch: warning: torch pins {name}=={wanted.group(1)} but {have} is installed:"
              f" NCCL configs may fail (version check) or misbehave; pip install {name}=={wanted.group(1)}")
PY
elif [[ $torch_cuda != None ]]; then
  echo "build-with-pip-torch: warning: no nvidia-nccl wheel headers: the toolkit's nccl.h is used (a version mismatch makes NCCL configs fail with the reason)" >&2
fi

cmake "${cmake_args[@]}" "$@"
grep -E '^(TORCH_CXX_FLAGS|Torch_DIR|CUDAToolkit_NVCC_EXECUTABLE)' "$build_dir/CMakeCache.txt" >&2 || true
# -k 0: one target that does not compile against this LibTorch (say, the benchmarks) must
# not keep gpubench and its tests from being built; the script still fails at the end.
cmake --build "$build_dir" -j"$jobs" -- -k 0
echo "build-with-pip-torch: built $build_dir/gpubench" >&2
