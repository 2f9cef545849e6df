#!/usr/bin/env bash
# sighup_reload_test.sh: scout-gateway --listen --auth-file reloads the auth file on SIGHUP. A good
# file replaces the callers at once (a removed token gets 401, a new one is served); a file that
# does not parse leaves the callers as they were; 200 searches in flight across a reload all succeed.
# Needs curl (else SKIP, exit 77).
set -uo pipefail
gateway="$1"
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }
dir=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

echo '{ "mcpServers": {} }' >"$dir/servers.json"
write_auth() {  # write_auth NAME TOKEN...: an auth file of those callers, written by rename
  local callers="" sep=""
  while [ $# -gt 1 ]; do
    callers="$callers$sep{\"name\": \"$1\", \"token\": \"$2\"}"
    sep=", "
    shift 2
  done
  echo "{ \"callers\": [ $callers ] }" >"$dir/auth.tmp" && mv "$dir/auth.tmp" "$dir/auth.json"
}
write_auth old old-token-0123456789 stays stays-token-0123456789

source "$(dirname "$0")/listening_gateway.sh"
start_listening_gateway "$gateway" --config "$dir/servers.json" --auth-file "$dir/auth.json" \
  --embedder none

status() {  # status TOKEN: the HTTP status of an initialize with that token
  curl -s -o /dev/null -w '%{http_code}' --max-time 10 "http://127.0.0.1:$port/mcp" \
    -H "Authorization: Bearer $1" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' \
    -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
}

[ "$(status old-token-0123456789)" = 200 ] || fail "the old token before the reload"
[ "$(status new-token-0123456789)" = 401 ] || fail "the new token before the reload"

# 200 tool_search calls of the caller that stays, all in flight while the file changes: none fails.
session=$(curl -s -D - -o /dev/null --max-time 10 "http://127.0.0.1:$port/mcp" \
  -H "Authorization: Bearer stays-token-0123456789" -H 'Content-Type: application/json' \
  -H 'Accept: application/json, text/event-stream' \
  -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' |
  tr -d '\r' | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: *//p')
[ -n "$session" ] || fail "no session for the caller that stays"
search() {  # search N: tool_search with id N on that session: its HTTP status, "error" for an error
  curl -s --max-time 20 -w ' %{http_code}\n' "http://127.0.0.1:$port/mcp" \
    -H "Authorization: Bearer stays-token-0123456789" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' -H "Mcp-Session-Id: $session" \
    -H 'MCP-Protocol-Version: 2025-11-25' \
    -d '{"jsonrpc":"2.0","id":'"$1"',"method":"tools/call","params":{"name":"tool_search","arguments":{"query":"read a file"}}}' |
    sed -n 's/.*"error".*/error/p; s/.* \([0-9][0-9][0-9]\)$/\1/p'
}
export -f search
export port session
# Each request has its own id: a session refuses an id that is already in flight.
seq 1 200 | xargs -P 200 -I{} bash -c 'search {}' >"$dir/searches" &
searches=$!
sleep 0.2
write_auth new new-token-0123456789 stays stays-token-0123456789
kill -HUP "$pid"
wait_log "auth file reloaded" 1 || fail "no reload logged: $(cat "$dir/stderr")"
wait "$searches"
ok=$(grep -cx 200 "$dir/searches")
[ "$ok" = 200 ] && ! grep -q error "$dir/searches" ||
  fail "searches in flight across the reload: $ok of 200 answered 200 ($(sort "$dir/searches" | uniq -c | tr '\n' ' '))"
[ "$(status old-token-0123456789)" = 401 ] || fail "the removed token after the reload"
[ "$(status new-token-0123456789)" = 200 ] || fail "the new token after the reload"
[ "$(status stays-token-0123456789)" = 200 ] || fail "the token that stays"

echo '{ "callers": [ { "name": "x", "tokn": "whatever-0123456789" } ] }' >"$dir/auth.json"
kill -HUP "$pid"
wait_log "not reloaded" 1 || fail "no refusal logged: $(cat "$dir/stderr")"
grep -q 'callers\[0\].tokn: unknown key' "$dir/stderr" || fail "the refusal names the key"
[ "$(status new-token-0123456789)" = 200 ] || fail "a bad file kept the previous callers"
kill -0 "$pid" 2>/dev/null || fail "the gateway exited on SIGHUP"

stop_gateway_and_report "sighup reload"
