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
# The newest torch's venv (~5 GB of wheels) downloads and unpacks while the suite builds and
# runs: that is the network and the disk, not the cores the build needs.
venv_log=$(mktemp)
# Its own process group (setsid), so that a failed stage ends pip too, not only the script.
setsid scripts/test-newest-torch.sh venv >"$venv_log" 2>&1 &
venv_pid=$!
trap 'kill -- -"$venv_pid" 2>/dev/null || true; rm -f "$venv_log"' EXIT
stage build scripts/build.sh
stage ctest ctest --test-dir build --output-on-failure -j2 --timeout 900
# The newest torch on PyPI builds and runs too (docs/builds.md).
venv_start=$SECONDS
if ! wait "$venv_pid"; then
  cat "$venv_log" >&2
  echo "run-tests: the newest torch's venv could not be made (its output is above)" >&2
  exit 1
fi
echo "run-tests: newest-torch venv (made beside the build) waited for $((SECONDS - venv_start)) s" >&2
stage newest-torch scripts/test-newest-torch.sh
