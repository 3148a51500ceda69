#!/usr/bin/env bash
# Builds the installable app from a checkout, in one command:
#   bash scripts/build_installer.sh
# 1. sets up .venv as the README's commands do (scripts/bootstrap.sh setup);
# 2. installs PyInstaller into it (a registry package; nothing else is downloaded);
# 3. freezes the app with build.spec into dist/mmrag-desktop/ (both commands, Qt, llama.cpp,
#    PyMuPDF, torch CPU and the default models);
# 4. checks the bundle: `mmrag --version` and `mmrag-desktop --self-test` (offscreen);
# 5. on Linux, wraps it as dist/mmrag-desktop-VERSION-linux-ARCH.tar.gz (installer/linux/);
#    on macOS use installer/macos/make_dmg.sh, on Windows installer/windows/mmrag-desktop.iss.
# Prints the build time and the sizes; the last line of stdout is the archive (or bundle) path.
# MMRAG_DIST_DIR / MMRAG_BUILD_DIR put the output / PyInstaller's work folder elsewhere.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
pyinstaller_version="6.22.3"
hooks_version="2026.9"
log() { printf '[build] %s\n' "$*" >&2; }
t0=$(date +%s)

bash scripts/bootstrap.sh setup
vpy="${MMRAG_VENV:-$root/.venv}/bin/python"
"$vpy" -c "import PyInstaller" 2>/dev/null || {
  log "installing PyInstaller $pyinstaller_version"
  "$vpy" -m pip install --disable-pip-version-check -q -c scripts/constraints.txt "pyinstaller==$pyinstaller_version" "pyinstaller-hooks-contrib==$hooks_version"
}
# the bundle carries the X11/xcb libraries Qt's window needs from this machine: they must be here
if [ "$(uname)" = "Linux" ] && ! "$vpy" -m mmrag_desktop.ui.platform_libs --force; then
  log "install those packages on this build machine first: the bundle would lack them"; exit 1
fi
t1=$(date +%s)
log "freezing the app (build.spec)"
dist="${MMRAG_DIST_DIR:-$root/dist}"
"$vpy" -m PyInstaller --noconfirm --clean --log-level WARN --distpath "$dist" \
  --workpath "${MMRAG_BUILD_DIR:-$root/build/pyinstaller}" build.spec
t2=$(date +%s)
bundle="$dist/mmrag-desktop"
log "checking the bundle"
"$bundle/mmrag" --version
QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}" "$bundle/mmrag-desktop" --self-test
archive=""
if [ "$(uname)" = "Linux" ]; then
  archive="$(bash installer/linux/make_tarball.sh "$bundle" "$dist")"
fi
t3=$(date +%s)
mb() { du -sm "$1" | cut -f1; }
log "set-up $((t1 - t0)) s, freeze $((t2 - t1)) s, check and archive $((t3 - t2)) s"
log "bundle $bundle: $(mb "$bundle") MB (torch $(mb "$bundle/_internal/torch") MB, models $(mb "$bundle/_internal/models") MB)"
[ -n "$archive" ] && log "archive $archive: $(mb "$archive") MB"
echo "${archive:-$bundle}"
