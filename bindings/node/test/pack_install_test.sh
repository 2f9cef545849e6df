#!/usr/bin/env bash
# pack_install_test.sh PACKAGE SOURCE: the Node.js package as a user installs it. npm pack of the
# build tree's package folder PACKAGE, npm install of the tarball into a fresh project (offline:
# the package has no dependencies), then the README's Node.js example from that project's folder
# with an environment that cannot see SOURCE or the build tree: hybrid, not degraded.
set -euo pipefail
package="$(cd "$1" && pwd)"
source="$(cd "$2" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

(cd "$work" && npm pack --silent "$package" >/dev/null)
tarball="$(ls "$work"/scout-mcp-*.tgz)"
mkdir -p "$work/app" "$work/home"
(cd "$work/app" && echo '{"name": "app", "private": true}' >package.json &&
    npm install --offline --no-audit --no-fund --loglevel=error "$tarball" >/dev/null)
# The README's example (examples/node/quickstart.js), run where the package was installed.
mkdir -p "$work/app/data"
cp "$source/data/enterprise_catalog.json" "$work/app/data/"
cp "$source/examples/node/quickstart.js" "$work/app/"
run() { (cd "$work/app" && env -i "PATH=/usr/bin:/bin" "HOME=$work/home" node "$@"); }
out="$(run quickstart.js)"
echo "$out"
[[ "$out" == "hybrid not degraded github-enterprise_create_pull_request" ]] || {
    echo "pack_install_test: the installed package did not answer hybrid, undegraded" >&2
    exit 1
}
# The token budget finds the rank files the package ships (no user cache in this HOME).
if [[ "${SCOUT_EXPECT_RANK_FILES:-0}" == 1 ]]; then
    fitted="$(run -e "const {Catalog} = require('scout-mcp');
const c = new Catalog({embedder: 'none'});
c.upsertServers('data/enterprise_catalog.json'); c.commit();
const r = c.search('create a pull request', {maxTokens: 1});
console.log(r.matches.length, r.omitted > 0, r.tokens === r.matches[0].tokens);")"
    [[ "$fitted" == "1 true true" ]] || {
        echo "pack_install_test: the installed package's token budget answered '$fitted'" >&2
        exit 1
    }
fi
where="$(run -p "require.resolve('scout-mcp')")"
[[ "$where" == "$work/app/node_modules/"* ]] || {
    echo "pack_install_test: scout-mcp was loaded from $where, not the project's node_modules" >&2
    exit 1
}
echo "pack_install_test: ok"
