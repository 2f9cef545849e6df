#!/usr/bin/env bash
# check_config_test.sh: scout-gateway --check-config reads the config, auth file, templates and
# embedder settings, starts nothing, and says "config ok" (exit 0) or every error with its file
# and key path (exit 2). The config names a backend that does not exist: starting it would fail,
# checking must not try.
set -uo pipefail
gateway="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

run() {  # run ARGS...: sets $out, $err, $rc
  timeout 20 "$gateway" --check-config "$@" >"$dir/out" 2>"$dir/err"
  rc=$?
  out=$(cat "$dir/out")
  err=$(cat "$dir/err")
}

cat >"$dir/servers.json" <<'JSON'
{ "mcpServers": {
    "github": { "command": "/nonexistent/scout-test-backend", "args": ["a", "b"] },
    "wiki": { "url": "https://mcp.example.com/wiki/mcp" },
    "old": { "command": "x", "disabled": true } },
  "embedder": "none" }
JSON
cat >"$dir/auth.json" <<'JSON'
{ "callers": [
    { "name": "admin", "token": "admin-token-0123456789" },
    { "name": "bot", "token_sha256": "93b01915ef217ed9eb776b2e473270b00418b7bfc8c89d30696ece5eb5d91240",
      "servers": ["wiki"] } ] }
JSON

run --config "$dir/servers.json" --auth-file "$dir/auth.json"
[ "$rc" = 0 ] || fail "a good config: exit $rc, stderr: $err"
[ "$out" = "config ok: 2 servers enabled, 2 callers" ] || fail "a good config printed: $out"

run --config "$dir/servers.json"
[ "$rc" = 0 ] && [ "$out" = "config ok: 2 servers enabled, no auth file" ] ||
  fail "without an auth file: exit $rc, out: $out, err: $err"

# One error in each file: every one is reported, with the file and the key path.
cat >"$dir/bad-servers.json" <<'JSON'
{ "mcpServers": { "github": { "command": "x", "args": ["a", "b", 3] } } }
JSON
cat >"$dir/bad-auth.json" <<'JSON'
{ "callers": [ { "name": "admin", "token": "admin-token-0123456789", "scope": "all" } ] }
JSON
echo '{ "tool_search": 5 }' >"$dir/bad-templates.json"
run --config "$dir/bad-servers.json" --auth-file "$dir/bad-auth.json" \
  --templates "$dir/bad-templates.json"
[ "$rc" = 2 ] || fail "bad files: exit $rc"
grep -q "bad-servers.json: mcpServers.github.args\[2\]: must be a string" <<<"$err" ||
  fail "the config's error: $err"
grep -q "bad-auth.json: callers\[0\].scope: unknown key" <<<"$err" || fail "the auth error: $err"
grep -q "bad-templates.json: tool_search: must be a string (got number) (line 1)" <<<"$err" ||
  fail "the templates error: $err"
grep -q "^3 errors$" <<<"$err" || fail "the count: $err"
[ -z "$out" ] || fail "nothing on stdout when the check fails: $out"

# The templates file: an unknown key is named with its line, and a good one passes.
printf '{\n  "tool_search": "Find tools",\n  "exec_tool": "Run"\n}\n' >"$dir/typo-templates.json"
run --config "$dir/servers.json" --templates "$dir/typo-templates.json"
[ "$rc" = 2 ] && grep -q "typo-templates.json: exec_tool: unknown key (known: .*) (line 3)" <<<"$err" ||
  fail "an unknown template key: $rc $err"
run --config "$dir/servers.json" --templates "$(dirname "$0")/../../examples/gateway/templates.example.json"
[ "$rc" = 0 ] || fail "the example templates: $rc $err"

# A syntax error gives the line; embedder settings are checked without contacting anything.
printf '{\n  "mcpServers": {\n    "a": { "command": "x", }\n  }\n}\n' >"$dir/syntax.json"
run --config "$dir/syntax.json"
[ "$rc" = 2 ] && grep -q "syntax.json: .*line 3" <<<"$err" || fail "a syntax error: $rc $err"
# A component the gateway was built without (SCOUT_LEFT_OUT) refuses its embedder, saying why.
left_out=" ${SCOUT_LEFT_OUT:-} "
run --config "$dir/servers.json" --embedder http --embedder-url https://embeddings.example.com/v1
if [[ "$left_out" == *" http "* ]]; then
  [ "$rc" = 2 ] && grep -q "SCOUT_WITH_HTTP=OFF" <<<"$err" || fail "http left out: $rc $err"
else
  [ "$rc" = 2 ] && grep -q "embedder-model" <<<"$err" || fail "http without a model: $rc $err"
fi
run --config "$dir/servers.json" --embedder transformer:/nonexistent/model
if [[ "$left_out" == *" transformer "* ]]; then
  [ "$rc" = 2 ] && grep -q "SCOUT_WITH_TRANSFORMER=OFF" <<<"$err" || fail "transformer left out: $rc $err"
else
  [ "$rc" = 2 ] && grep -q "not a directory" <<<"$err" || fail "a missing model: $rc $err"
fi
run --config "$dir/servers.json" --embedder hashing:64
[ "$rc" = 0 ] || fail "hashing:64: $rc $err"
# An Azure api-version stands in for the model of an http embedder, and is refused with another
# embedder (it would be ignored).
if [[ "$left_out" != *" http "* ]]; then
  run --config "$dir/servers.json" --embedder http --embedder-url https://r.openai.azure.com/d \
    --embedder-api-version 2024-02-01
  [ "$rc" = 0 ] || fail "http with an api-version: $rc $err"
fi
run --config "$dir/servers.json" --embedder hashing:64 --embedder-api-version 2024-02-01
[ "$rc" = 2 ] && grep -q -- "--embedder-api-version.*http only" <<<"$err" ||
  fail "an api-version without http: $rc $err"

# --version and --help print to stdout and exit 0; a bad argument is one line and a pointer to
# --help, exit 2, not the whole usage.
out=$(timeout 20 "$gateway" --version 2>"$dir/err"); rc=$?
[ "$rc" = 0 ] && grep -Eq '^scout-gateway [0-9]+\.[0-9]+\.[0-9]+$' <<<"$out" || fail "--version: $rc $out"
out=$(timeout 20 "$gateway" --help 2>"$dir/err"); rc=$?
[ "$rc" = 0 ] && grep -q -- "--check-config" <<<"$out" && grep -q "^Exit codes:" <<<"$out" ||
  fail "--help: $rc"
timeout 20 "$gateway" --no-such-flag x >"$dir/out" 2>"$dir/err"; rc=$?
err=$(cat "$dir/err")
[ "$rc" = 2 ] && grep -q "unknown option --no-such-flag" <<<"$err" && grep -q -- "--help" <<<"$err" &&
  [ "$(wc -l <"$dir/err")" -le 3 ] || fail "an unknown flag: $rc $err"
timeout 20 "$gateway" --max-call 3 >"$dir/out" 2>"$dir/err"; rc=$?
err=$(cat "$dir/err")
[ "$rc" = 2 ] && grep -q "did you mean --max-calls?" <<<"$err" || fail "a misspelt flag: $rc $err"

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "check-config: all checks passed"
