#!/usr/bin/env bash
# Run the desktop app under Xvfb through its main flow and save screenshots in docs/images/.
#   bash scripts/screenshots.sh [MANUAL.pdf ...]
# Needs: Xvfb and the xcb libraries Qt loads:
#   apt-get install -y xvfb libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 \
#     libxcb-render-util0 libxcb-xinerama0 libxcb-xkb1 libxkbcommon-x11-0 libxcb-shape0, the venv from scripts/bootstrap.sh.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
py="${PYTHON:-$here/.venv/bin/python}"
out="${MMRAG_SHOTS_DIR:-$here/docs/images}"
export OMP_WAIT_POLICY=passive HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
unset QT_QPA_PLATFORM
exec xvfb-run -a -s "-screen 0 1440x900x24 -dpi 96" "$py" "$here/scripts/screenshots.py" "$out" "$@"
