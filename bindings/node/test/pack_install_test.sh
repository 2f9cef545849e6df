#!/usr/bin/env bash
# pack_install_test.sh PACKAGE SOURCE: the Node.js package as a user installs it. npm pack of the
# build tree's package folder PACKAGE, npm install of the tarball into a fresh project (offline:
# the package has no dependencies), then a search from that project's folder with an
# environment that cannot see SOURCE or the build tree: hybrid, not degraded.
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
cp "$source/data/enterprise_catalog.json" "$work/app/catalog.json"
cat >"$work/app/search.js" <<'JS'
const { Catalog } = require('scout-mcp');
const catalog = new Catalog();
catalog.upsertServers('catalog.json');
catalog.commit();
const result = catalog.search('create a pull request', { topK: 3 });
console.log(result.mode, result.degraded ? 'degraded' : 'not degraded', result.matches[0].name,
  require.resolve('scout-mcp'));
JS
out="$(cd "$work/app" && env -i "PATH=/usr/bin:/bin" "HOME=$work/home" node search.js)"
echo "$out"
grep -q "^hybrid not degraded github-enterprise_create_pull_request $work/app/node_modules/" <<<"$out" || {
    echo "pack_install_test: the installed package did not answer hybrid, undegraded" >&2
    exit 1
}
echo "pack_install_test: ok"
