#!/usr/bin/env bash
# Installs mmrag-desktop for the current user (no root, no network, no compiler).
#   ./install.sh                  # into ~/.local (app in ~/.local/lib/mmrag-desktop)
#   ./install.sh --prefix DIR     # into DIR/lib, DIR/bin, DIR/share
# Puts the `mmrag-desktop` and `mmrag` commands in PREFIX/bin, the .desktop file (so the
# application menu and a file manager's "Open with" find it) and the icons in PREFIX/share.
# Running it again upgrades in place. PREFIX/lib/mmrag-desktop/uninstall.sh removes it all.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
prefix="${HOME}/.local"
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="${2:?--prefix needs a folder}"; shift 2 ;;
    --prefix=*) prefix="${1#--prefix=}"; shift ;;
    -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ -x "$here/app/mmrag-desktop" ] || { echo "install.sh: $here/app/mmrag-desktop is missing: unpack the whole archive" >&2; exit 1; }
prefix="$(mkdir -p "$prefix" && cd "$prefix" && pwd)"
dest="$prefix/lib/mmrag-desktop"
bin="$prefix/bin"
apps="$prefix/share/applications"
icons="$prefix/share/icons/hicolor"

say() { printf 'mmrag-desktop: %s\n' "$*"; }

# 1. the app folder: copied next to the old one, then swapped, so a failed copy leaves the old install
mkdir -p "$prefix/lib" "$bin" "$apps"
rm -rf "$dest.new"
cp -a "$here/app" "$dest.new"
cp "$here/uninstall.sh" "$dest.new/uninstall.sh"
chmod +x "$dest.new/uninstall.sh"
rm -rf "$dest.old"
[ -e "$dest" ] && mv "$dest" "$dest.old"
mv "$dest.new" "$dest"
rm -rf "$dest.old"
installed=("$dest")

# 2. the commands
for cmd in mmrag-desktop mmrag; do
  ln -sfn "$dest/$cmd" "$bin/$cmd"
  installed+=("$bin/$cmd")
done

# 3. the menu entry ("Open with" passes the files: Exec ... %F) and the icons
sed -e "s|^Exec=.*|Exec=\"$dest/mmrag-desktop\" %F|" -e "s|^TryExec=.*||" \
    "$here/share/mmrag-desktop.desktop" > "$apps/mmrag-desktop.desktop"
printf 'TryExec=%s\n' "$dest/mmrag-desktop" >> "$apps/mmrag-desktop.desktop"
installed+=("$apps/mmrag-desktop.desktop")
for png in "$here"/share/icons/mmrag-desktop-*.png; do
  size="$(basename "$png" .png)"; size="${size##*-}"
  mkdir -p "$icons/${size}x${size}/apps"
  cp "$png" "$icons/${size}x${size}/apps/mmrag-desktop.png"
  installed+=("$icons/${size}x${size}/apps/mmrag-desktop.png")
done
mkdir -p "$icons/scalable/apps"
cp "$here/share/icons/mmrag-desktop.svg" "$icons/scalable/apps/mmrag-desktop.svg"
installed+=("$icons/scalable/apps/mmrag-desktop.svg")
printf '%s\n' "${installed[@]}" > "$dest/.installed-files"

command -v update-desktop-database >/dev/null && update-desktop-database -q "$apps" 2>/dev/null || true
command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$icons" 2>/dev/null || true

say "installed in $dest"
say "commands: $bin/mmrag-desktop (the window), $bin/mmrag (the command line)"
case ":$PATH:" in *":$bin:"*) ;; *) say "note: $bin is not on your PATH; add it, or start $bin/mmrag-desktop" ;; esac
# 4. the window needs a few system libraries a minimal Linux lacks; name them now, not at first start
if ! "$dest/mmrag-desktop" --check-libraries; then
  say "the command line works now; the window opens once those packages are installed"
fi
say "uninstall: $dest/uninstall.sh"
