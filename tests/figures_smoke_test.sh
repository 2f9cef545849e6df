#!/usr/bin/env bash
# figures_smoke_test.sh: scripts/figures.sh turns tiny benchmark JSON (tests/fixtures/figures)
# into three well-formed SVG files with the expected series. Usage: figures_smoke_test.sh SRC_DIR
set -euo pipefail
src="$1"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$src/scripts/figures.sh" --from "$src/tests/fixtures/figures" --out "$out" > /dev/null
for f in quality latency learning; do
  python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$out/$f.svg" ||
    { echo "FAIL: $f.svg is not well-formed XML"; exit 1; }
  grep -q "<svg" "$out/$f.svg" || { echo "FAIL: $f.svg has no <svg>"; exit 1; }
done
grep -q "peer-a" "$out/latency.svg" || { echo "FAIL: latency.svg lacks the peer's series"; exit 1; }
grep -q "dense" "$out/latency.svg" || { echo "FAIL: latency.svg lacks the dense panel"; exit 1; }
grep -q "beta" "$out/quality.svg" || { echo "FAIL: quality.svg lacks a dataset"; exit 1; }
echo "figures smoke: 3 SVGs well-formed"
