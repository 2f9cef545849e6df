#!/usr/bin/env bash
# jwt_reload_test.sh: scout-gateway --listen with an auth file whose "jwt" section names a JWKS
# file. A token signed by the set's key is served, a forged one gets 401 invalid_token; SIGHUP
# with a new key set swaps the keys at once, and a set that does not parse keeps the old one and
# logs why. The log never holds a token. Keys come from the openssl command, tokens are signed
# with it. Needs curl, openssl and python3 (else SKIP, exit 77).
set -uo pipefail
gateway="$1"
for tool in curl openssl python3; do
  command -v "$tool" >/dev/null || { echo "SKIP: no $tool"; exit 77; }
done
dir=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

for key in a b forger; do
  openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$dir/$key.pem" 2>/dev/null
done
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:1024 -out "$dir/short.pem" 2>/dev/null

b64url() { python3 -c 'import base64,sys; print(base64.urlsafe_b64encode(sys.stdin.buffer.read()).rstrip(b"=").decode())'; }
hex_b64url() { python3 -c 'import base64,sys; print(base64.urlsafe_b64encode(bytes.fromhex(sys.stdin.read().strip())).rstrip(b"=").decode())'; }
write_jwks() {  # write_jwks KEY KID: a key set of that key's public half, written by rename
  local n
  n=$(openssl rsa -in "$dir/$1.pem" -noout -modulus 2>/dev/null | cut -d= -f2 | hex_b64url)
  printf '{"keys": [{"kty": "RSA", "kid": "%s", "use": "sig", "n": "%s", "e": "AQAB"}]}' "$2" "$n" \
    >"$dir/jwks.tmp" && mv "$dir/jwks.tmp" "$dir/jwks.json"
}
token() {  # token KEY KID SUB: an RS256 token for the gateway, valid for ten minutes
  local now header payload sig
  now=$(date +%s)
  header=$(printf '{"alg":"RS256","kid":"%s","typ":"JWT"}' "$2" | b64url)
  payload=$(printf '{"iss":"https://id.example.test/","aud":"scout-gateway","sub":"%s","iat":%d,"exp":%d,"scope":"server:*"}' \
    "$3" "$now" $((now + 600)) | b64url)
  sig=$(printf '%s.%s' "$header" "$payload" | openssl dgst -sha256 -sign "$dir/$1.pem" | b64url)
  printf '%s.%s.%s' "$header" "$payload" "$sig"
}

echo '{ "mcpServers": {} }' >"$dir/servers.json"
cat >"$dir/auth.json" <<'JSON'
{ "callers": [ { "name": "admin", "token": "admin-token-0123456789" } ],
  "jwt": { "issuer": "https://id.example.test/", "audience": "scout-gateway",
           "jwks_file": "jwks.json" } }
JSON
write_jwks a key-a

check=$("$gateway" --config "$dir/servers.json" --auth-file "$dir/auth.json" --embedder none \
  --check-config 2>&1)
echo "$check" | grep -q "1 caller, JWTs from https://id.example.test/ (1 key)" ||
  fail "--check-config names the JWT issuer and keys: $check"

source "$(dirname "$0")/listening_gateway.sh"
start_listening_gateway "$gateway" --config "$dir/servers.json" --auth-file "$dir/auth.json" \
  --embedder none

answer() {  # answer TOKEN: the HTTP status and WWW-Authenticate of an initialize with that token
  curl -s -o /dev/null -D - --max-time 10 "http://127.0.0.1:$port/mcp" \
    -H "Authorization: Bearer $1" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' \
    -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' |
    tr -d '\r' | awk 'NR == 1 { printf "%s", $2 } tolower($1) == "www-authenticate:" { $1 = ""; printf "%s", $0 }'
}
invalid=' Bearer realm="scout-gateway", error="invalid_token"'

token_a=$(token a key-a alice)
token_b=$(token b key-b bob)
forged=$(token forger key-a alice)
[ "$(answer "$token_a")" = 200 ] || fail "key a's token before the reload"
[ "$(answer "$forged")" = "401$invalid" ] || fail "a forged token: $(answer "$forged")"
[ "$(answer "$token_b")" = "401$invalid" ] || fail "key b's token before the reload"
[ "$(answer admin-token-0123456789)" = 200 ] || fail "the static token beside the JWTs"

write_jwks b key-b
kill -HUP "$pid"
wait_log "auth file reloaded, 1 callers, JWTs from" 1 || fail "no reload logged: $(cat "$dir/stderr")"
[ "$(answer "$token_b")" = 200 ] || fail "key b's token after the reload"
[ "$(answer "$token_a")" = "401$invalid" ] || fail "key a's token after the reload"

write_jwks short key-s
kill -HUP "$pid"
wait_log "not reloaded" 1 || fail "no refusal logged: $(cat "$dir/stderr")"
grep -q 'jwt.jwks_file: .*keys\[0\].n: the modulus has 1024 bits' "$dir/stderr" ||
  fail "the refusal names the key"
[ "$(answer "$token_b")" = 200 ] || fail "a bad key set kept the previous keys"
wait_log "JWT refused: " 1 || fail "no JWT refusal logged"
for t in "$token_a" "$token_b" "$forged"; do
  grep -qF -- "${t##*.}" "$dir/stderr" && fail "a token's signature is in the log"
  grep -qF -- "$t" "$dir/stderr" && fail "a token is in the log"
done

stop_gateway_and_report "jwt reload"
