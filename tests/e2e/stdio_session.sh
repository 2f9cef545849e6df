# stdio_session.sh (sourced by the shell end-to-end tests that talk to scout-gateway over its
# stdin and stdout): a temporary folder `dir` removed at exit with the gateway `pid` (killed) and
# its input on fd 3 (closed), `fail` counting failures, and the request helpers: `send JSON` on
# fd 3, `wait_for FILE PATTERN COUNT`, and `answer ID`, the line of "$dir/out" answering ID.
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
