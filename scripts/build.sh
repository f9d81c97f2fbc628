#!/usr/bin/env bash
# Configures and builds gpubench (Release, Ninja) against the LibTorch inside a pip torch
# (torch.utils.cmake_prefix_path) and the CUDA toolkit: every GPU source is compiled and
# linked on every machine; only running it needs a GPU. Extra arguments go to cmake.
#
#   scripts/build.sh [extra cmake arguments...]
#   Environment: PYTHON (the project's .venv/bin/python from scripts/setup.sh, else python3),
#                CUDA_HOME (/usr/local/cuda), BUILD_DIR (build), JOBS (all cores),
#                TORCH_CUDA_ARCH_LIST (read from nvidia-smi where there is one),
#                TARGETS (space-separated targets to build; default all),
#                BUILD_FOR (run: gpubench alone, without the tests' and benchmarks' targets
#                           and their dependencies; all, the default: everything)
#
# On a machine that cannot install the Debian build dependencies (the lent GPU machine), a
# .deps/ prefix in the project root is used when present (scripts/device-validate.sh prepare).
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-}
if [[ -z $python ]]; then
  python=python3
  [[ -x .venv/bin/python ]] && python=.venv/bin/python
fi
build_dir=${BUILD_DIR:-build}
jobs=${JOBS:-$(nproc)}
cuda_home=${CUDA_HOME:-/usr/local/cuda}
werror=OFF
[[ ${CI:-} == true ]] && werror=ON

die() {
  echo "build: $*" >&2
  exit 2
}

command -v "$python" >/dev/null || die "'$python' not found (run scripts/setup.sh, or set PYTHON to the interpreter that has torch)"
export PYTHONWARNINGS=ignore  # `import torch` warns about a missing numpy, which nothing here needs
# The wheel's root (torch/: lib/, include/) and its CMake configs. The root goes first so
# that TorchConfig's find_library picks torch/lib/libtorch.so, not a system LibTorch
# (Debian's libtorch-dev) that would otherwise come first in the search.
read -r torch_root torch_cmake < <("$python" -c 'import os, torch; print(os.path.dirname(torch.__file__), torch.utils.cmake_prefix_path)' 2>/dev/null) ||
  die "'$python' cannot import torch: run scripts/setup.sh (it installs the pinned torch into .venv)"
[[ -x $cuda_home/bin/nvcc ]] ||
  die "no nvcc under CUDA_HOME=$cuda_home: LibTorch's CMake config needs the CUDA toolkit (CUDA 13) even where no GPU is"

prefix="$torch_root;$torch_cmake"
cxx_flags=""
if [[ -d .deps/usr ]]; then
  # Build dependencies copied from a Debian machine (relocatable CMake configs and libs).
  prefix="$PWD/.deps/usr;$prefix"
  export LD_LIBRARY_PATH="$PWD/.deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  # Header-only dependencies without a CMake config (valijson, Gloo's headers): searched
  # after every other include directory, so nothing in .deps can shadow LibTorch's headers.
  cxx_flags="-idirafter $PWD/.deps/usr/include"
  echo "build: using dependencies from .deps/" >&2
fi

# The wheel's Caffe2 config looks for the toolkit (FindCUDA and CUDAToolkit both).
export PATH="$cuda_home/bin:$PATH"
cmake_args=(-S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=$prefix"
  "-DGPUBENCH_WERROR=$werror" "-DCUDAToolkit_ROOT=$cuda_home" "-DCUDA_TOOLKIT_ROOT_DIR=$cuda_home"
  "-DCMAKE_CUDA_COMPILER=$cuda_home/bin/nvcc" "-DGPUBENCH_PYTHON=$(realpath -s "$(command -v "$python")")")
[[ -n $cxx_flags ]] && cmake_args+=("-DCMAKE_CXX_FLAGS=$cxx_flags")
# Both ways stated each time: a build folder configured for the run alone is widened again by
# the test command, not left without its tests by the cache.
case ${BUILD_FOR:-all} in
  run) cmake_args+=(-DGPUBENCH_BUILD_TESTS=OFF -DGPUBENCH_BUILD_BENCH=OFF) ;;
  all) cmake_args+=(-DGPUBENCH_BUILD_TESTS=ON -DGPUBENCH_BUILD_BENCH=ON) ;;
  *) die "BUILD_FOR='${BUILD_FOR}': expected run or all" ;;
esac
if [[ -z ${TORCH_CUDA_ARCH_LIST:-} ]] && command -v nvidia-smi >/dev/null; then
  # Caffe2's config otherwise probes the GPU itself; nothing here compiles device code.
  arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d ' ' || true)
  [[ -n $arch ]] && export TORCH_CUDA_ARCH_LIST=$arch
fi
# Caffe2's config stops when the wheel was built with cuDNN and finds none: point it at
# torch's own nvidia-cudnn wheel.
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
  # LibTorch was built against the NCCL its wheel pins; an upgraded nvidia-nccl wheel would
  # give a header (and library) torch's own structs were not laid out for.
  "$python" - >&2 <<'PY' || true
import importlib.metadata as md, re
for pin in [r for r in (md.requires("torch") or []) if r.lower().startswith("nvidia-nccl")]:
    name = re.split(r"[=<>!~; ]", pin, maxsplit=1)[0]
    wanted = re.search(r"==\s*([^;, ]+)", pin)
    have = md.version(name)
    if wanted and wanted.group(1) != have:
        print(f"build: warning: torch pins {name}=={wanted.group(1)} but {have} is installed:"
              f" NCCL configs may fail (version check) or misbehave; pip install {name}=={wanted.group(1)}")
PY
else
  echo "build: warning: no nvidia-nccl wheel headers: the toolkit's nccl.h is used (a version mismatch makes NCCL configs fail with the reason)" >&2
fi

# The configure summary (the "-- gpubench:" lines: Torch version, CUDA, toolkit parts) is
# printed; the rest only when cmake fails.
configure_log=$(cmake "${cmake_args[@]}" "$@" 2>&1) || {
  echo "$configure_log" >&2
  die "cmake could not configure $build_dir (its output is above)"
}
grep -E '^-- gpubench:|^CMake Warning' <<<"$configure_log" >&2 || true
targets=()
for t in ${TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build_dir" -j"$jobs" "${targets[@]}"
