#!/usr/bin/env bash
# 40-typescript.sh: installs the pinned TypeScript compiler that checks the Node.js package's
# types (bindings/node/index.d.ts, ctest node:types) from bindings/node/types/package{,-lock}.json
# into ~/.cache/scout/typescript with `npm ci` (which checks the lock file's SHA-512). Idempotent:
# reinstalls only when the lock file changes. Without npm it says so and exits 0 (the test is
# then not registered).
set -euo pipefail
src="$(cd "$(dirname "$0")/../.." && pwd)/bindings/node/types"
dest="${SCOUT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/scout}/typescript"

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "typescript: node/npm not found; the Node.js package's types are not checked" >&2
  exit 0
fi
want=$(sha256sum "$src/package-lock.json" | cut -d' ' -f1)
if [ -f "$dest/.lock-sha256" ] && [ "$(cat "$dest/.lock-sha256")" = "$want" ] &&
   [ -x "$dest/node_modules/.bin/tsc" ]; then
  exit 0
fi
mkdir -p "$dest"
cp "$src/package.json" "$src/package-lock.json" "$dest/"
rm -f "$dest/.lock-sha256"
echo "typescript: npm ci into $dest" >&2
(cd "$dest" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
echo "$want" > "$dest/.lock-sha256"
