#!/usr/bin/env bash
# fetch_model_test.sh: scripts/fetch-model.sh fails cleanly without a reachable source (a closed
# 127.0.0.1 port), refuses files whose SHA-256 differs from the pin (a file:// mirror), and
# keeps nothing in either case. No outside network is used.
set -uo pipefail
root="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

out="$(SCOUT_MODEL_BASE_URL=http://127.0.0.1:9 bash "$root/scripts/fetch-model.sh" all-MiniLM-L6-v2 "$work/a" 2>&1)"
code=$?
[ "$code" -eq 3 ] || fail "unreachable source: exit $code, expected 3"
grep -q "could not download config.json" <<<"$out" || fail "unreachable source: no clear message: $out"
[ ! -e "$work/a" ] || fail "unreachable source: something was written"

mirror="$work/mirror/sentence-transformers/all-MiniLM-L6-v2/resolve/1110a243fdf4706b3f48f1d95db1a4f5529b4d41"
mkdir -p "$mirror"
echo '{"not": "the pinned config"}' > "$mirror/config.json"
out="$(SCOUT_MODEL_BASE_URL="file://$work/mirror" bash "$root/scripts/fetch-model.sh" all-MiniLM-L6-v2 "$work/b" 2>&1)"
code=$?
[ "$code" -eq 4 ] || fail "tampered file: exit $code, expected 4: $out"
grep -q "SHA-256 mismatch for config.json" <<<"$out" || fail "tampered file: no clear message: $out"
[ ! -e "$work/b" ] || fail "tampered file: something was kept"

out="$(bash "$root/scripts/fetch-model.sh" no-such-model 2>&1)"
[ $? -eq 2 ] || fail "unknown model: wrong exit code"
grep -q "no pinned files" <<<"$out" || fail "unknown model: no clear message"
echo "3 passed, 0 failed"
