#!/usr/bin/env bash
# consumer_test.sh MODE BUILD SOURCE: uses scout as a program outside this tree would.
#   install         cmake --install BUILD into BUILD/consumer/prefix (what the next two use);
#                   no installed header includes Eigen or curl
#   find_package    builds examples/quickstart against the installed package with CMake (the
#                   core alone: neither its link line nor the program names libcurl or Eigen),
#                   and tests/consumer/components with COMPONENTS http transformer (and a
#                   missing component: OPTIONAL is reported not found, REQUIRED fails)
#   pkg-config      builds the quickstart (c++) and tests/c/scout_c_test.c (cc, C99) with the
#                   flags of `pkg-config --cflags --libs scout` (no libcurl), and the components
#                   program with those of scout-http and scout-transformer
#   add_subdirectory  builds scout from source inside a parent project (tests/consumer/...)
#                   (a unity build of the library, scout's default, as every build of it is);
#                   the core-only program links no libcurl
#   (with SCOUT_LEFT_OUT naming components the build left out: their files must not be
#   installed, find_package must fail naming them and pkg-config must not know them; the
#   components program, which needs both, is then not built)
#   relocated       runs the installed `scout` and libscout.so from a folder, with an environment
#                   (HOME, no SCOUT_* variable, no cache) that cannot see SOURCE or BUILD: hybrid
#                   search must not be degraded and token counts must work, from the data under
#                   the prefix; no installed binary may name SOURCE or BUILD
# Each built program runs; the quickstart must print the pull-request tool of its scope.
set -euo pipefail
mode="$1"
build="$(cd "$2" && pwd)"
source="$(cd "$3" && pwd)"
work="$build/consumer"
prefix="$work/prefix"
catalog="$source/data/enterprise_catalog.json"
launcher=()
if [ -n "${SCOUT_CONSUMER_LAUNCHER:-}" ]; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER="$SCOUT_CONSUMER_LAUNCHER")
fi

check_quickstart() {
    local out
    out="$("$1" "$catalog")"
    echo "$out"
    grep -q '^github-enterprise_create_pull_request ' <<<"$out" || {
        echo "consumer_test: the quickstart did not find github-enterprise_create_pull_request" >&2
        exit 1
    }
    if grep -v '^github-enterprise_' <<<"$out" | grep -q .; then
        echo "consumer_test: the quickstart returned a tool outside its scope" >&2
        exit 1
    fi
}

# core_only PROGRAM LINK_FILE...: neither the program's dynamic section nor its link commands
# name libcurl or Eigen (the core library needs neither).
core_only() {
    local program="$1"
    shift
    if readelf -d "$program" | grep -i 'NEEDED.*libcurl'; then
        echo "consumer_test: $program needs libcurl, but it uses scout's core alone" >&2
        exit 1
    fi
    if [ "$#" -gt 0 ] && grep -il -e curl -e eigen "$@"; then
        echo "consumer_test: a core-only link line names libcurl or Eigen" >&2
        exit 1
    fi
}

components_model="$source/tests/fixtures/transformer/tiny-bert"
# The components the build left out (cmake/optional_components.cmake) and those it has.
read -ra left_out <<<"${SCOUT_LEFT_OUT:-}"
components=()
for component in http transformer; do
    if [[ " ${left_out[*]} " != *" $component "* ]]; then
        components+=("$component")
    fi
done

