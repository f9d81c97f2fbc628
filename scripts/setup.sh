#!/usr/bin/env bash
# Installs everything gpubench needs to build and test on Debian 12 (idempotent; run as
# root or with sudo). The CUDA toolkit is optional: where /usr/local/cuda exists, the GPU
# paths are compiled against it; without a driver they skip with the runtime's reason.
set -euo pipefail
packages=(
  g++ cmake ninja-build git
  libtorch-dev libgloo-dev        # LibTorch 1.13 (CPU) with c10d; Gloo headers for DDP on CPU
  libopenblas0-openmp             # Debian's reference BLAS is ~18x slower for fp32 training
  nlohmann-json3-dev libfmt-dev libcli11-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  libvalijson-dev                 # JSON Schema validation of reports in the tests
  python3 python3-matplotlib      # scripts/plot_report.py
)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  echo "setup: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# OpenBLAS must be the BLAS LibTorch loads (alternatives pick it by priority; say so if not).
blas=$(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3 || true)
case "$blas" in
  *openblas*) ;;
  *) echo "setup: warning: libblas.so.3 resolves to '$blas', not OpenBLAS: CPU fp32 numbers will be slow" >&2 ;;
esac
