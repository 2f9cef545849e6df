# listening_gateway.sh (sourced by the shell end-to-end tests): start_listening_gateway GATEWAY
# ARGS... starts the gateway on 127.0.0.1 (a free port), its stderr in $dir/stderr, and sets pid and
# port; wait_log PATTERN COUNT waits (10 s) until the log holds COUNT lines matching PATTERN;
# stop_gateway_and_report NAME ends the test.
wait_log() {
  for _ in $(seq 1 200); do
    [ "$(grep -c -- "$1" "$dir/stderr")" -ge "$2" ] && return 0
    sleep 0.05
  done
  return 1
}

start_listening_gateway() {
  "$@" --listen 127.0.0.1:0 2>"$dir/stderr" </dev/null &
  pid=$!
  wait_log "port [0-9]" 1 || { cat "$dir/stderr"; echo "FAIL: the gateway did not serve"; exit 1; }
  port=$(grep -o "port [0-9]*" "$dir/stderr" | head -1 | cut -d' ' -f2)
}

# Stops the gateway with SIGTERM (a clean exit within 10 s is a check), then reports: the
# gateway's log and the count when a check failed (exit 1), else "<name>: all checks passed".
# Uses the test's `pid`, `dir`, `failures` and `fail`.
stop_gateway_and_report() {
  local rc
  kill -TERM "$pid"
  for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  wait "$pid"
  rc=$?
  pid=
  [ "$rc" = 0 ] || fail "exit status $rc after SIGTERM"
  if [ "$failures" -ne 0 ]; then
    cat "$dir/stderr"
    echo "$failures check(s) failed"
    exit 1
  fi
  echo "$1: all checks passed"
}
