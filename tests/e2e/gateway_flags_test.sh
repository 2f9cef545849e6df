#!/usr/bin/env bash
# gateway_flags_test.sh GATEWAY: the flags no other test passes, each shown to take effect (or,
# for a limit whose effect needs a slow or hostile client, its out-of-range value refused with the
# flag named and exit code 2): --log-format json, --log-level, --allowed-origin, --rate-limit,
# --max-sessions, and the bounds of --keep-alive-ms, --write-timeout-ms, --max-streams,
# --max-streams-per-caller, --token-encoding and --max-tokens. Needs curl (else SKIP, exit 77).
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
echo '{ "mcpServers": {}, "embedder": "none" }' >"$dir/servers.json"

# Out-of-range values: refused before anything starts, naming the flag.
for flag_value in "--keep-alive-ms 0" "--write-timeout-ms 0" "--max-streams 0" \
  "--max-streams-per-caller 0" "--token-encoding nope" "--max-tokens 0" "--max-sessions 0" \
  "--rate-limit 0" "--log-format xml" "--log-level loud"; do
  read -r flag value <<<"$flag_value"
  out=$("$gateway" --check-config --config "$dir/servers.json" "$flag" "$value" 2>&1)
  rc=$?
  [ "$rc" = 2 ] || fail "$flag $value: exit status $rc, not 2"
  grep -q -- "$flag must" <<<"$out" || fail "$flag $value: the error does not name it: $out"
done
for flag_value in "--keep-alive-ms 1000" "--write-timeout-ms 1000" "--max-streams 4" \
  "--max-streams-per-caller 2" "--token-encoding o200k_base" "--max-tokens 500"; do
  read -r flag value <<<"$flag_value"
  out=$("$gateway" --check-config --config "$dir/servers.json" "$flag" "$value" 2>&1) ||
    fail "$flag $value was refused: $out"
done

source "$(dirname "$0")/listening_gateway.sh"
initialize() {  # initialize [HEADER]: the HTTP status of an initialize
  curl -s -o /dev/null -w '%{http_code}' --max-time 10 "http://127.0.0.1:$port/mcp" \
    -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    ${1:+-H "$1"} \
    -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
}
stop() {
  kill -TERM "$pid"
  wait "$pid"
  pid=
}

# --log-format json: every stderr line is one JSON object.
start_listening_gateway "$gateway" --config "$dir/servers.json" --log-format json
stop
python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines, "no log lines"
for line in lines:
    assert isinstance(json.loads(line), dict), line
' "$dir/stderr" || fail "--log-format json: not one JSON object a line: $(cat "$dir/stderr")"

# --log-level warn: a refused reload is said (a warning); the info lines (the listener's port
# among them) are not written.
cp "$dir/servers.json" "$dir/quiet.json"
quiet_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$gateway" --config "$dir/quiet.json" --listen "127.0.0.1:$quiet_port" --log-level warn \
  </dev/null 2>"$dir/quiet" &
pid=$!
for _ in $(seq 1 200); do
  curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$quiet_port/healthz" && break
  sleep 0.05
done
echo '{ "mcpServers": 1 }' >"$dir/quiet.json"
kill -HUP "$pid"
for _ in $(seq 1 200); do grep -q "not reloaded" "$dir/quiet" && break; sleep 0.05; done
stop
grep -q "not reloaded" "$dir/quiet" || fail "--log-level warn: the refused reload was not said"
grep -q "port [0-9]" "$dir/quiet" && fail "--log-level warn still wrote info lines: $(cat "$dir/quiet")"
# ... and a backend that cannot start is a warning, a gateway none of whose backends started an
# error (at start-up, without a request).
echo '{ "mcpServers": { "gone": { "command": "/nonexistent/scout-test-backend" } },
  "embedder": "none" }' >"$dir/dead.json"
mkfifo "$dir/dead-in"
"$gateway" --config "$dir/dead.json" --log-level warn --log-format json \
  --startup-timeout-ms 3000 <"$dir/dead-in" >/dev/null 2>"$dir/dead" &
pid=$!
exec 4>"$dir/dead-in"  # stdin stays open: the gateway serves until it is closed
for _ in $(seq 1 200); do grep -q "no backend started" "$dir/dead" && break; sleep 0.05; done
exec 4>&-
wait "$pid" 2>/dev/null
pid=
grep '"level":"warn"' "$dir/dead" | grep -q "'gone' failed to start" ||
  fail "a backend that failed to start was not a warning: $(cat "$dir/dead")"
grep '"level":"error"' "$dir/dead" | grep -q "no backend started (1 configured)" ||
  fail "no backend started was not an error: $(cat "$dir/dead")"
"$gateway" --config "$dir/servers.json" --listen 127.0.0.1:0 --log-level bogus 2>/dev/null
[ $? = 2 ] || fail "--log-level bogus was not refused"

# --allowed-origin: that browser origin may call, another may not.
start_listening_gateway "$gateway" --config "$dir/servers.json" \
  --allowed-origin https://app.example.test
s=$(initialize "Origin: https://app.example.test")
[ "$s" = 200 ] || fail "--allowed-origin: the allowed origin got $s"
s=$(initialize "Origin: https://evil.example.test")
[ "$s" = 403 ] || fail "--allowed-origin: another origin got $s, not 403"
stop

# --rate-limit 0.001:1: a second request at once is 429.
start_listening_gateway "$gateway" --config "$dir/servers.json" --rate-limit 0.001:1
first=$(initialize)
second=$(initialize)
[ "$first" = 200 ] && [ "$second" = 429 ] ||
  fail "--rate-limit: two requests at once got $first and $second, not 200 and 429"
stop

# --max-sessions 1: a second session is refused with 503.
start_listening_gateway "$gateway" --config "$dir/servers.json" --max-sessions 1
first=$(initialize)
second=$(initialize)
[ "$first" = 200 ] && [ "$second" = 503 ] ||
  fail "--max-sessions 1: two sessions got $first and $second, not 200 and 503"
stop

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "flags: all checks passed"
