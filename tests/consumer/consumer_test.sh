#!/usr/bin/env bash
# consumer_test.sh MODE BUILD SOURCE: uses scout as a program outside this tree would.
#   install         cmake --install BUILD into BUILD/consumer/prefix (what the next two use)
#   find_package    builds examples/quickstart against the installed package with CMake
#   pkg-config      builds the quickstart (c++) and tests/c/scout_c_test.c (cc, C99) with the
#                   flags of `pkg-config --cflags --libs scout`
#   add_subdirectory  builds scout from source inside a parent project (tests/consumer/...)
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

case "$mode" in
    install)
        rm -rf "$prefix"
        cmake --install "$build" --prefix "$prefix" >/dev/null
        test -f "$prefix/include/scout/scout.h"
        test -f "$prefix/include/scout/export.hpp"
        ls "$prefix"/lib*/cmake/scout/scoutConfig.cmake "$prefix"/lib*/pkgconfig/scout.pc
        ;;
    find_package)
        rm -rf "$work/find_package"
        cmake -S "$source/examples/quickstart" -B "$work/find_package" -DCMAKE_BUILD_TYPE=Release \
            -DCMAKE_PREFIX_PATH="$prefix" "${launcher[@]}" >/dev/null
        cmake --build "$work/find_package" >/dev/null
        check_quickstart "$work/find_package/scout-quickstart"
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
        ;;
    add_subdirectory)
        rm -rf "$work/add_subdirectory"
        cmake -S "$source/tests/consumer/add_subdirectory" -B "$work/add_subdirectory" \
            -DSCOUT_SOURCE_DIR="$source" "${launcher[@]}" >/dev/null
        cmake --build "$work/add_subdirectory" -j2 --target consumer >/dev/null
        check_quickstart "$work/add_subdirectory/consumer"
        ;;
    *)
        echo "usage: consumer_test.sh install|find_package|pkg-config|add_subdirectory BUILD SOURCE" >&2
        exit 2
        ;;
esac
echo "consumer_test: $mode ok"
