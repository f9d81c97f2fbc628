#!/usr/bin/env bash
# The newest torch on PyPI, as a user who runs `pip install torch` today gets it (2.15.0,
# CUDA 13.2, C++20), next to the pinned 2.11 the suite runs on: installs it into its own
# venv (.venv-torch-newest), builds the gpubench target against it on this machine's CUDA
# 13.0 toolkit (build-torch-newest) and runs a short CPU matrix, a DDP config included,
# with it. Exit 0 only when both rows are ok and the report names that torch. run-tests.sh
# (and with it CI) runs it after the suite.
#   scripts/test-newest-torch.sh [venv]   (venv: only make the venv; run-tests.sh does that
#                                          while the suite builds)
#   Environment: NEWEST_TORCH (2.15.0), JOBS (all cores).
set -euo pipefail
cd "$(dirname "$0")/.."
torch_pin=${NEWEST_TORCH:-2.15.0}
venv=.venv-torch-newest
build_dir=build-torch-newest
die() {
  echo "test-newest-torch: $*" >&2
  exit 1
}

source scripts/torch-venv.sh
ensure_torch_venv test-newest-torch "$venv" "$torch_pin" "5 GB"
[[ ${1:-} == venv ]] && exit 0
start=$(date +%s)
PYTHON=$venv/bin/python BUILD_DIR=$build_dir TARGETS=gpubench scripts/build.sh
echo "test-newest-torch: gpubench built against torch $torch_pin in $(($(date +%s) - start)) s" >&2

report=$build_dir/newest-torch-report.json
rm -f "$report"
"$build_dir/gpubench" --matrix mlp/cpu/fp32,mlp/cpu/fp32/ddp-2 --steps 3 --strict --format table --out "$report" ||
  die "the CPU matrix failed with torch $torch_pin (exit $?)"
PYTHONWARNINGS=ignore "$venv/bin/python" - "$report" "$torch_pin" <<'PY' || die "the report is not what torch $torch_pin should give (above)"
import json, sys
report, pin = json.load(open(sys.argv[1])), sys.argv[2]
rows = {r["config_id"]: r["status"] for r in report["results"]}
version = report["env"]["torch_version"]
print(f"test-newest-torch: torch {version}: {rows}")
sys.exit(not (version.split("+")[0] == pin and rows == {"mlp/cpu/fp32": "ok", "mlp/cpu/fp32/ddp-2": "ok"}))
PY

# A TorchScript model exported by the pinned torch (2.11) loads and trains in the build
# against the newest (issue 39): the archive format a user's model crosses versions in.
archive=$build_dir/scripted-2.11-resnet18.pt
PYTHONWARNINGS=ignore .venv/bin/python - "$archive" <<'PY' || die "could not export a scripted resnet18 with the pinned torch"
import sys, torch, torchvision
torch.manual_seed(0)
torch.jit.script(torchvision.models.resnet18()).save(sys.argv[1])
print(f"test-newest-torch: exported {sys.argv[1]} with torch {torch.__version__}")
PY
"$build_dir/gpubench" --model r18="$archive" --input r18=3x64x64 --classes r18=1000 --matrix r18/cpu/fp32 --steps 2 \
  --warmup 1 --batch-size 4 --strict --format table --out "$build_dir/newest-torch-scripted.json" ||
  die "torch $torch_pin could not train the TorchScript archive torch 2.11 exported (exit $?)"
