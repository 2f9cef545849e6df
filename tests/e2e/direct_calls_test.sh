#!/usr/bin/env bash
# direct_calls_test.sh GATEWAY FAKE_BACKEND: tools/call by a backend tool's own name over stdio.
# Two backends offer the same tools: a bare name they share is refused naming both, "server/name"
# runs that server's tool as execute_tool would (its arguments checked against the schema; the
# meta-tools keep their names); a name no server has is refused as unknown.
set -uo pipefail
gateway="$1"
backend="$2"
source "$(dirname "$0")/stdio_session.sh"

call() {  # call ID NAME ARGUMENTS_JSON: tools/call of NAME; its answer
  send '{"jsonrpc":"2.0","id":'"$1"',"method":"tools/call","params":{"name":"'"$2"'","arguments":'"$3"'}}'
  answer "$1"
}

cat >"$dir/servers.json" <<JSON
{ "mcpServers": { "alpha": { "command": "$backend" }, "beta": { "command": "$backend" } },
  "embedder": "none" }
JSON
start_gateway --config "$dir/servers.json"
wait_for "$dir/stderr" "backend '.*' ACTIVE" 2 || fail "backends not indexed: $(cat "$dir/stderr")"

a=$(call 2 echo '{"text":"x"}')
grep -q '"code":-32602' <<<"$a" && grep -q "Ambiguous tool 'echo': offered by 2 servers (alpha/echo, beta/echo)" <<<"$a" ||
  fail "a bare name two servers share: $a"
a=$(call 3 alpha/echo '{"text":"direct"}')
grep -q '"text":"echo: direct"' <<<"$a" || fail "server/name runs that server's tool: $a"
a=$(call 4 beta/echo '{"text":5}')
grep -q '"code":-32602' <<<"$a" && grep -q "Invalid params for beta/echo: arguments.text" <<<"$a" ||
  fail "the arguments of a direct call are checked against the schema: $a"
a=$(call 5 no_such_tool '{}')
grep -q '"code":-32602' <<<"$a" && grep -q "Unknown tool 'no_such_tool'" <<<"$a" || fail "an unknown name: $a"
a=$(call 6 gamma/echo '{}')
grep -q "Unknown tool 'gamma/echo'" <<<"$a" || fail "a server that does not exist: $a"
# The meta-tools keep their names.
a=$(call 7 tool_search '{"query":"echo"}')
grep -q '"matches"' <<<"$a" || fail "tool_search still answers: $a"
exec 3>&-
wait "$pid"
pid=
grep -q "panic\|terminate" "$dir/stderr" && fail "the gateway crashed: $(cat "$dir/stderr")"

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "direct calls: all checks passed"
