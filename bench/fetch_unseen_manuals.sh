#!/usr/bin/env bash
# Fetch the "unseen" manuals (bench/unseen.jsonl: manuals the engine was never tuned on) from
# Debian packages (pinned versions) and extract the PDFs into bench/data/unseen/ (gitignored).
#
#   bash bench/fetch_unseen_manuals.sh     # idempotent: skips manuals already present and verified
#
# Total download ~11 MB, 476 pages. Licences (see each package's copyright file, copied next to
# the PDFs):
#   avr-libc        avr-libc-user-manual.pdf  Modified BSD licence (avr-libc 2.0.0 user manual)
#   avrdude-doc     avrdude.pdf               GPL-2+ (AVRDUDE 7.1 manual)
#   expeyes-doc-en  expeyes-junior.pdf        GFDL-1.3 (no invariant sections; expEYES Junior
#                                             user's manual, en/Docs-jr/eyesj.lyx)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DATA="$HERE/data"
OUT="$DATA/unseen"
DEBS="$DATA/debs"
mkdir -p "$OUT" "$DEBS"

# package=version  path-inside-package  output-name  sha256-of-output
MANUALS=(
  "avr-libc=1:2.0.0+Atmel3.6.2-3|usr/share/doc/avr-libc/avr-libc-user-manual.pdf.gz|avr-libc-user-manual.pdf|4787184a9cdd6c1664efbd2a3f322515a3c528013144d8e3f66021b5de16c3c6"
  "avrdude-doc=7.1+dfsg-3|usr/share/doc/avrdude/avrdude.pdf.gz|avrdude.pdf|da2b3288f8310ecd4b53c14308f25a2acac96e6adf7e24e5769819de221118f3"
  "expeyes-doc-en=4.3-3|usr/share/expeyes/doc/en-eyesj.pdf|expeyes-junior.pdf|166ade592cd14a3c527a7d1bf63e0ce092c79a085e95ea103ac7ecb05ea4277d"
)

verified() {  # verified FILE SHA256 -> 0 when FILE exists with that hash
  [[ -f "$1" ]] && [[ "$(sha256sum "$1" | cut -d' ' -f1)" == "$2" ]]
}

updated=0
for entry in "${MANUALS[@]}"; do
  IFS='|' read -r pkgver inner name sha <<<"$entry"
  if verified "$OUT/$name" "$sha"; then
    echo "ok       $name"
    continue
  fi
  pkg="${pkgver%%=*}"
  ver="${pkgver#*=}"
  # apt-get download writes an epoch "1:" as "1%3a" in the file name
  deb="$(ls "$DEBS/${pkg}_"*.deb 2>/dev/null | head -n1 || true)"
  if [[ -z "$deb" ]]; then
    (
      cd "$DEBS"
      if ! apt-get download "$pkgver" 2>/dev/null; then
        if [[ $updated -eq 0 ]]; then apt-get update -qq; fi
        apt-get download "$pkgver"
      fi
    )
    updated=1
    deb="$(ls "$DEBS/${pkg}_"*.deb | head -n1)"
  fi
  tmp="$(mktemp -d)"
  dpkg-deb -x "$deb" "$tmp"
  if [[ "$inner" == *.gz ]]; then
    gunzip -c "$tmp/$inner" >"$OUT/$name"
  else
    cp "$tmp/$inner" "$OUT/$name"
  fi
  copyright="$(ls "$tmp"/usr/share/doc/"$pkg"/copyright 2>/dev/null | head -n1 || true)"
  [[ -n "$copyright" ]] && cp "$copyright" "$OUT/${pkg}.copyright"
  rm -rf "$tmp"
  if verified "$OUT/$name" "$sha"; then
    echo "fetched  $name ($pkg $ver)"
  else
    echo "WARNING: $name does not match the pinned sha256 (different package build?)" >&2
  fi
done
echo "manuals in $OUT"
