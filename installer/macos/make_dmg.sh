#!/usr/bin/env bash
# macOS: the app bundle and a disk image. UNTESTED: no macOS machine was available (installer/README.md).
#   bash installer/macos/make_dmg.sh
# Runs PyInstaller (build.spec makes dist/mmrag-desktop.app on macOS: the window; the command line
# is Contents/MacOS/mmrag inside it), then wraps the .app in dist/mmrag-desktop-VERSION-macos.dmg
# with a link to /Applications. Sign and notarise it before giving it to others:
#   codesign --deep --force --options runtime --sign "Developer ID Application: ..." dist/mmrag-desktop.app
#   xcrun notarytool submit dist/mmrag-desktop-VERSION-macos.dmg --wait ...
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
[ "$(uname)" = "Darwin" ] || { echo "make_dmg.sh: run this on macOS" >&2; exit 1; }
py="${PYTHON:-$root/.venv/bin/python}"
"$py" -m PyInstaller --noconfirm --clean build.spec
app="dist/mmrag-desktop.app"
[ -d "$app" ] || { echo "make_dmg.sh: PyInstaller did not produce $app" >&2; exit 1; }
"$app/Contents/MacOS/mmrag-desktop" --self-test
version="$("$app/Contents/MacOS/mmrag" --version | awk '{print $2}')"
stage="$(mktemp -d)"
cp -R "$app" "$stage/"
ln -s /Applications "$stage/Applications"
hdiutil create -volname "mmrag-desktop $version" -srcfolder "$stage" -ov -format UDZO "dist/mmrag-desktop-$version-macos.dmg"
rm -rf "$stage"
echo "dist/mmrag-desktop-$version-macos.dmg"
