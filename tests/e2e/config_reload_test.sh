#!/usr/bin/env bash
# config_reload_test.sh GATEWAY FAKE_BACKEND: scout-gateway reloads its config on SIGHUP. Under
# load (100 searches in flight), a config that swaps backend alpha for beta is applied: beta's
# tools are searched and executed, alpha's are gone, and a slow call to alpha begun before the
# reload finishes on alpha, whose process is stopped once that call is over. A config that does
# not parse keeps the running one and says why; a changed "embedder" section is reported as
# needing a restart; pinned tools follow the file.
# Needs curl (else SKIP, exit 77).
set -uo pipefail
gateway="$1"
backend="$2"
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

write_config() {  # write_config JSON: the config file, written by rename as deployments do
  echo "$1" >"$dir/config.tmp" && mv "$dir/config.tmp" "$dir/servers.json"
}
server() {  # server NAME: a fake backend entry whose echo answers after 1.5 s, logging to NAME.log
  echo "\"$1\": { \"command\": \"$backend\", \"args\": [\"--echo-delay-ms\", \"1500\", \"--log\", \"$dir/$1.log\"] }"
}
write_config "{ \"mcpServers\": { $(server alpha) }, \"embedder\": { \"type\": \"none\" } }"

source "$(dirname "$0")/listening_gateway.sh"
start_listening_gateway "$gateway" --config "$dir/servers.json"
wait_log "backend 'alpha' ACTIVE" 1 || fail "alpha was not indexed: $(cat "$dir/stderr")"

session=$(curl -s -D - -o /dev/null --max-time 10 "http://127.0.0.1:$port/mcp" \
  -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
  -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' |
  tr -d '\r' | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: *//p')
[ -n "$session" ] || fail "no session"
rpc() {  # rpc ID METHOD PARAMS: the answer's body, then its HTTP status on a line of its own
  curl -s --max-time 20 -w '\n%{http_code}\n' "http://127.0.0.1:$port/mcp" \
    -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H "Mcp-Session-Id: $session" -H 'MCP-Protocol-Version: 2025-11-25' \
    -d '{"jsonrpc":"2.0","id":'"$1"',"method":"'"$2"'","params":'"$3"'}'
}
search() {  # search ID: tool_search for echo tools
  rpc "$1" tools/call '{"name":"tool_search","arguments":{"query":"echo the given text back"}}'
}
execute() {  # execute ID SERVER TEXT: execute_tool of SERVER's echo
  rpc "$1" tools/call '{"name":"execute_tool","arguments":{"server_name":"'"$2"'","tool_name":"echo","arguments":{"text":"'"$3"'"}}}'
}
export -f rpc search
export port session

search 2 | grep -q 'alpha' || fail "alpha's echo is not found before the reload"

# A slow call to alpha and 100 searches, all in flight while alpha is swapped for beta.
execute 3 alpha in-flight >"$dir/slow" &
slow=$!
seq 100 199 | xargs -P 100 -I{} bash -c 'search {} | tail -1' >"$dir/searches" &
searches=$!
sleep 0.3
write_config "{ \"mcpServers\": { $(server beta) }, \"embedder\": { \"type\": \"hashing:64\" } }"
kill -HUP "$pid"
wait_log "config reloaded" 1 || fail "no reload logged: $(cat "$dir/stderr")"
grep -q "config reloaded, 1 server: added beta; removed alpha" "$dir/stderr" ||
  fail "the reload line names what changed: $(grep 'config reloaded' "$dir/stderr")"
grep -q '"embedder" section changed, which needs a restart' "$dir/stderr" ||
  fail "a changed embedder section is reported as needing a restart"
wait "$slow"
grep -q 'echo: in-flight' "$dir/slow" || fail "the call begun before the reload: $(cat "$dir/slow")"
wait "$searches"
ok=$(grep -cx 200 "$dir/searches")
[ "$ok" = 100 ] || fail "searches across the reload: $ok of 100 answered 200"
wait_log "1 retired backend stopped" 1 || fail "alpha was not stopped after its call"
# The retired child itself is gone (its command line names its own log file, in our temp dir).
pgrep -f -- "$dir/alpha.log" >/dev/null && fail "alpha's process still runs after it was retired"

wait_log "backend 'beta' ACTIVE" 1 || fail "beta was not indexed: $(cat "$dir/stderr")"
pgrep -f -- "$dir/beta.log" >/dev/null || fail "beta's process is not found by its command line"
found=$(search 4)
grep -q 'beta' <<<"$found" || fail "beta's echo is not found after the reload: $found"
grep -q 'alpha' <<<"$found" && fail "alpha's echo is still found after the reload: $found"
execute 5 beta served | grep -q 'echo: served' || fail "beta's echo was not executed"
gone=$(execute 6 alpha gone)
grep -q "Unknown or unavailable tool 'echo' on server 'alpha'" <<<"$gone" ||
  fail "alpha's echo after the reload: $gone"

# A broken file: refused, with the key named; the running servers stay.
write_config "{ \"mcpServers\": { \"gamma\": { \"comand\": \"$backend\" } } }"
kill -HUP "$pid"
wait_log "not reloaded" 1 || fail "no refusal logged: $(cat "$dir/stderr")"
grep -q 'mcpServers.gamma.comand: unknown key\|gamma.comand' "$dir/stderr" ||
  fail "the refusal names the key: $(grep 'not reloaded' "$dir/stderr")"
execute 7 beta kept | grep -q 'echo: kept' || fail "a broken config did not keep beta"
[ "$(grep -c 'config reloaded' "$dir/stderr")" = 1 ] || fail "a broken config was applied"

# Pinned tools follow the file: beta kept running, its echo now listed by tools/list.
write_config "{ \"mcpServers\": { $(server beta) }, \"pinned\": [\"beta/echo\"], \"embedder\": { \"type\": \"none\" } }"
kill -HUP "$pid"
wait_log "config reloaded" 2 || fail "no second reload logged"
grep -q "config reloaded, 1 server: pinned tools changed" "$dir/stderr" ||
  fail "the second reload: $(grep 'config reloaded' "$dir/stderr" | tail -1)"
[ "$(grep -c "backend 'beta' ACTIVE" "$dir/stderr")" = 1 ] || fail "an unchanged backend was restarted"
rpc 8 tools/list '{}' | grep -q 'beta_echo' || fail "the pinned tool is not listed"
[ "$(grep -c 'needs a restart' "$dir/stderr")" = 1 ] || fail "the embedder back as it runs still reported"

stop_gateway_and_report "config reload"
