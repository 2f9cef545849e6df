#!/usr/bin/env bash
# gateway_learning_test.sh GATEWAY FAKE_BACKEND: --learn re-ranks tool_search with what executions
# taught. Two backends offer the same echo tool, so a search ties them; the one ranked second is
# executed successfully a few times after that search (through execute_tool, or called by its
# own name "server/echo"), and the same search then ranks it first. Without --learn the same
# calls leave the ranking as it was.
set -uo pipefail
gateway="$1"
backend="$2"
source "$(dirname "$0")/stdio_session.sh"

ranking() {  # ranking ID: the servers of the echo matches of a search, in order
  send '{"jsonrpc":"2.0","id":'"$1"',"method":"tools/call","params":{"name":"tool_search","arguments":{"query":"echo the given text back","top_k":2}}}'
  answer "$1" | python3 -c '
import json, sys
matches = json.loads(sys.stdin.read())["result"]["structuredContent"]["matches"]
print(" ".join(m["server"] for m in matches if m["tool"] == "echo"))'
}

run() {  # run [FLAGS...]: the first and the last ranking of a gateway with FLAGS
  cat >"$dir/servers.json" <<JSON
{ "mcpServers": { "alpha": { "command": "$backend" }, "beta": { "command": "$backend" } },
  "embedder": "none" }
JSON
  start_gateway --config "$dir/servers.json" "$@"
  wait_for "$dir/stderr" "backend '.*' ACTIVE" 2 || fail "backends not indexed: $(cat "$dir/stderr")"
  before=$(ranking 2)
  second=${before##* }
  for i in 3 4 5 6 7 8; do
    if [ "$via" = direct ]; then  # the tool called by its own name: learned from alike
      send '{"jsonrpc":"2.0","id":'"$i"',"method":"tools/call","params":{"name":"'"$second"'/echo","arguments":{"text":"hi"}}}'
    else
      send '{"jsonrpc":"2.0","id":'"$i"',"method":"tools/call","params":{"name":"execute_tool","arguments":{"server_name":"'"$second"'","tool_name":"echo","arguments":{"text":"hi"}}}}'
    fi
    answer "$i" | grep -q 'echo: hi' || fail "execution $i on $second: $(answer "$i")"
  done
  after=$(ranking 9)
  exec 3>&-
  wait "$pid"
  pid=
}

via=execute_tool
run --learn
[ "$(wc -w <<<"$before")" = 2 ] || fail "the search does not offer both echoes: $before"
[ "$after" = "$second ${before%% *}" ] ||
  fail "with --learn, $second's successes did not move it first: $before, then $after"
via=direct
run --learn
[ "$after" = "$second ${before%% *}" ] ||
  fail "with --learn, $second's successes called by name did not move it first: $before, then $after"
via=execute_tool
run
[ "$after" = "$before" ] || fail "without --learn the ranking moved: $before, then $after"

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "learning: all checks passed"
