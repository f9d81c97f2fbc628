#!/usr/bin/env bash
# One command for a fresh machine: set up, build, and run the whole matrix on the default
# preset. Arguments are passed to gpubench (e.g. --preset quick, --workload mlp).
set -euo pipefail
cd "$(dirname "$0")/.."
# Only what the run needs (issue 59): the tests' packages and targets come with
# scripts/run-tests.sh.
scripts/setup.sh run
BUILD_FOR=run TARGETS=gpubench scripts/build.sh
# The report goes to gpubench-report.json unless the arguments name another --out.
out=(--out gpubench-report.json)
for arg in "$@"; do case "$arg" in --out|--out=*) out=() ;; esac; done
exec build/gpubench --matrix all "${out[@]}" "$@"
