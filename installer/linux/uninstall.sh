#!/usr/bin/env bash
# Removes mmrag-desktop as install.sh put it (the app folder, the commands, the menu entry, the
# icons). Your libraries, settings and models are kept; the paths are printed.
set -euo pipefail
dest="$(cd "$(dirname "$0")" && pwd)"
list="$dest/.installed-files"
[ -f "$list" ] || { echo "uninstall.sh: $list is missing: was this installed with install.sh?" >&2; exit 1; }
while IFS= read -r path; do
  [ -n "$path" ] && [ "$path" != "$dest" ] && rm -f "$path"
done < "$list"
apps=""; while IFS= read -r path; do case "$path" in *.desktop) apps="$(dirname "$path")" ;; esac; done < "$list"
[ -n "$apps" ] && command -v update-desktop-database >/dev/null && update-desktop-database -q "$apps" 2>/dev/null || true
rm -rf "$dest"
echo "mmrag-desktop: removed $dest and its commands, menu entry and icons"
echo "mmrag-desktop: kept your libraries, models and settings (delete them yourself if you want):"
echo "  ${XDG_DATA_HOME:-$HOME/.local/share}/mmrag-desktop     (the default library, your models)"
echo "  ${XDG_CONFIG_HOME:-$HOME/.config}/mmrag-desktop        (settings)"
echo "  ${XDG_CACHE_HOME:-$HOME/.cache}/mmrag-desktop           (rendered pages, regenerable)"
exit 0
