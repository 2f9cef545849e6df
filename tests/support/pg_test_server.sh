#!/usr/bin/env bash
# pg_test_server.sh: a throw-away PostgreSQL server for one test, in a directory of its own.
#   pg_test_server.sh start DIR PORT OWNER_PID   make DIR/data, start on 127.0.0.1:PORT and a
#                                                Unix socket in DIR; stopped when OWNER_PID exits
#   pg_test_server.sh stop DIR                   stop it (fast shutdown)
#   pg_test_server.sh restart DIR                stop it (fast shutdown, every client is
#                                                disconnected) and start it again, same data
# The superuser is "scout" with the password "scout-test-password": trusted over the Unix socket,
# asked for (SCRAM) over TCP. PostgreSQL refuses to run as root, so under root the server runs as
# the unprivileged user nobody. Exit 77 when the PostgreSQL server binaries are not installed.
# DIR/data is a copy of a template data directory that initdb makes once per PostgreSQL version,
# initdb options, password and user, under ${TMPDIR:-/tmp}: initdb is about a second of every
# test that starts a server, the copy a tenth of one. A template is complete when it exists (made
# under a lock in a temporary directory, then renamed).
set -euo pipefail

find_bindir() {
    local dir
    if command -v pg_config > /dev/null && dir="$(pg_config --bindir 2> /dev/null)" &&
        [ -x "$dir/initdb" ]; then
        echo "$dir"
        return
    fi
    for dir in $(ls -d /usr/lib/postgresql/*/bin 2> /dev/null | sort -V -r); do
        if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then
            echo "$dir"
            return
        fi
    done
}

as_server_user() {
    if [ "$(id -u)" = 0 ]; then
        setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"
    else
        "$@"
    fi
}

# How the template is made; its name holds a digest of these, so a change makes a new one.
password='scout-test-password'
initdb_options=(-U scout --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --no-sync)

# Makes the template data directory "$1" (its data/ folder) unless it exists.
make_template() {
    local template="$1" tmp
    [ -d "$template" ] && return 0
    exec 9> "$template.lock"
    flock 9
    if [ ! -d "$template" ]; then
        tmp="$template.tmp.$$"
        rm -rf "$tmp"
        mkdir -p "$tmp"
        printf '%s\n' "$password" > "$tmp/pwfile"
        if [ "$(id -u)" = 0 ]; then
            chown -R nobody:nogroup "$tmp"
        fi
        chmod 700 "$tmp"
        as_server_user "$bindir/initdb" -D "$tmp/data" --pwfile="$tmp/pwfile" "${initdb_options[@]}" \
            > "$tmp/initdb.log" 2>&1 ||
            { cat "$tmp/initdb.log" >&2; rm -rf "$tmp"; exit 1; }
        mv "$tmp" "$template"
    fi
    flock -u 9
    exec 9>&-
}

cmd="${1:-}"
dir="${2:-}"
[ -n "$cmd" ] && [ -n "$dir" ] || {
    echo "usage: $0 start DIR PORT OWNER_PID | stop DIR | restart DIR" >&2
    exit 2
}
bindir="$(find_bindir)"
if [ -z "$bindir" ]; then
    echo "PostgreSQL server binaries (initdb, pg_ctl) not found" >&2
    exit 77
fi

case "$cmd" in
start)
    port="$3"
    owner="$4"
    mkdir -p "$dir"
    printf '%s\n' "$password" > "$dir/pwfile"
    if [ "$(id -u)" = 0 ]; then
        chown -R nobody:nogroup "$dir"
    fi
    chmod 700 "$dir"
    if ! as_server_user test -r "$dir/pwfile"; then
        echo "$dir is not reachable by the server's user (nobody): every folder above it must" \
            "be searchable by others" >&2
        exit 1
    fi
    version="$("$bindir/initdb" --version | tr -cd '0-9.')"
    recipe="$(printf '%s ' "$version" "$password" "${initdb_options[@]}" | sha256sum | cut -c1-12)"
    template="${TMPDIR:-/tmp}/scout-pg-template-$(id -u)-$recipe"
    make_template "$template"
    cp -a "$template/data" "$dir/data"
    # The test process (root or not) reaches the socket directory; nothing else is in it.
    chmod 711 "$dir"
    as_server_user "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off" \
        start > /dev/null || { cat "$dir/server.log" >&2; exit 1; }
    # A watchdog stops the server when the test process dies without stopping it (a crash, a
    # timeout kill), so no test leaves a server behind.
    (
        while kill -0 "$owner" 2> /dev/null && [ -d "$dir/data" ]; do
            sleep 1
        done
        if [ -f "$dir/data/postmaster.pid" ]; then
            as_server_user "$bindir/pg_ctl" -D "$dir/data" -m immediate -w -t 10 stop
        fi
    ) < /dev/null > /dev/null 2>&1 &
    disown
    ;;
stop)
    if [ -f "$dir/data/postmaster.pid" ]; then
        as_server_user "$bindir/pg_ctl" -D "$dir/data" -m fast -w -t 20 stop > /dev/null
    fi
    ;;
restart)
    # pg_ctl restart starts the server with the options it was started with (postmaster.opts).
    as_server_user "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -m fast -w -t 30 \
        restart > /dev/null || { cat "$dir/server.log" >&2; exit 1; }
    ;;
*)
    echo "usage: $0 start DIR PORT OWNER_PID | stop DIR | restart DIR" >&2
    exit 2
    ;;
esac
