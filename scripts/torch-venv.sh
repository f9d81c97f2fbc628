# Sourced by scripts/setup.sh and scripts/test-newest-torch.sh: one venv holding one pip
# torch with CUDA 13, made from Debian's python3 (not whatever python3 is first on PATH:
# the venv must not depend on a user's interpreter manager).

# ensure_torch_venv WHO VENV PIN SIZE: leaves VENV with torch==PIN built for CUDA 13.x,
# starting over when it holds another (a +cpu wheel satisfies ==PIN for pip).
ensure_torch_venv() {
  local who=$1 venv=$2 pin=$3 size=$4
  local wanted="import torch, sys; sys.exit(not (torch.__version__.split('+')[0] == '$pin' and (torch.version.cuda or '').startswith('13.')))"
  PYTHONWARNINGS=ignore "$venv/bin/python" -c "$wanted" 2>/dev/null && return 0
  echo "$who: installing torch==$pin (with CUDA 13 and its nvidia-* wheels, ~$size) into $venv" >&2
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "torch==$pin"
}
