#!/usr/bin/env bash
# `scripts/device-validate.sh pack`: the binaries a GPU run needs, built here against the
# torch wheel the GPU machine has too (2.11.0+cu130), and the shared libraries they load that
# are neither torch's nor the C library's, in one git-ignored folder the device run carries
# (PACK_DIR, default .device-pack), so the run there spends no minutes compiling.
#
#   PACK_DIR/bin/          gpubench, gpubench-bench, test_gpu_training, test_gpu_paths (no RUNPATH)
#   PACK_DIR/lib/          fmt, Google Benchmark, TurboJPEG, libpng, ... (what ldd resolves here
#                          outside torch, its nvidia-* wheels and glibc)
#   PACK_DIR/lib-fallback/ this machine's libstdc++ and libgcc_s, used there only when the
#                          system's are older than the binaries need (libraries.sh)
#   PACK_DIR/MANIFEST      commit, torch, the newest glibc and libstdc++ symbol versions the
#                          packed files need (an older GPU host builds instead: its run's facts
#                          stage says so first), each file's size
#
# No torch library is packed and the binaries carry no RUNPATH: they load the torch that
# LD_LIBRARY_PATH names (scripts/device/libraries.sh: python3's on the GPU machine).
# Environment: PYTHON (.venv/bin/python), BUILD_DIR (build), PACK_DIR (.device-pack),
#              SKIP_BUILD=1 (pack what BUILD_DIR holds; the tests use it).
set -euo pipefail
cd "$(dirname "$0")/../.."

python=${PYTHON:-.venv/bin/python}
build_dir=${BUILD_DIR:-build}
pack=${PACK_DIR:-.device-pack}
# The working tree (~4 MiB) travels with the pack: 64 MiB in all.
limit_mib=56
source scripts/device/libraries.sh
binaries=(gpubench gpubench-bench "${gpu_test_binaries[@]}")
die() {
  echo "pack: $*" >&2
  exit 2
}

if [[ ${SKIP_BUILD:-} != 1 ]]; then
  PYTHON=$python BUILD_DIR=$build_dir TARGETS="${binaries[*]##*/}" scripts/build.sh
fi
for b in "${binaries[@]}"; do
  [[ -x $build_dir/$b ]] || die "$build_dir/$b was not built (scripts/build.sh, or unset SKIP_BUILD)"
done
export PYTHONWARNINGS=ignore
# Every folder a torch library comes from: these the GPU machine's own torch provides.
torch_path=$(torch_library_path "$python") || die "'$python' cannot import torch"
torch_names=$(tr ':' '\n' <<<"$torch_path" | while read -r d; do ls "$d" 2>/dev/null; done | sort -u)
torch_version=$("$python" -c 'import torch; print(torch.__version__)')

staging="$pack.tmp.$$"
rm -rf "$staging"
trap 'rm -rf "$staging"' EXIT
mkdir -p "$staging/bin" "$staging/lib" "$staging/lib-fallback"
declare -A seen=()
for b in "${binaries[@]}"; do
  cp "$build_dir/$b" "$staging/bin/"
  cmake "-DFILE=$staging/bin/${b##*/}" -P scripts/device/remove-runpath.cmake
  # Resolved with the build's RUNPATH, as the binary ran here.
  while read -r name _ path _; do
    [[ $path == /* && -z ${seen[$name]:-} ]] || continue
    seen[$name]=1
    case $name in
      libc.so.* | libm.so.* | libdl.so.* | librt.so.* | libpthread.so.* | libutil.so.* | ld-linux* | libresolv.so.*) continue ;;
      libstdc++.so.* | libgcc_s.so.*) cp -L "$path" "$staging/lib-fallback/$name" ;;
      *) grep -qxF "$name" <<<"$torch_names" || cp -L "$path" "$staging/lib/$name" ;;
    esac
  done < <(ldd "$build_dir/$b" | grep '=>')
done
# newest_version PREFIX: the newest symbol version of PREFIX (GLIBC_, GLIBCXX_) a packed
# binary or library needs from the system; the lib-fallback libraries bring their own.
newest_version() {
  find "$staging/bin" "$staging/lib" -type f -exec objdump -T {} + 2>/dev/null | grep -o "$1[0-9.]*[0-9]" | sort -uV | tail -n1
}
{
  echo "commit $(git describe --always --dirty 2>/dev/null || echo unknown)"
  echo "torch $torch_version (built against; the GPU machine's must be the same build)"
  echo "needs glibc $(newest_version GLIBC_ | sed 's/GLIBC_//') (ldd --version there), $(newest_version GLIBCXX_) (else lib-fallback's libstdc++)"
  echo "packed $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  (cd "$staging" && find bin lib lib-fallback -type f -printf '%s\t%p\n' | sort -k2)
} >"$staging/MANIFEST"
size_mib=$(du -sm "$staging" | cut -f1)
((size_mib <= limit_mib)) || die "the pack is $size_mib MiB, over the $limit_mib MiB it may take of the 64 MiB carry"
rm -rf "$pack"
mv "$staging" "$pack"
trap - EXIT
echo "pack: $pack ($size_mib MiB, torch $torch_version): $(ls "$pack/bin" | tr '\n' ' ')" >&2
echo "pack: carry it: run(carry=[\"$pack\"], command=\"OUT=\$OUT scripts/device-validate.sh\")" >&2
