# listening_gateway.sh (sourced by the shell end-to-end tests): start_listening_gateway GATEWAY
# ARGS... starts the gateway on 127.0.0.1 (a free port), its stderr in $dir/stderr, and sets pid and
# port; wait_log PATTERN COUNT waits (10 s) until the log holds COUNT lines matching PATTERN.
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
