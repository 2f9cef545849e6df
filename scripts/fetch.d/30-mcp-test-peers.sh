#!/usr/bin/env bash
# 30-mcp-test-peers.sh: installs the pinned MCP peers of the gateway's end-to-end tests (three
# reference backends and the TypeScript SDK client) from tests/e2e/package{,-lock}.json into
# ~/.cache/scout/mcp-peers with `npm ci`. Idempotent: reinstalls only when the lock file changes.
# Without npm it says so and exits 0 (the end-to-end tests then skip themselves).
set -euo pipefail
src="$(cd "$(dirname "$0")/../.." && pwd)/tests/e2e"
dest="${SCOUT_MCP_PEERS:-${XDG_CACHE_HOME:-$HOME/.cache}/scout/mcp-peers}"

# Stock Debian's nodejs comes without npm; NodeSource's bundles it (and conflicts with the
# Debian package), so Debian's npm is installed only when none is there.
if command -v node >/dev/null 2>&1 && ! command -v npm >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 &&
   [ "${SCOUT_SKIP_APT:-0}" != "1" ]; then
  sudo_cmd=""
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi
  $sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends npm >&2 ||
    echo "mcp-peers: could not install npm" >&2
fi
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "mcp-peers: node/npm not found; the gateway end-to-end tests will be skipped" >&2
  exit 0
fi

want=$(sha256sum "$src/package-lock.json" | cut -d' ' -f1)
if [ -f "$dest/.lock-sha256" ] && [ "$(cat "$dest/.lock-sha256")" = "$want" ] &&
   [ -d "$dest/node_modules/@modelcontextprotocol/sdk" ]; then
  exit 0
fi

mkdir -p "$dest"
cp "$src/package.json" "$src/package-lock.json" "$dest/"
rm -f "$dest/.lock-sha256"
echo "mcp-peers: npm ci into $dest" >&2
# npm ci checks every package against the lock file's integrity (SHA-512) hashes.
(cd "$dest" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
echo "$want" > "$dest/.lock-sha256"
