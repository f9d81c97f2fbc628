#!/usr/bin/env bash
# One command for a fresh machine: set up, build, and run the test suite with ctest.
# Each stage's wall time is printed as it ends ("run-tests: build 1234 s"), so a CI log says
# where its time went (docs/builds.md keeps the last measured split).
set -euo pipefail
cd "$(dirname "$0")/.."
stage() {  # NAME COMMAND...: runs COMMAND, then prints how long it took
  local name=$1 start=$SECONDS
  shift
  "$@"
  echo "run-tests: $name $((SECONDS - start)) s" >&2
}
stage setup scripts/setup.sh
stage build scripts/build.sh
stage ctest ctest --test-dir build --output-on-failure -j2 --timeout 900
# The newest torch on PyPI builds and runs too (docs/builds.md).
stage newest-torch scripts/test-newest-torch.sh
