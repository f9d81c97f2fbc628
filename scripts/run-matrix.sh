#!/usr/bin/env bash
# One command for a fresh machine: set up, build, and run the whole matrix on the default
# preset. Arguments are passed to gpubench (e.g. --preset quick, --workload mlp).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
# The report goes to gpubench-report.json unless the arguments name another --out.
out=(--out gpubench-report.json)
for arg in "$@"; do case "$arg" in --out|--out=*) out=() ;; esac; done
exec build/gpubench --matrix all "${out[@]}" "$@"
