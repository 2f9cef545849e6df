#!/usr/bin/env bash
# gateway_docs_audit_test.sh GATEWAY DOC: every command-line flag of scout-gateway and every key
# of its config file, auth file and embedder section is documented in DOC (docs/gateway.md), and
# every flag and key is used by some test under tests/.
# The flags come from the argument parser itself (--help); the keys from the readers themselves:
# each is given a file with an unknown key at one level and its error lists the known ones.
set -uo pipefail
gateway="$1"
doc="$2"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Flags: every --name the parser prints.
flags=$("$gateway" --help 2>&1 | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
[ "$(wc -l <<<"$flags")" -ge 30 ] || fail "--help listed too few flags to be the parser's: $flags"
for flag in $flags; do
  grep -qE -- "${flag}([^a-z0-9-]|\$)" "$doc" || fail "flag $flag is not documented in $(basename "$doc")"
done

# Every flag is passed by some test. The few that none passes yet are listed here, so a new
# flag without a test fails, and so does a listed one that gained a test (drop it then).
tests_dir="$(dirname "$0")/.."
not_yet_tested=""
for flag in $flags; do
  tested=no
  grep -rqE --exclude="$(basename "$0")" -- "${flag}([^a-z0-9-]|\$)" "$tests_dir" && tested=yes
  listed=no
  grep -qE -- "(^| )${flag}( |\$)" <<<"$not_yet_tested" && listed=yes
  if [ "$tested" = no ] && [ "$listed" = no ]; then
    fail "flag $flag is passed by no test under tests/"
  elif [ "$tested" = yes ] && [ "$listed" = yes ]; then
    fail "flag $flag is tested now: drop it from not_yet_tested"
  fi
done

# Keys: the "(known: ...)" list of the reader at each level.
known() {  # known WHAT CONFIG_JSON [AUTH_JSON]: the keys the reader of WHAT names
  printf '%s\n' "$2" >"$dir/config.json"
  local auth=()
  if [ -n "${3:-}" ]; then
    printf '%s\n' "$3" >"$dir/auth.json"
    auth=(--auth-file "$dir/auth.json")
  fi
  local out
  out=$("$gateway" --check-config --config "$dir/config.json" "${auth[@]}" 2>&1)
  local list
  list=$(sed -n 's/.*unknown key (known: \([^)]*\)).*/\1/p' <<<"$out" | head -1)
  [ -n "$list" ] || { fail "$1: no list of known keys in: $out"; return; }
  tr ',' '\n' <<<"$list" | tr -d ' '
}
token='"token": "audit-token-0123456789"'
keys() {
  known "config file" '{"mcpServers": {}, "zz": 1}'
  known "server entry" '{"mcpServers": {"a": {"command": "x", "zz": 1}}}'
  known "embedder section" '{"mcpServers": {}, "embedder": {"zz": 1}}'
  known "auth file" '{"mcpServers": {}}' '{"zz": 1}'
  known "caller" '{"mcpServers": {}}' '{"callers": [{"name": "a", '"$token"', "zz": 1}]}'
  known "caller rate" '{"mcpServers": {}}' \
    '{"callers": [{"name": "a", '"$token"', "rate": {"zz": 1}}]}'
  known "jwt section" '{"mcpServers": {}}' '{"jwt": {"zz": 1}}'
}
all=$(keys | sort -u)
[ "$(wc -l <<<"$all")" -ge 30 ] || fail "too few keys found to be the readers': $all"
for key in $all; do
  grep -q -- "\`$key\`\|\"$key\"" "$doc" || fail "key $key is not documented in $(basename "$doc")"
  # ... and written, as a JSON key (quoted, or quoted inside a C++ or shell string), by a test.
  grep -rq --exclude="$(basename "$0")" -- '\\\?"'"$key"'\\\?"' "$tests_dir" ||
    fail "key $key is in no test under tests/"
done

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "ok: $(wc -l <<<"$flags") flags, $(wc -l <<<"$all") keys documented"
