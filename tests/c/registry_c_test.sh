#!/usr/bin/env bash
# registry_c_test.sh TEST CLI SOURCE_DIR: starts a throw-away PostgreSQL server
# (tests/support/pg_test_server.sh), fills it with `scout registry init` and a push of a small
# catalog, then runs the registry's C ABI test (scout_registry_c_test.c) against it.
set -euo pipefail
test_bin="$1"
cli="$2"
source_dir="$3"
work="$(mktemp -d)"
chmod 755 "$work"  # the server may run as another user (nobody, under root)
server="$source_dir/tests/support/pg_test_server.sh"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
cleanup() {
    timeout 30 "$server" stop "$work/pg" > /dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
timeout 90 "$server" start "$work/pg" "$port" $$
url="postgresql:///postgres?host=$work/pg&port=$port&user=scout"
tcp_url="postgresql://scout@127.0.0.1:$port/postgres"
echo scout-test-password > "$work/password"
echo wrong-password > "$work/wrong-password"
cat > "$work/catalog.json" <<'JSON'
{"servers": [{"name": "github", "description": "Code hosting",
  "tools": [{"name": "create_pull_request", "description": "Open a pull request from a branch"},
            {"name": "list_issues", "description": "List the issues of a repository"}]}]}
JSON
cat > "$work/pager.json" <<'JSON'
{"servers": [{"name": "pager", "description": "On-call paging",
  "tools": [{"name": "page_oncall", "description": "Page the engineer on call"}]}]}
JSON
"$cli" registry init --registry "$url" > /dev/null
"$cli" registry push "$work/catalog.json" --embedder hashing:32 --registry "$url" > /dev/null
unset PGPASSWORD PGPASSFILE
"$test_bin" "$url" "$tcp_url" "$work/password" "$work/wrong-password" \
    "'$cli' registry push '$work/pager.json' --embedder hashing:32 --registry '$url' > /dev/null"
