#!/usr/bin/env bash
# Turns the PyInstaller bundle (dist/mmrag-desktop, from build.spec) into the Linux archive:
#   bash installer/linux/make_tarball.sh [DIST_DIR] [OUT_DIR]
# writes OUT_DIR/mmrag-desktop-VERSION-linux-ARCH.tar.gz holding
#   mmrag-desktop-VERSION-linux-ARCH/{app/, install.sh, uninstall.sh, share/, LICENSE, THIRD_PARTY_NOTICES.md, README.txt}
# and prints its path. Users unpack it and run ./install.sh (no root, no network).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dist="${1:-$root/dist/mmrag-desktop}"
out="${2:-$root/dist}"
[ -x "$dist/mmrag-desktop" ] && [ -x "$dist/mmrag" ] || {
  echo "make_tarball.sh: $dist has no mmrag-desktop/mmrag executables: run pyinstaller build.spec first" >&2; exit 1; }
version="$("$dist/mmrag" --version | awk '{print $2}')"
name="mmrag-desktop-$version-linux-$(uname -m)"
stage="$out/$name"
rm -rf "$stage"
mkdir -p "$stage/share/icons"
cp -a "$dist" "$stage/app"
cp "$root/installer/linux/install.sh" "$root/installer/linux/uninstall.sh" "$stage/"
cp "$root/resources/mmrag-desktop.desktop" "$stage/share/"
cp "$root"/mmrag_desktop/resources/icons/mmrag-desktop-*.png "$root/mmrag_desktop/resources/icons/mmrag-desktop.svg" "$stage/share/icons/"
cp "$root/LICENSE" "$root/THIRD_PARTY_NOTICES.md" "$stage/"
cat > "$stage/README.txt" <<TXT
mmrag-desktop $version for Linux ($(uname -m))

Install for your user (no root, no network):   ./install.sh
Somewhere else:                                ./install.sh --prefix /opt/mmrag   (may need sudo)
Then start "mmrag-desktop" from the application menu, or run mmrag-desktop / mmrag.
Check the installed app:                       mmrag-desktop --self-test
Uninstall:                                     ~/.local/lib/mmrag-desktop/uninstall.sh

The window needs Qt's X11 libraries; a minimal system may lack some. install.sh names the
exact packages (on Debian/Ubuntu: sudo apt-get install libxcb-cursor0 libxcb-icccm4
libxcb-keysyms1 libxkbcommon-x11-0). The command line works without them.
Licence: AGPL-3.0-or-later (LICENSE); bundled components: THIRD_PARTY_NOTICES.md.
TXT
tar -C "$out" -czf "$out/$name.tar.gz" "$name"
rm -rf "$stage"
echo "$out/$name.tar.gz"
