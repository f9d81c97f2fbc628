# Sourced: finding the libraries a packed gpubench needs on the machine it runs on
# (scripts/device/pack.sh made the pack; scripts/device-validate.sh uses it).

# The GPU test binaries a device run executes, as paths in a build tree; the pack holds
# them under bin/ by their base names.
gpu_test_binaries=(tests/harness/run/test_gpu_training tests/harness/run/test_gpu_paths)

# torch_library_path PYTHON: torch/lib and the nvidia-* wheels' lib folders of PYTHON's
# torch, ':'-joined (cudart, CUPTI, cuDNN, NCCL, ... come from there, as they do for torch).
torch_library_path() {
  PYTHONWARNINGS=ignore "$1" -c 'import glob, os, torch
root = os.path.dirname(torch.__file__)
print(":".join([os.path.join(root, "lib")] + sorted(glob.glob(os.path.join(os.path.dirname(root), "nvidia", "*", "lib")))))'
}

# pack_unresolved PACK: ldd's complaints (a library or symbol version not found) for each
# binary in PACK/bin, one per line, prefixed with the binary's name; nothing when all resolve.
pack_unresolved() {
  local b
  for b in "$1"/bin/*; do
    ldd "$b" 2>&1 | grep 'not found' | sed "s|^[[:space:]]*|${b##*/}: |"
  done
  return 0
}

# use_pack PACK PYTHON: exports LD_LIBRARY_PATH = PACK/lib, PYTHON's torch folders (and
# PACK/lib-fallback when the system's libstdc++ is older than the binaries need) and checks
# that every library of every packed binary resolves. Returns 1, printing ldd's complaints,
# when one does not: then build on that machine instead.
use_pack() {
  local pack torch_path missing
  pack=$(realpath "$1")
  torch_path=$(torch_library_path "$2") || {
    echo "use_pack: '$2' cannot import torch" >&2
    return 1
  }
  export LD_LIBRARY_PATH="$pack/lib:$torch_path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  missing=$(pack_unresolved "$pack")
  if grep -q 'GLIBCXX\|CXXABI\|GCC_' <<<"$missing"; then
    echo "use_pack: the system's libstdc++ is older than the pack's binaries need: using the pack's own" >&2
    export LD_LIBRARY_PATH="$pack/lib:$pack/lib-fallback:$torch_path${LD_LIBRARY_PATH#"$pack/lib:$torch_path"}"
    missing=$(pack_unresolved "$pack")
  fi
  if [[ -n $missing ]]; then
    echo "$missing" >&2
    return 1
  fi
}
