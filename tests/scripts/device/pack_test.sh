#!/usr/bin/env bash
# scripts/device/pack.sh end to end (ctest device_pack_*): the pack of an existing build is
# under its size limit, its binaries carry no RUNPATH, resolve torch only through the
# LD_LIBRARY_PATH that scripts/device/libraries.sh builds from a Python's torch, and run
# CPU configs (DDP ranks included) from the pack's folder alone.
#   pack_test.sh SOURCE_DIR BUILD_DIR PYTHON
set -uo pipefail
source_dir=$1 build_dir=$2 python=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
check() {  # check WHAT COMMAND...: runs COMMAND, counts a failure when it fails
  local what=$1
  shift
  if "$@"; then echo "ok: $what"; else echo "FAILED: $what"; failures=$((failures + 1)); fi
}

pack=$tmp/pack
SKIP_BUILD=1 BUILD_DIR=$build_dir PACK_DIR=$pack PYTHON=$python "$source_dir/scripts/device/pack.sh" || exit 1
check "the four binaries are packed" test "$(ls "$pack/bin" | wc -l)" -eq 4
check "no packed binary has a RUNPATH" bash -c "! for b in '$pack'/bin/*; do readelf -d \"\$b\"; done | grep -q 'RUNPATH\|RPATH'"
check "no torch library is packed" bash -c "! ls '$pack/lib' | grep -q 'torch\|c10\|nccl\|cudart'"
check "the pack is under 56 MiB" test "$(du -sm "$pack" | cut -f1)" -le 56
# What an older GPU host lacks, said up front there (issue 47, finding 13).
check "MANIFEST names the glibc and libstdc++ versions the binaries need" \
  grep -qE '^needs glibc 2\.[0-9]+ .*GLIBCXX_3\.4\.[0-9]+' "$pack/MANIFEST"

# Without torch on LD_LIBRARY_PATH nothing finds it: the pack has no path of this build.
check "without LD_LIBRARY_PATH libtorch is not found" bash -c "ldd '$pack/bin/gpubench' | grep -q 'libtorch.so => not found'"
source "$source_dir/scripts/device/libraries.sh"
check "a Python without torch is refused" bash -c "source '$source_dir/scripts/device/libraries.sh'; ! use_pack '$pack' /usr/bin/false 2>/dev/null"
use_pack "$pack" "$python" || { echo "FAILED: use_pack"; exit 1; }
torch_lib=$(torch_library_path "$python" | cut -d: -f1)
check "libtorch comes from the Python's torch" bash -c "ldd '$pack/bin/gpubench' | grep -q 'libtorch.so => $torch_lib/libtorch.so'"
check "fmt comes from the pack" bash -c "ldd '$pack/bin/gpubench' | grep -q 'libfmt.so.9 => $(realpath "$pack")/lib/libfmt.so.9'"

cd "$tmp" || exit 1
check "the packed gpubench runs a CPU config and DDP ranks" \
  "$pack/bin/gpubench" --matrix mlp/cpu/fp32,mlp/cpu/fp32/ddp-2 --steps 3 --warmup 1 --threads 1 --strict --format json --out "$tmp/report.json"
check "both rows are ok" bash -c "[[ \$(grep -o '\"status\": *\"ok\"' '$tmp/report.json' | wc -l) -eq 2 ]]"
check "the packed GPU tests load (and skip without a device)" "$pack/bin/test_gpu_training" --gtest_brief=1
check "the packed gpubench-bench loads" bash -c "'$pack/bin/gpubench-bench' --benchmark_list_tests | grep -q '^copy/'"
((failures == 0)) || { echo "$failures check(s) failed"; exit 1; }
