#!/usr/bin/env bash
# gateway_calibration_test.sh GATEWAY FAKE_BACKEND: scout-gateway builds its catalog with the
# fusion calibration file of its config ("calibration", relative to the config's folder) or of
# --calibration, which wins. A file fitted for another model, a missing, truncated or malformed
# file, or a calibration with the embedder none stops the start with exit code 2 and the file
# named (and --check-config reports what it can check without the model). A good one is in the
# catalog the gateway searches, as the start-up log line dumps its fusion settings. On SIGHUP a
# bad file refuses the whole reload (a server added with it is not started) and a changed one is
# reported as waiting for a restart.
set -uo pipefail
gateway="$1"
backend="$2"
source "$(dirname "$0")/stdio_session.sh"

start() {  # start ARGS...: a gateway with no client; sets $rc and $err
  timeout 20 "$gateway" "$@" </dev/null >"$dir/start.out" 2>"$dir/start.err"
  rc=$?
  err=$(cat "$dir/start.err")
}
server() {  # server NAME: a fake backend entry whose command line names NAME.log
  echo "\"$1\": { \"command\": \"$backend\", \"args\": [\"--log\", \"$dir/$1.log\"] }"
}
write_config() {  # write_config FILE SERVERS CALIBRATION [EMBEDDER]: by rename, as deployments do
  echo "{ \"mcpServers\": { $2 }, \"embedder\": \"${4:-hashing:16}\", \"calibration\": \"$3\" }" \
    >"$dir/config.tmp" && mv "$dir/config.tmp" "$dir/$1"
}
calibration() {  # calibration FILE MODEL WEIGHT: a calibration file as `scout calibrate` writes
  printf 'scout-calibration 1\n# written by the test\nmodel %s\nfusion.method gated\nfusion.gated_dense_weight %s\nfusion.overlap_power 0\nend\n' \
    "$2" "$3" >"$dir/fits/$1.tmp" && mv "$dir/fits/$1.tmp" "$dir/fits/$1"
}
mkdir -p "$dir/fits"

# Another model's file: refused, naming the file and both models. The message tells the
# embedder's model id, which the good file below then names.
calibration other.txt other-model 3
write_config servers.json "$(server alpha)" fits/other.txt
start --config "$dir/servers.json"
[ "$rc" = 2 ] || fail "another model's calibration: exit $rc, stderr: $err"
grep -q "calibration file $dir/fits/other.txt was fitted for model 'other-model', not '" <<<"$err" ||
  fail "the mismatch names the file and the models: $err"
model=$(sed -n "s/.*was fitted for model 'other-model', not '\([^']*\)'.*/\1/p" <<<"$err" | head -1)
[ -n "$model" ] || { echo "FAIL: no model id in: $err"; exit 1; }
calibration good.txt "$model" 3

# --calibration wins over the config's key; --check-config checks the file without the model.
start --config "$dir/servers.json" --calibration "$dir/fits/good.txt" --check-config
[ "$rc" = 0 ] || fail "--check-config with a good --calibration: exit $rc, $err"
start --config "$dir/servers.json" --check-config
[ "$rc" = 0 ] || fail "--check-config cannot see the model, so another model's file passes: $err"

# Missing, truncated and malformed files: exit 2, the file and the reason named (also by
# --check-config).
head -c 60 "$dir/fits/good.txt" >"$dir/fits/truncated.txt"
printf 'scout-calibration 1\nmodel %s\nfusion.gated_dense_weight lots\nend\n' "$model" \
  >"$dir/fits/malformed.txt"
for bad in missing.txt:"missing.txt" truncated.txt:"truncated" malformed.txt:"line 3"; do
  file="${bad%%:*}"
  why="${bad#*:}"
  write_config servers.json "$(server alpha)" "fits/$file"
  for check in "" --check-config; do
    start --config "$dir/servers.json" $check
    [ "$rc" = 2 ] || fail "$file ${check}: exit $rc"
    grep "$dir/fits/$file" <<<"$err" | grep -q -- "$why" || fail "$file ${check}: $err"
  done
done

# The embedder none: a calibration has no dense branch to fuse, and is refused.
write_config servers.json "$(server alpha)" fits/good.txt none
start --config "$dir/servers.json"
[ "$rc" = 2 ] && grep -q "$dir/fits/good.txt: .*BM25 only" <<<"$err" ||
  fail "a calibration with the embedder none: exit $rc, $err"

# A good file: the catalog the gateway searches holds its settings (default dense weight: 0).
write_config servers.json "$(server alpha)" fits/good.txt
start_gateway --config "$dir/servers.json"
wait_for "$dir/stderr" "backend 'alpha' ACTIVE" 1 || fail "alpha was not indexed: $(cat "$dir/stderr")"
line=$(grep "calibration: " "$dir/stderr")
grep -q "calibration: $dir/fits/good.txt, model $model: fusion.method gated, .*fusion.gated_dense_weight 3," <<<"$line" ||
  fail "the start-up line dumps the calibrated settings: $line"
grep -q "fusion.overlap_power 0" <<<"$line" || fail "overlap power not calibrated: $line"

# SIGHUP with a truncated calibration and a new server: refused whole, beta is not started.
write_config servers.json "$(server alpha), $(server beta)" fits/truncated.txt
kill -HUP "$pid"
wait_for "$dir/stderr" "not reloaded" 1 || fail "no refusal logged: $(cat "$dir/stderr")"
grep "not reloaded" "$dir/stderr" | grep -q "$dir/fits/truncated.txt" ||
  fail "the refusal names the file: $(grep 'not reloaded' "$dir/stderr")"
grep -q "config reloaded" "$dir/stderr" && fail "a reload with a bad calibration was applied"
pgrep -f -- "$dir/beta.log" >/dev/null && fail "beta was started by a refused reload"

# A changed good file: the reload goes through, the calibration waits for a restart.
calibration good.txt "$model" 1
write_config servers.json "$(server alpha), $(server beta)" fits/good.txt
kill -HUP "$pid"
wait_for "$dir/stderr" "config reloaded" 1 || fail "no reload logged: $(cat "$dir/stderr")"
grep -q "config reloaded, 2 servers: added beta" "$dir/stderr" || fail "beta not added"
grep -q "SIGHUP: the calibration changed .*needs a restart" "$dir/stderr" ||
  fail "the changed calibration is not reported: $(cat "$dir/stderr")"

stop_gateway_at_eof
report_checks "calibration"
