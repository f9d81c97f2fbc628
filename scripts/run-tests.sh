#!/usr/bin/env bash
# One command for a fresh machine: set up, build, and run the test suite with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
ctest --test-dir build --output-on-failure -j2 --timeout 900
# The newest torch on PyPI builds and runs too (docs/builds.md).
scripts/test-newest-torch.sh
