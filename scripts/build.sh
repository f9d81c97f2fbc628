#!/usr/bin/env bash
# Configures and builds gpubench into build/ (Release, Ninja). Extra args go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
werror=OFF; [[ "${CI:-}" == "true" ]] && werror=ON
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUBENCH_WERROR=$werror "$@" >/dev/null
cmake --build build -j"$(nproc)"
