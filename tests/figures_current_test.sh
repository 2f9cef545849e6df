#!/usr/bin/env bash
# figures_current_test.sh: every committed figure of docs/figures/ is what scripts/figures.sh
# draws from the JSON committed next to it, so a figure cannot drift from its data (or from the
# script's drawing rules). Skips (77) without gnuplot, fails instead under SCOUT_REQUIRE_FIXTURES=1.
set -euo pipefail
source="$(cd "$1" && pwd)"
if ! command -v gnuplot >/dev/null; then
  if [ "${SCOUT_REQUIRE_FIXTURES:-0}" = "1" ]; then
    echo "FAIL: gnuplot is not installed and SCOUT_REQUIRE_FIXTURES=1"
    exit 1
  fi
  echo "SKIP: gnuplot is not installed (apt-get install gnuplot-nox)"
  exit 77
fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$source/scripts/figures.sh" --from "$source/docs/figures" --out "$out" >/dev/null
stale=0
for committed in "$source"/docs/figures/*.svg; do
  name="$(basename "$committed")"
  if [ ! -f "$out/$name" ]; then
    echo "FAIL: docs/figures/$name has no data to draw it from"
    stale=1
  elif ! cmp -s "$committed" "$out/$name"; then
    echo "FAIL: docs/figures/$name differs from a fresh drawing of its JSON"
    stale=1
  fi
done
for drawn in "$out"/*.svg; do
  [ -f "$source/docs/figures/$(basename "$drawn")" ] ||
    { echo "FAIL: docs/figures/$(basename "$drawn") is drawn but not committed"; stale=1; }
done
if [ "$stale" -ne 0 ]; then
  echo "redraw them with: scripts/figures.sh --from docs/figures"
  exit 1
fi
echo "figures: $(ls "$out"/*.svg | wc -l) figures match their data"