case "$mode" in
    install)
        rm -rf "$prefix"
        cmake --install "$build" --prefix "$prefix" >/dev/null
        test -f "$prefix/include/scout/scout.h"
        test -f "$prefix/include/scout/export.hpp"
        ls "$prefix"/lib*/cmake/scout/scoutConfig.cmake "$prefix"/lib*/pkgconfig/scout.pc
        for component in "${components[@]}"; do
            ls "$prefix"/lib*/pkgconfig/scout-"$component".pc \
                "$prefix"/lib*/cmake/scout/scout_"$component"Targets.cmake
        done
        for component in "${left_out[@]}"; do
            if ls "$prefix"/lib*/pkgconfig/scout-"$component".pc \
                "$prefix"/lib*/cmake/scout/scout_"$component"Targets.cmake \
                "$prefix"/lib*/libscout_"$component".* 2>/dev/null; then
                echo "consumer_test: the left-out component $component was installed" >&2
                exit 1
            fi
        done
        if grep -rniE '#[[:space:]]*include[[:space:]]*[<"](eigen|Eigen|curl)' "$prefix/include/scout"; then
            echo "consumer_test: an installed header includes Eigen or curl" >&2
            exit 1
        fi
        ;;
    find_package)
        rm -rf "$work/find_package"
        cmake -S "$source/examples/quickstart" -B "$work/find_package" -DCMAKE_BUILD_TYPE=Release \
            -DCMAKE_PREFIX_PATH="$prefix" "${launcher[@]}" >/dev/null
        cmake --build "$work/find_package" >/dev/null
        check_quickstart "$work/find_package/scout-quickstart"
        core_only "$work/find_package/scout-quickstart" \
            "$work/find_package/CMakeFiles/scout-quickstart.dir/link.txt"
        # A REQUIRED component scout does not have, or that this build left out, fails
        # find_package, naming it.
        for missing in nosuch "${left_out[@]}"; do
            log="$work/components-missing-$missing.log"
            rm -rf "$work/components-missing"
            if cmake -S "$source/tests/consumer/components" -B "$work/components-missing" \
                -DCMAKE_PREFIX_PATH="$prefix" -DSCOUT_CONSUMER_REQUIRE_MISSING=ON \
                -DSCOUT_CONSUMER_MISSING="$missing" >"$log" 2>&1; then
                echo "consumer_test: find_package(scout REQUIRED COMPONENTS $missing) succeeded" >&2
                exit 1
            fi
            grep -q "component '$missing'" "$log" || {
                cat "$log" >&2
                echo "consumer_test: the failed find_package did not name the missing component" >&2
                exit 1
            }
        done
        if [ "${#left_out[@]}" -gt 0 ]; then
            exit 0
        fi
        rm -rf "$work/components"
        cmake -S "$source/tests/consumer/components" -B "$work/components" -DCMAKE_BUILD_TYPE=Release \
            -DCMAKE_PREFIX_PATH="$prefix" "${launcher[@]}" >/dev/null
        cmake --build "$work/components" >/dev/null
        "$work/components/components" "$components_model"
        ;;
    pkg-config)
        pcdir="$(dirname "$(ls "$prefix"/lib*/pkgconfig/scout.pc)")"
        export PKG_CONFIG_PATH="$pcdir"
        libdir="$(pkg-config --variable=libdir scout)"
        mkdir -p "$work/pkg-config"
        # shellcheck disable=SC2046  # the flags are words
        ${CXX:-c++} -std=c++20 -O1 "$source/examples/quickstart/main.cpp" -o "$work/pkg-config/quickstart" \
            $(pkg-config --cflags --libs scout) -Wl,-rpath,"$libdir"
        check_quickstart "$work/pkg-config/quickstart"
        # shellcheck disable=SC2046
        ${CC:-cc} -std=c99 -Wall -Wextra -pedantic -Werror "$source/tests/c/scout_c_test.c" \
            -o "$work/pkg-config/scout_c_test" $(pkg-config --cflags --libs scout) -Wl,-rpath,"$libdir"
        "$work/pkg-config/scout_c_test" "$work/pkg-config"
        if pkg-config --libs --static scout | grep -i curl; then
            echo "consumer_test: scout.pc names libcurl" >&2
            exit 1
        fi
        core_only "$work/pkg-config/quickstart"
        for component in "${left_out[@]}"; do
            if pkg-config --exists scout-"$component"; then
                echo "consumer_test: pkg-config knows the left-out component $component" >&2
                exit 1
            fi
        done
        if [ "${#left_out[@]}" -gt 0 ]; then
            exit 0
        fi
        # shellcheck disable=SC2046
        ${CXX:-c++} -std=c++20 -O1 "$source/tests/consumer/components/main.cpp" \
            -o "$work/pkg-config/components" $(pkg-config --cflags --libs scout-http scout-transformer) \
            -Wl,-rpath,"$libdir"
        "$work/pkg-config/components" "$components_model"
        ;;
    add_subdirectory)
        rm -rf "$work/add_subdirectory"
        cmake -S "$source/tests/consumer/add_subdirectory" -B "$work/add_subdirectory" \
            -DSCOUT_SOURCE_DIR="$source" "${launcher[@]}" >/dev/null
        cmake --build "$work/add_subdirectory" -j2 --target consumer >/dev/null
        check_quickstart "$work/add_subdirectory/consumer"
        core_only "$work/add_subdirectory/consumer" "$work/add_subdirectory/CMakeFiles/consumer.dir/link.txt"
        ;;
    relocated)
        run="$work/relocated"
        rm -rf "$run"
        mkdir -p "$run/home"
        cp "$catalog" "$run/catalog.json"
        for file in "$prefix"/bin/* "$prefix"/lib*/libscout*.so*; do
            if grep -qaF -e "$source" -e "$build" "$file"; then
                echo "consumer_test: $file names the source or build tree" >&2
                exit 1
            fi
            # A short path can hide from grep: the compiler may build it from immediates in the
            # code. The one function that records the checkout must not be in an installed file.
            if nm -C "$file" 2>/dev/null | grep -qF "scout::eval::source_root"; then
                echo "consumer_test: $file links scout_checkout_paths (the build tree's path)" >&2
                exit 1
            fi
        done
        test -f "$prefix/share/scout/scout-static-256d.swm" || {
            echo "consumer_test: the static model is not installed in $prefix/share/scout" >&2
            exit 1
        }
        clean=(env -i "PATH=/usr/bin:/bin" "HOME=$run/home" "LANG=C.UTF-8")
        out="$(cd "$run" && "${clean[@]}" "$prefix/bin/scout" search --catalog catalog.json --json \
            --top-k 3 "create a pull request" 2>"$run/stderr")" || {
            cat "$run/stderr" >&2
            exit 1
        }
        echo "$out"
        python3 - "$out" <<'PY'
