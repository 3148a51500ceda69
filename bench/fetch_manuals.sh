#!/usr/bin/env bash
# Fetch the development-set manuals from Debian documentation packages (pinned versions) and
# extract the PDFs the benchmarks use into bench/data/manuals/ (gitignored).
#
#   bash bench/fetch_manuals.sh            # idempotent: skips manuals already present and verified
#
# Total download ~25 MB. Licences (see each package's copyright file, copied next to the PDFs):
#   ngspice-doc  manual.pdf   BSD-3-clause and CC-BY-SA-4.0 and public-domain
#   octave-doc   octave.pdf   GPL-3+ (GNU Octave manual)
#   gnuplot-doc  gnuplot.pdf  gnuplot licence
#   r-doc-pdf    R-*.pdf      GPL-2+ (R manuals)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DATA="$HERE/data"
OUT="$DATA/manuals"
DEBS="$DATA/debs"
mkdir -p "$OUT" "$DEBS"

# package=version  path-inside-package  output-name  sha256-of-output
MANUALS=(
  "ngspice-doc=39.3+ds-1|usr/share/doc/ngspice-doc/manual.pdf.gz|ngspice-manual.pdf|abfaa04e146be731287dc182de216b22c0b4463dea4266fae92a1e51be955da5"
  "octave-doc=7.3.0-2|usr/share/doc/octave/octave.pdf|octave.pdf|ddd24489f87b46fbf99c15cc34aa865ae66775fb7c21927f7f2d6be9470becb8"
  "gnuplot-doc=5.4.4+dfsg1-2|usr/share/doc/gnuplot/gnuplot.pdf|gnuplot.pdf|df68dd0613f043141512fc4436d17aaf96727d5a758d85233915ac5056a97206"
  "r-doc-pdf=4.2.2.20221110-2|usr/share/R/doc/manual/R-intro.pdf|R-intro.pdf|337ccd0b490b1e66f7e783b45f4588d0599730b4206c0c051edfe1419c568c51"
  "r-doc-pdf=4.2.2.20221110-2|usr/share/R/doc/manual/R-admin.pdf|R-admin.pdf|50e256b5f873bbee4c8482df3754fa8654f02ef693409fe5e30b2f114e3efe9f"
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
    echo "fetched  $name"
  else
    echo "WARNING: $name does not match the pinned sha256 (different package build?)" >&2
  fi
done
echo "manuals in $OUT"
