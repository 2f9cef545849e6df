# stdio_session.sh (sourced by the shell end-to-end tests that talk to scout-gateway over its
# stdin and stdout): a temporary folder `dir` removed at exit with the gateway `pid` (killed) and
# its input on fd 3 (closed), `fail` counting failures, and the request helpers: `send JSON` on
# fd 3, `wait_for FILE PATTERN COUNT`, `answer ID`, the line of "$dir/out" answering ID, and
# `start_gateway ARGS...`, which runs the test's "$gateway" and opens its MCP session,
# `stop_gateway_at_eof` and `report_checks NAME`.
dir=$(mktemp -d)
pid=
cleanup() {
  exec 3>&- 2>/dev/null
  [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

wait_for() {  # wait_for FILE PATTERN COUNT: at most 10 s until FILE has COUNT lines matching
  for _ in $(seq 1 200); do
    [ "$(grep -c -- "$2" "$1" 2>/dev/null)" -ge "$3" ] && return 0
    sleep 0.05
  done
  return 1
}
send() { printf '%s\n' "$1" >&3; }
answer() {  # answer ID: the line answering request ID (waits for it)
  wait_for "$dir/out" "\"id\":$1[,}]" 1 || { echo "(no answer to $1)"; return; }
  grep -- "\"id\":$1[,}]" "$dir/out" | head -1
}

# start_gateway ARGS...: runs "$gateway" ARGS with its stdin on fd 3 (through "$dir/in"), stdout
# in "$dir/out" and stderr in "$dir/stderr", sets `pid`, and initializes the MCP session (a
# check). Removes the previous run's "$dir/in" and "$dir/out" first.
start_gateway() {
  rm -f "$dir/in" "$dir/out"
  mkfifo "$dir/in"
  "$gateway" "$@" <"$dir/in" >"$dir/out" 2>"$dir/stderr" &
  pid=$!
  exec 3>"$dir/in"
  send '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
  send '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  answer 1 | grep -q '"protocolVersion"' || fail "no initialize answer: $(cat "$dir/out")"
}

# stop_gateway_at_eof: closes the gateway's stdin and waits (at most 10 s) for it to exit; an exit
# status other than 0 is a failed check.
stop_gateway_at_eof() {
  local rc
  exec 3>&-
  for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  wait "$pid"
  rc=$?
  pid=
  [ "$rc" = 0 ] || fail "exit status $rc after EOF on stdin"
}

# report_checks NAME: the gateway's log and the count when a check failed (exit 1), else
# "NAME: all checks passed".
report_checks() {
  if [ "$failures" -ne 0 ]; then
    cat "$dir/stderr"
    echo "$failures check(s) failed"
    exit 1
  fi
  echo "$1: all checks passed"
}