import json, sys
result = json.loads(sys.argv[1])
assert result["mode"] == "hybrid" and result["degraded"] is False, f"degraded search: {result}"
assert any(m["dense_rank"] > 0 for m in result["matches"]), "no match came from the dense branch"
PY
        # libscout.so in a process whose executable is not scout's (a C program's view, through
        # ctypes): the static model must load from next to the library. (A static build installs
        # libscout.a, linked into programs, which the `scout` run above covers.)
        shared="$(ls "$prefix"/lib*/libscout.so 2>/dev/null || true)"
        [ -z "$shared" ] || (cd "$run" && "${clean[@]}" python3 - "$shared" <<'PY'
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
lib.scout_last_error.restype = ctypes.c_char_p
catalog = ctypes.c_void_p()
status = lib.scout_catalog_create(b'{"embedder": "static"}', ctypes.byref(catalog))
assert status == 0, f"the installed libscout.so found no model: {lib.scout_last_error()}"
lib.scout_catalog_free(catalog)
print("libscout.so loaded the static model from the prefix")
PY
        )
        if [ "${SCOUT_CONSUMER_RANK_FILES:-0}" = 1 ]; then
            (cd "$run" && "${clean[@]}" "$prefix/bin/scout" tokens --encoding o200k_base \
                --file catalog.json) || {
                echo "consumer_test: the installed scout cannot count tokens" >&2
                exit 1
            }
        fi
        ;;
    *)
        echo "usage: consumer_test.sh install|find_package|pkg-config|add_subdirectory|relocated BUILD SOURCE" >&2
        exit 2
        ;;
esac
echo "consumer_test: $mode ok"
