#!/usr/bin/env bash
# malformed_jsonrpc_test.sh: writes raw lines (malformed JSON, invalid requests, unknown methods,
# invalid UTF-8, requests before initialize) to scout-gateway's stdin and checks each gets the
# right JSON-RPC error while the gateway keeps serving; also protocol-version negotiation and a
# backend that cannot start.
# Needs no node: the only backend is a command that does not exist.
set -uo pipefail
gateway="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo '{"mcpServers": {"broken": {"command": "/nonexistent/scout-test-backend"}}}' > "$dir/servers.json"

{
  echo '{"jsonrpc":"2.0","id":"early","method":"tools/list"}'
  echo '{"jsonrpc":"2.0","id":"early-ping","method":"ping"}'
  echo '{"jsonrpc":"2.0","id":13,"method":"initialize","params":{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
  echo '{"jsonrpc":"2.0","id":14,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
  echo 'this is not json'
  echo '{"jsonrpc":"2.0","id":7}'
  echo '[1,2]'
  echo '{"jsonrpc":"1.0","id":8,"method":"ping"}'
  echo '{"jsonrpc":"2.0","id":9,"method":"no/such/method"}'
  echo '{"jsonrpc":"2.0","id":18,"method":"completion/complete"}'
  echo '{"jsonrpc":"2.0","id":17,"method":"resources/list"}'
  echo '{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}'
  printf '{"jsonrpc":"2.0","id":12,"method":"ping","params":{"x":"\xff\xfe"}}\n'
  echo '{"jsonrpc":"2.0","method":"notifications/unknown"}'
  echo '{"jsonrpc":"2.0","id":15,"method":"tools/list"}'
  echo '{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{}}'
  echo '{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"tool_search","arguments":{"query":"anything"}}}'
  echo '{"jsonrpc":"2.0","id":"last","method":"ping"}'
  # stdin EOF shuts down at once, possibly before the broken backend's start was tried: hold
  # stdin open until the gateway has logged that attempt (at most 15 s on a loaded machine).
  for _ in $(seq 150); do
    grep -q "backend 'broken' failed to start" "$dir/err" 2>/dev/null && break
    sleep 0.1
  done
} | timeout 30 "$gateway" --config "$dir/servers.json" --startup-timeout-ms 2000 >"$dir/out" 2>"$dir/err"
rc=$?

fail=0
expect() {  # expect NAME PATTERN: some stdout line matches the extended regex PATTERN
  if grep -Eq -- "$2" "$dir/out"; then echo "ok - $1"; else echo "not ok - $1 (no line matches $2)"; fail=1; fi
}
[ "$rc" -eq 0 ] && echo "ok - gateway exited cleanly at EOF" || { echo "not ok - gateway exit code $rc"; fail=1; }
[ "$(grep -c '"code":-32700' "$dir/out")" -eq 2 ] && echo "ok - two parse errors (bad JSON, invalid UTF-8)" ||
  { echo "not ok - expected two -32700 errors"; fail=1; }
expect "a request before initialize -> invalid request" '"error":\{"code":-32600,"message":"Invalid Request: the session is not initialized.*"id":"early"'
expect "ping before initialize is answered" '"id":"early-ping","jsonrpc":"2.0","result":\{\}'
expect "missing method -> invalid request, id kept" '"code":-32600.*"id":7'
expect "batch -> invalid request" '"code":-32600,"message":"Invalid Request: batches'
expect "jsonrpc 1.0 -> invalid request" '"code":-32600.*"id":8'
expect "object id -> invalid request" '"code":-32600,"message":"Invalid Request: \\"id\\"'
expect "unknown method -> method not found" '"code":-32601.*"id":9'
expect "completion/complete without params -> invalid params" '"code":-32602.*completion/complete needs.*"id":18'
expect "tools/call without a name -> invalid params" '"code":-32602.*"id":10'
expect "unknown protocol version -> newest" '"id":13.*"protocolVersion":"2025-11-25"'
expect "2024-11-05 is echoed" '"id":14.*"protocolVersion":"2024-11-05"'
expect "empty index -> full (empty) tool list" '"id":15,"jsonrpc":"2.0","result":\{"tools":\[\]\}'
expect "tool_search on an empty index answers" '"id":16.*"matches":\[\]'
expect "resources/list with no backend up -> an empty list" '"id":17,"jsonrpc":"2.0","result":\{"resources":\[\]\}'
expect "still serving after all of it" '"id":"last","jsonrpc":"2.0","result":\{\}'
[ "$(grep -c . "$dir/out")" -eq 17 ] && echo "ok - one answer per request, none for notifications" ||
  { echo "not ok - expected 17 answers, got $(grep -c . "$dir/out")"; fail=1; }
if grep -qv '^{' "$dir/out"; then echo "not ok - stdout carries something other than JSON-RPC"; fail=1; fi
expect_err() { grep -q -- "$1" "$dir/err" && echo "ok - stderr: $1" || { echo "not ok - stderr lacks: $1"; fail=1; }; }
expect_err "backend 'broken' failed to start"
if [ "$fail" -ne 0 ]; then
  echo "--- stdout"; cat "$dir/out"; echo "--- stderr"; cat "$dir/err"
  exit 1
fi
echo "PASS malformed_jsonrpc"
