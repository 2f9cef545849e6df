#!/usr/bin/env bash
# fetch_npm.sh: fetches the MCP server packages of training/npm-packages.txt with `npm pack`
# into DIR (once; later runs reuse them) and checks each tarball's SHA-256 against its pin, so
# the model trains on the same bytes every time. A mismatch is an error, never a silent change.
#   training/fetch_npm.sh DIR
set -euo pipefail
list="$(dirname "$0")/npm-packages.txt"
dir="$1"
mkdir -p "$dir"
while read -r name version sha licence; do
  [ -z "$name" ] && continue
  case "$name" in \#*) continue ;; esac
  file="$dir/$(echo "${name#@}" | tr / -)-$version.tgz"
  if [ ! -f "$file" ]; then
    echo "fetch_npm: $name@$version ($licence)"
    if ! (cd "$dir" && timeout 300 npm pack "$name@$version" --silent >/dev/null); then
      echo "fetch_npm: could not fetch $name@$version from the npm registry (offline?)" >&2
      exit 1
    fi
  fi
  actual="$(sha256sum "$file" | cut -d' ' -f1)"
  if [ "$actual" != "$sha" ]; then
    echo "fetch_npm: $file has SHA-256 $actual, pinned $sha" >&2
    exit 1
  fi
done < "$list"
