#!/usr/bin/env bash
# source_install_test.sh MODE SOURCE BUILD: npm install of the package's source folder, whose
# install script (install.js) finds or makes the native addon; then a search from a fresh
# project with a fresh HOME: hybrid, not degraded. Offline: the package has no dependencies.
#   build       npm install SOURCE/bindings/node, the addon taken from the CMake build BUILD
#               (SCOUT_BUILD_DIR, given relative); the checkout stays clean for git
#   pkg-config  BUILD installed into a prefix (consumer:install), npm pack of the source folder installed into a
#               project (no checkout beside it), the addon compiled against the prefix's scout
#               (pkg-config); without the prefix the install fails with the reasons
set -euo pipefail
mode="$1"
source="$(cd "$2" && pwd)"
build="$(cd "$3" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/app" "$work/home" "$work/empty"
echo '{"name": "app", "private": true}' >"$work/app/package.json"
cp "$source/data/enterprise_catalog.json" "$work/catalog.json"

clean=(env -i "PATH=/usr/bin:/bin" "HOME=$work/home" "PKG_CONFIG_LIBDIR=$work/empty"
    "npm_config_update_notifier=false")
npm_install() { (cd "$work/app" && "$@" npm install --offline --no-audit --no-fund --loglevel=error "$package"); }
search() {
    (cd "$work/app" && "${clean[@]}" node -e "const {Catalog} = require('scout-mcp');
const c = new Catalog(); c.upsertServers('$work/catalog.json'); c.commit();
const r = c.search('create a pull request', {topK: 3});
console.log(r.mode, r.degraded ? 'degraded' : 'not degraded', r.matches[0].name);")
}
expect_hybrid() {
    local out
    out="$(search)"
    echo "$out"
    [[ "$out" == "hybrid not degraded github-enterprise_create_pull_request" ]] || {
        echo "source_install_test: the installed package did not answer hybrid, undegraded" >&2
        exit 1
    }
}

case "$mode" in
    build)
        package="$source/bindings/node"
        untracked() {
            git -C "$source" rev-parse --git-dir >/dev/null 2>&1 || return 0
            git -C "$source" ls-files --others --exclude-standard -- bindings/node
        }
        before="$(untracked)"
        # Relative, as a user types it: from where npm runs, not the package folder.
        npm_install "${clean[@]}" "SCOUT_BUILD_DIR=$(realpath --relative-to="$work/app" "$build")" >/dev/null
        expect_hybrid
        where="$(cd "$work/app" && "${clean[@]}" node -p "require.resolve('scout-mcp')")"
        [[ "$where" == "$source/bindings/node/index.js" ]] || {
            echo "source_install_test: scout-mcp resolved to $where, not the source folder" >&2
            exit 1
        }
        # What the install script made is ignored by git: nothing of bindings/node/build (which
        # an earlier install may have left) and no other new untracked file in the checkout.
        after="$(untracked)"
        shown="$(comm -13 <(sort <<<"$before") <(sort <<<"$after")
            grep '^bindings/node/build/' <<<"$after" || true)"
        [[ -z "$shown" ]] || {
            echo "source_install_test: npm install left files git shows:" >&2
            echo "$shown" >&2
            exit 1
        }
        ;;
    pkg-config)
        # The prefix ctest's consumer:install fixture installed BUILD into.
        pcdir="$(dirname "$(ls "$build"/consumer/prefix/lib*/pkgconfig/scout.pc)")"
        (cd "$work" && npm pack --silent "$source/bindings/node" >/dev/null)
        package="$(ls "$work"/scout-mcp-*.tgz)"
        # Nothing to use or build: the install fails and says why.
        if err="$(npm_install "${clean[@]}" 2>&1)"; then
            echo "source_install_test: npm install succeeded without scout or a checkout" >&2
            exit 1
        fi
        [[ "$err" == *"cannot make the native addon"*"pkg-config does not find scout"* ]] || {
            echo "source_install_test: the failed install did not say why:" >&2
            echo "$err" >&2
            exit 1
        }
        npm_install "${clean[@]}" "PKG_CONFIG_PATH=$pcdir" >/dev/null
        test -f "$work/app/node_modules/scout-mcp/build/Release/scout.node" || {
            echo "source_install_test: the install script compiled no addon" >&2
            exit 1
        }
        expect_hybrid
        ;;
    *)
        echo "source_install_test: unknown mode $mode" >&2
        exit 2
        ;;
esac
echo "source_install_test: ok"
