#!/usr/bin/env bash
# One command for a fresh machine: set up, build, and run the whole matrix on the default
# preset. Arguments are passed to gpubench (e.g. --preset quick, --workload mlp, or a
# --matrix of their own instead of all); relative paths in them are taken from where the
# command is run, and the report goes to ./gpubench-report.json unless they name an --out.
set -euo pipefail
caller=$PWD
cd "$(dirname "$0")/.."
root=$PWD
# Only what the run needs (issue 59): the tests' packages and targets come with
# scripts/run-tests.sh. A build folder the test command configured keeps its tests (only
# gpubench is built here either way), so a later ctest still finds them.
scripts/setup.sh run
build_for=run
grep -qs '^GPUBENCH_BUILD_TESTS:BOOL=ON' build/CMakeCache.txt && build_for=all
BUILD_FOR=$build_for TARGETS=gpubench scripts/build.sh
cd "$caller"
matrix=(--matrix all)
out=(--out gpubench-report.json)
for arg in "$@"; do
  case "$arg" in
    --matrix | --matrix=*) matrix=() ;;
    --out | --out=*) out=() ;;
  esac
done
exec "$root/build/gpubench" "${matrix[@]}" "${out[@]}" "$@"
