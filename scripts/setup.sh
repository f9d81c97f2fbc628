#!/usr/bin/env bash
# Installs what gpubench needs on Debian 12 (idempotent; run as root or with sudo).
#
#   scripts/setup.sh run    what building and running gpubench needs: the Debian build
#                           dependencies it links, and LibTorch as the pinned PyPI torch wheel
#                           (CUDA 13.0 build, with its nvidia-* libraries) in the project's .venv/
#   scripts/setup.sh [test] that, and what only the tests and the profiling scripts use:
#                           GoogleTest, Google Benchmark, valijson, a one-node Slurm, headless
#                           Chromium, the reference libraries (torchvision, transformers),
#                           Holistic Trace Analysis, and the Nsight Systems CLI in .tools/nsys
#
# The CUDA 13 toolkit (nvcc, cudart, CUPTI, NVTX3) must be at CUDA_HOME (/usr/local/cuda):
# LibTorch's CMake config needs it; without a driver, GPU configs skip with LibTorch's reason.
set -euo pipefail
cd "$(dirname "$0")/.."

purpose=${1:-test}
case "$purpose" in
  run | test) ;;
  *)
    echo "setup: unknown purpose '$purpose': expected 'run' (build and run gpubench) or 'test' (also the test suite's tools)" >&2
    exit 2
    ;;
esac

# The one LibTorch the project builds against, here, in CI and on the GPU machine.
torch_pin=2.11.0
packages=(
  g++ cmake ninja-build git
  python3 python3-venv            # .venv for the torch wheel
  libgloo-dev                     # Gloo's headers for c10d's ProcessGroupGloo (the wheel has none; see harness/parallel/gloo_group.cpp)
  nlohmann-json3-dev libfmt-dev libcli11-dev
  libturbojpeg0-dev libpng-dev    # resnet50's ImageFolder data: JPEG (libjpeg-turbo) and PNG decoding
  libjs-chart.js                  # Chart.js 3, inlined into gpubench report's HTML pages at build time
)
test_packages=(
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  libvalijson-dev                 # JSON Schema validation of reports in the tests
  slurmctld slurmd slurm-client munge   # scripts/slurm-local.sh: a one-node Slurm for the srun/sbatch tests
  iproute2                        # ip netns: the two-host torchrun test
  chromium fonts-liberation       # headless Chromium: the HTML pages' browser tests (and their screenshots' text)
)
[[ $purpose == test ]] && packages+=("${test_packages[@]}")
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  echo "setup: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cuda_home=${CUDA_HOME:-/usr/local/cuda}
if [[ ! -x $cuda_home/bin/nvcc ]]; then
  echo "setup: no CUDA toolkit at CUDA_HOME=$cuda_home (expected bin/nvcc): install the CUDA 13 toolkit there, or set CUDA_HOME" >&2
  exit 2
fi

venv=.venv
source scripts/torch-venv.sh
ensure_torch_venv setup "$venv" "$torch_pin" "4.5 GB"
PYTHONWARNINGS=ignore "$venv/bin/python" -c 'import torch; print(f"setup: torch {torch.__version__} (CUDA {torch.version.cuda}) in .venv")' >&2

# The run needs nothing more: the rest is the tests' and the profiling scripts'.
[[ $purpose == run ]] && exit 0

# The references the standard workloads are proven equal to (tests/workloads/reference_*):
# torchvision's resnet50 (0.26.0 is the release built for torch 2.11) and HF transformers'
# GPT2LMHeadModel (the release the GPU machine has); scripts/reference_loop.py trains them.
# junitparser reads back compare --junit's XML in its test, as a CI server would;
# scripts/plot_report.py draws with matplotlib (it runs itself under .venv: the scripts'
# imports are installed here, with the torch they run beside).
reference_pins=("torchvision==0.26.0" "transformers==5.17.0" "junitparser==5.0.3" "matplotlib==3.11.2")
if ! PYTHONWARNINGS=ignore "$venv/bin/python" -c "import importlib.metadata as m, sys
sys.exit(any(m.version(pin.split('==')[0]) != pin.split('==')[1] for pin in sys.argv[1:]))" "${reference_pins[@]}" 2>/dev/null; then
  echo "setup: installing ${reference_pins[*]} into $venv" >&2
  # torch stays the pinned build: pip must not replace it while resolving these.
  "$venv/bin/pip" install --quiet --disable-pip-version-check "${reference_pins[@]}" "torch==$torch_pin"
fi

# Meta's Holistic Trace Analysis, which reads --hta-dir traces (a test loads them with it).
hta_pin=0.5.0
if ! PYTHONWARNINGS=ignore "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('HolisticTraceAnalysis') != '$hta_pin')" 2>/dev/null; then
  echo "setup: installing HolisticTraceAnalysis==$hta_pin (~450 MB with pandas, plotly, jupyter) into $venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "HolisticTraceAnalysis==$hta_pin"
fi

# The Nsight Systems CLI for scripts/nsys-profile.sh and the nsys-labelled tests.
scripts/install-nsys.sh .tools/nsys
