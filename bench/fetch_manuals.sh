#!/usr/bin/env bash
# Fetch the benchmark manuals from Debian documentation packages (pinned versions) and extract the
# PDFs the benchmarks use (gitignored).
#
#   bash bench/fetch_manuals.sh            # the development/held-out manuals -> bench/data/manuals/
#   bash bench/fetch_manuals.sh unseen     # the unseen-manuals set (bench/unseen.jsonl) -> bench/data/unseen/
#   bash bench/fetch_manuals.sh heldout2   # held-out set 2 (bench/heldout2.jsonl) -> bench/data/heldout2/
# Idempotent: skips manuals already present and verified.
#
# Development/held-out, ~25 MB. Licences (see each package's copyright file, copied next to the PDFs):
#   ngspice-doc  manual.pdf   BSD-3-clause and CC-BY-SA-4.0 and public-domain
#   octave-doc   octave.pdf   GPL-3+ (GNU Octave manual)
#   gnuplot-doc  gnuplot.pdf  gnuplot licence
#   r-doc-pdf    R-*.pdf      GPL-2+ (R manuals)
# Unseen (manuals the engine was never tuned on), ~11 MB, 476 pages:
#   avr-libc        avr-libc-user-manual.pdf  Modified BSD licence (avr-libc 2.0.0 user manual)
#   avrdude-doc     avrdude.pdf               GPL-2+ (AVRDUDE 7.1 manual)
#   expeyes-doc-en  expeyes-junior.pdf        GFDL-1.3 (no invariant sections; expEYES Junior
#                                             user's manual, en/Docs-jr/eyesj.lyx)
# Held-out set 2 (four more manuals never used before), ~4 MB, 594 pages:
#   yosys-doc  yosys-manual.pdf     ISC (Yosys manual, yosys 0.23)
#   nut-doc    nut-user-manual.pdf  GPL-2+ (Network UPS Tools 2.8.0 user manual)
#   sdcc-doc   sdccman.pdf          GPL-2+ (SDCC 4.2.0 compiler user guide)
#   simh       simh-pdp11.pdf       MIT-style "Supnik licence" (SIMH 3.8 PDP-11 simulator usage)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DATA="$HERE/data"
DEBS="$DATA/debs"

# package=version  path-inside-package  output-name  sha256-of-output
case "${1:-dev}" in
  dev)
    OUT="$DATA/manuals"
    MANUALS=(
      "ngspice-doc=39.3+ds-1|usr/share/doc/ngspice-doc/manual.pdf.gz|ngspice-manual.pdf|abfaa04e146be731287dc182de216b22c0b4463dea4266fae92a1e51be955da5"
      "octave-doc=7.3.0-2|usr/share/doc/octave/octave.pdf|octave.pdf|ddd24489f87b46fbf99c15cc34aa865ae66775fb7c21927f7f2d6be9470becb8"
      "gnuplot-doc=5.4.4+dfsg1-2|usr/share/doc/gnuplot/gnuplot.pdf|gnuplot.pdf|df68dd0613f043141512fc4436d17aaf96727d5a758d85233915ac5056a97206"
      "r-doc-pdf=4.2.2.20221110-2|usr/share/R/doc/manual/R-intro.pdf|R-intro.pdf|337ccd0b490b1e66f7e783b45f4588d0599730b4206c0c051edfe1419c568c51"
      "r-doc-pdf=4.2.2.20221110-2|usr/share/R/doc/manual/R-admin.pdf|R-admin.pdf|50e256b5f873bbee4c8482df3754fa8654f02ef693409fe5e30b2f114e3efe9f"
    ) ;;
  unseen)
    OUT="$DATA/unseen"
    MANUALS=(
      "avr-libc=1:2.0.0+Atmel3.6.2-3|usr/share/doc/avr-libc/avr-libc-user-manual.pdf.gz|avr-libc-user-manual.pdf|4787184a9cdd6c1664efbd2a3f322515a3c528013144d8e3f66021b5de16c3c6"
      "avrdude-doc=7.1+dfsg-3|usr/share/doc/avrdude/avrdude.pdf.gz|avrdude.pdf|da2b3288f8310ecd4b53c14308f25a2acac96e6adf7e24e5769819de221118f3"
      "expeyes-doc-en=4.3-3|usr/share/expeyes/doc/en-eyesj.pdf|expeyes-junior.pdf|166ade592cd14a3c527a7d1bf63e0ce092c79a085e95ea103ac7ecb05ea4277d"
    ) ;;
  heldout2)
    OUT="$DATA/heldout2"
    MANUALS=(
      "yosys-doc=0.23-6|usr/share/doc/yosys/manual.pdf|yosys-manual.pdf|bdc348b5b8e36505ca448f407841551615b66f995e4f718bd80fc386a487661c"
      "nut-doc=2.8.0-7|usr/share/doc/nut-doc/pdf/user-manual.pdf|nut-user-manual.pdf|f604fa3ab839872da646c8aa2ff4870b88e9e001611f711d8852d937f02c512f"
      "sdcc-doc=4.2.0+dfsg-1|usr/share/doc/sdcc-doc/sdccman.pdf.gz|sdccman.pdf|8887f9fd940ee8aabe9429c28b53f264669f5c2c406688baf4b3d6c49438b2fb"
      "simh=3.8.1-6.1|usr/share/doc/simh/pdp11_doc.pdf|simh-pdp11.pdf|0f56979fbb098da73d6eab3becdf6a675b768fc0ca62acadd924e1aeb3dff39b"
    ) ;;
  *) echo "usage: bash bench/fetch_manuals.sh [dev|unseen|heldout2]" >&2; exit 2 ;;
esac
mkdir -p "$OUT" "$DEBS"

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
