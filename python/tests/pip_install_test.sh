#!/usr/bin/env bash
# pip_install_test.sh PYTHON SOURCE BUILD: scout's Python package as a user installs it, offline.
#   1. pip wheel --no-build-isolation of a copy of SOURCE/python (setuptools and wheel from the
#      system, no index), taking the extension from the build tree BUILD: the wheel must hold
#      the package, its type information (py.typed, .pyi) and the data (the static model; the
#      rank files when SCOUT_EXPECT_RANK_FILES=1);
#   2. pip install --no-build-isolation of the same folder into a fresh venv
#      (--system-site-packages, for setuptools);
#   3. examples/python/installed.py, the README's five lines, run by the venv's python from a
#      folder and an environment that cannot see SOURCE or BUILD (no PYTHONPATH, no SCOUT_*,
#      HOME elsewhere): hybrid search, not degraded, the pull-request tool found.
set -euo pipefail
python="$1"
source="$(cd "$2" && pwd)"
build="$(cd "$3" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# A copy, so that the in-tree build's leftovers (build/, *.egg-info) stay out of the checkout.
mkdir -p "$work/src"
cp -r "$source/python" "$work/src/python"
rm -rf "$work/src/python/build" "$work/src/python"/*.egg-info
export SCOUT_SOURCE_DIR="$source" SCOUT_CMAKE_BUILD_DIR="$build"
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1

"$python" -m venv --system-site-packages "$work/venv"
pip=("$work/venv/bin/python" -m pip)

"${pip[@]}" wheel --no-build-isolation --no-deps -w "$work/wheels" "$work/src/python" \
    >"$work/wheel.log" 2>&1 || { cat "$work/wheel.log"; exit 1; }
wheel="$(ls "$work"/wheels/scout_mcp-*.whl)"
echo "pip_install_test: built $(basename "$wheel")"
"$python" - "$wheel" "${SCOUT_EXPECT_RANK_FILES:-0}" <<'PY'
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
wanted = ["scout/__init__.py", "scout/py.typed", "scout/_scout.pyi",
          "scout/share/scout/scout-static-256d.swm"]
if sys.argv[2] == "1":
    wanted += ["scout/share/scout/tokenizer/cl100k_base.tiktoken",
               "scout/share/scout/tokenizer/o200k_base.tiktoken"]
missing = [name for name in wanted if name not in names]
assert not missing, f"the wheel lacks {missing}"
assert any(n.startswith("scout/_scout") and n.endswith(".so") for n in names), "no extension"
print(f"pip_install_test: the wheel holds {len(names)} files, the extension and the data")
PY

"${pip[@]}" install --no-build-isolation --no-deps "$work/src/python" \
    >"$work/install.log" 2>&1 || { cat "$work/install.log"; exit 1; }

mkdir -p "$work/run/data" "$work/home"
cp "$source/data/enterprise_catalog.json" "$work/run/data/"
cp "$source/examples/python/installed.py" "$work/run/"
out="$(cd "$work/run" && env -i "PATH=/usr/bin:/bin" "HOME=$work/home" "LANG=C.UTF-8" \
    "$work/venv/bin/python" -c 'import scout, sys; print(scout.__file__, scout.__version__)')"
echo "pip_install_test: imported $out"
case "$out" in
    "$work/venv/"*) ;;
    *) echo "pip_install_test: scout was not imported from the venv" >&2; exit 1 ;;
esac
out="$(cd "$work/run" && env -i "PATH=/usr/bin:/bin" "HOME=$work/home" "LANG=C.UTF-8" \
    "$work/venv/bin/python" installed.py)"
echo "$out"
grep -q "^hybrid not degraded \[.*'github-enterprise_create_pull_request'" <<<"$out" || {
    echo "pip_install_test: the installed example did not answer hybrid, undegraded" >&2
    exit 1
}
# The token budget finds the rank files the wheel ships (no user cache in this HOME).
if [[ "${SCOUT_EXPECT_RANK_FILES:-0}" == 1 ]]; then
    fitted="$(cd "$work/run" && env -i "PATH=/usr/bin:/bin" "HOME=$work/home" "LANG=C.UTF-8" \
        "$work/venv/bin/python" -c '
import scout
with scout.Catalog(embedder="none") as c:
    c.upsert_servers("data/enterprise_catalog.json")
    c.commit()
    r = c.search("create a pull request", max_tokens=1)
    print(len(r), r.omitted > 0, r.tokens == r[0]["tokens"])')"
    [[ "$fitted" == "1 True True" ]] || {
        echo "pip_install_test: the installed token budget answered '$fitted'" >&2
        exit 1
    }
fi
echo "pip_install_test: ok"
