#!/usr/bin/env bash
# deploy_files_test.sh: what can be checked of the deployment recipes without a container engine
# or a booted systemd: the unit passes `systemd-analyze verify` (pointed at the built binary), the
# Dockerfile has the shape docs/gateway.md promises (two Debian 12 stages, an unprivileged user, a
# health check, exec-form entry point, no downloads outside the package manager), and the example
# configs (also the two replicas' of replicas/) pass `scout-gateway --check-config`. Exits 0 on success, 1 on failure,
# 77 (skip) when systemd-analyze is missing.
# Usage: deploy_files_test.sh GATEWAY UNIT_FILE DEPLOY_DIR
set -uo pipefail
gateway="$(realpath "$1")"
unit="$2"
deploy="$3"
failed=0
passed=0
ok() { echo "ok - $1"; passed=$((passed + 1)); }
fail() { echo "FAIL - $1"; failed=$((failed + 1)); }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if command -v systemd-analyze >/dev/null 2>&1; then
    # The installed unit names the installed binary; verify a copy that names the built one.
    sed "s|^ExecStart=[^ ]*|ExecStart=$gateway|" "$unit" > "$work/scout-gateway.service"
    if out="$(SYSTEMD_LOG_LEVEL=warning timeout 60 systemd-analyze verify "$work/scout-gateway.service" 2>&1)" &&
        [ -z "$(echo "$out" | grep -v '^$')" ]; then
        ok "systemd-analyze verify accepts the unit"
    else
        fail "systemd-analyze verify: $out"
    fi
    for option in DynamicUser=yes ProtectSystem=strict NoNewPrivileges=yes ExecReload= \
        SystemCallFilter=@system-service CapabilityBoundingSet=; do
        if grep -q "^$option" "$unit"; then ok "the unit sets $option"; else fail "the unit lacks $option"; fi
    done
else
    echo "SKIP: systemd-analyze is not installed"
    exit 77
fi

dockerfile="$deploy/Dockerfile"
froms="$(grep -c '^FROM ' "$dockerfile")"
[ "$froms" -ge 2 ] && ok "the Dockerfile has $froms stages" || fail "the Dockerfile is not multi-stage"
if grep '^FROM ' "$dockerfile" | grep -qv 'debian:12'; then
    fail "a stage is not Debian 12"
else
    ok "every stage is Debian 12"
fi
last_user="$(grep '^USER ' "$dockerfile" | tail -1 | awk '{print $2}')"
case "$last_user" in
    "" | root | 0 | 0:*) fail "the container runs as root" ;;
    *) ok "the container runs as user $last_user" ;;
esac
grep -A2 '^HEALTHCHECK ' "$dockerfile" | grep -q 'healthz' && ok "a health check probes /healthz" || fail "no HEALTHCHECK on /healthz"
grep -q '^ENTRYPOINT \[' "$dockerfile" && ok "the entry point is in exec form" || fail "ENTRYPOINT is not in exec form"
if grep -Eq '^(ADD +https?:|.*(curl|wget)[^|]*\| *(ba)?sh)' "$dockerfile"; then
    fail "the Dockerfile downloads outside the package manager"
else
    ok "nothing is downloaded outside the package manager"
fi
installs="$(grep -c 'apt-get install' "$dockerfile")"
cleans="$(grep -c 'rm -rf /var/lib/apt/lists' "$dockerfile")"
[ "$installs" -eq "$cleans" ] && ok "each apt-get install removes its package lists" ||
    fail "$installs apt-get install, $cleans list removals"

if out="$(timeout 30 "$gateway" --check-config --config "$deploy/gateway.json" \
    --auth-file "$deploy/auth.json" --listen 127.0.0.1:8808 2>&1)"; then
    ok "the example configs pass --check-config: $out"
else
    fail "--check-config refuses the example configs: $out"
fi

# Two replicas behind one address (replicas/compose.yaml): their config passes --check-config with
# the registry options the compose file gives them, and no URL there carries a password.
replicas="$deploy/replicas"
if out="$(timeout 30 "$gateway" --check-config --config "$replicas/gateway.json" \
    --auth-file "$deploy/auth.json" --listen 127.0.0.1:8808 \
    --registry postgresql://scout@registry:5432/scout \
    --registry-password-file /run/secrets/registry-password --registry-degraded-ttl-s 3600 2>&1)"; then
    ok "the replicas' config passes --check-config: $out"
else
    fail "--check-config refuses the replicas' config: $out"
fi
for option in --registry-password-file --registry-degraded-ttl-s; do
    grep -q -- "\"$option\"" "$replicas/compose.yaml" && ok "the replicas are given $option" ||
        fail "the replicas are not given $option"
done
[ "$(grep -c '^  gateway-[ab]:' "$replicas/compose.yaml")" -eq 2 ] && ok "two gateway replicas" ||
    fail "compose.yaml does not run two gateway replicas"
if grep -Eq 'postgres(ql)?://[^@/ "]*:[^@/ "]*@' "$replicas/compose.yaml"; then
    fail "a registry URL in compose.yaml carries a password"
else
    ok "no registry URL carries a password"
fi
grep -q 'libpq-dev' "$dockerfile" && grep -q 'libpq5' "$dockerfile" &&
    ok "the image is built with libpq (--registry)" || fail "the image lacks libpq"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
