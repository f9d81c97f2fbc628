#!/usr/bin/env bash
# One command for a fresh machine: set up, build, and run the whole matrix on the default
# preset. Arguments are passed to gpubench (e.g. --preset quick, --workload mlp).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
exec build/gpubench --matrix all --out gpubench-report.json "$@"
