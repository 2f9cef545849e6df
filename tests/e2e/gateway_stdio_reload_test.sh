#!/usr/bin/env bash
# gateway_stdio_reload_test.sh GATEWAY FAKE_BACKEND: scout-gateway speaking MCP over stdin/stdout
# reloads its config on SIGHUP as the HTTP listener does. A config that swaps backend alpha for
# beta is applied between two requests on the same stdio session: beta's echo is executed,
# alpha's is refused and its process stops, and the --doctor-report file follows. A config that
# does not parse is refused with the key named, and beta keeps serving. EOF on stdin then ends
# the gateway cleanly.
set -uo pipefail
gateway="$1"
backend="$2"
source "$(dirname "$0")/stdio_session.sh"

write_config() {  # write_config JSON: the config file, written by rename as deployments do
  echo "$1" >"$dir/config.tmp" && mv "$dir/config.tmp" "$dir/servers.json"
}
server() {  # server NAME: a fake backend entry whose command line names NAME.log
  echo "\"$1\": { \"command\": \"$backend\", \"args\": [\"--log\", \"$dir/$1.log\"] }"
}
execute() {  # execute ID SERVER TEXT: execute_tool of SERVER's echo; its answer
  send '{"jsonrpc":"2.0","id":'"$1"',"method":"tools/call","params":{"name":"execute_tool","arguments":{"server_name":"'"$2"'","tool_name":"echo","arguments":{"text":"'"$3"'"}}}}'
  answer "$1"
}

write_config "{ \"mcpServers\": { $(server alpha) }, \"embedder\": \"none\" }"
start_gateway --config "$dir/servers.json" --doctor-report "$dir/doctor.json"
wait_for "$dir/stderr" "backend 'alpha' ACTIVE" 1 || fail "alpha was not indexed: $(cat "$dir/stderr")"
execute 2 alpha before | grep -q 'echo: before' || fail "alpha's echo before the reload"

write_config "{ \"mcpServers\": { $(server beta) }, \"embedder\": \"none\" }"
kill -HUP "$pid"
wait_for "$dir/stderr" "config reloaded" 1 || fail "no reload logged: $(cat "$dir/stderr")"
grep -q "config reloaded, 1 server: added beta; removed alpha" "$dir/stderr" ||
  fail "the reload line names what changed: $(grep 'config reloaded' "$dir/stderr")"
wait_for "$dir/stderr" "backend 'beta' ACTIVE" 1 || fail "beta was not indexed: $(cat "$dir/stderr")"
execute 3 beta after | grep -q 'echo: after' || fail "beta's echo after the reload"
execute 4 alpha gone | grep -q "Unknown or unavailable tool 'echo' on server 'alpha'" ||
  fail "alpha's echo after the reload: $(answer 4)"
wait_for "$dir/stderr" "1 retired backend stopped" 1 || fail "alpha was not stopped"
pgrep -f -- "$dir/alpha.log" >/dev/null && fail "alpha's process still runs after the reload"
pgrep -f -- "$dir/beta.log" >/dev/null || fail "beta's process is not found by its command line"
for _ in $(seq 1 200); do grep -q '"beta"' "$dir/doctor.json" 2>/dev/null && break; sleep 0.05; done
grep -q '"beta"' "$dir/doctor.json" || fail "the doctor report lacks beta: $(cat "$dir/doctor.json")"

# A broken file: refused with the key named; beta stays.
write_config "{ \"mcpServers\": { \"gamma\": { \"comand\": \"$backend\" } } }"
kill -HUP "$pid"
wait_for "$dir/stderr" "not reloaded" 1 || fail "no refusal logged: $(cat "$dir/stderr")"
grep "not reloaded" "$dir/stderr" | grep -q 'mcpServers.gamma.comand: unknown key' ||
  fail "the refusal names the key: $(grep 'not reloaded' "$dir/stderr")"
execute 5 beta kept | grep -q 'echo: kept' || fail "a broken config did not keep beta"
[ "$(grep -c 'config reloaded' "$dir/stderr")" = 1 ] || fail "a broken config was applied"
grep -q "gamma" "$dir/out" && fail "the refused server reached the client"

# EOF on stdin: a clean exit, the backend stopped.
stop_gateway_at_eof
pgrep -f -- "$dir/beta.log" >/dev/null && fail "beta's process outlived the gateway"
report_checks "stdio reload"
