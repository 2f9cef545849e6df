#!/usr/bin/env bash
# lint.sh: the checks that keep the code base in one shape. Fails on:
#   - a room of src/ that includes a room of its own or a higher layer (docs/ARCHITECTURE.md);
#   - format drift: clang-format --dry-run -Werror over every tracked C++ file (.clang-format);
#   - clang-tidy findings over src/ (the .clang-tidy allow-list), using the compile commands of
#     the build in $SCOUT_LINT_BUILD (default build/, made by scripts/setup.sh).
# Usage: scripts/lint.sh [layers|format|tidy|all]   (default all)
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-all}"
build="${SCOUT_LINT_BUILD:-build}"

# The layers of docs/ARCHITECTURE.md: a room may include rooms of lower layers only.
layer_of() {
    case "$1" in
        util | types) echo 0 ;;
        analysis | outcomes | simd | telemetry | tokens) echo 1 ;;
        document | sparse | dense | fusion | embed) echo 2 ;;
        snapshot | persist) echo 3 ;;
        search) echo 4 ;;
        catalog | doctor) echo 5 ;;
        mcp | capi | registry) echo 6 ;;
        *) echo "" ;;
    esac
}

if [ "$what" = "layers" ] || [ "$what" = "all" ]; then
    bad=0
    while IFS= read -r file; do
        room="${file#src/}"
        room="${room%%/*}"
        mine="$(layer_of "$room")"
        if [ -z "$mine" ]; then
            echo "lint: $file: room '$room' has no layer in scripts/lint.sh" >&2
            bad=1
            continue
        fi
        while IFS= read -r included; do
            theirs="$(layer_of "$included")"
            if [ "$included" != "$room" ] && { [ -z "$theirs" ] || [ "$theirs" -ge "$mine" ]; }; then
                echo "lint: $file includes $included/ (layer ${theirs:-?}) from $room/ (layer $mine)" >&2
                bad=1
            fi
        done < <(sed -n 's|^#include "\([a-z_0-9]*\)/.*|\1|p' "$file" | grep -v '^scout$' | sort -u)
    done < <(git ls-files 'src/*.cpp' 'src/*.hpp')
    [ "$bad" -eq 0 ] || exit 1
    echo "lint: layers respected"
fi

if [ "$what" = "format" ] || [ "$what" = "all" ]; then
    git ls-files -z '*.cpp' '*.hpp' '*.h' '*.c' | xargs -0 clang-format --dry-run -Werror
    echo "lint: format clean"
fi

if [ "$what" = "tidy" ] || [ "$what" = "all" ]; then
    if [ ! -f "$build/compile_commands.json" ]; then
        echo "lint: $build/compile_commands.json missing; configure the build first (scripts/setup.sh)" >&2
        exit 2
    fi
    # The headers are checked through the sources that include them (HeaderFilterRegex).
    mapfile -t sources < <(git ls-files 'src/*.cpp')
    run-clang-tidy -quiet -extra-arg=-Wno-unknown-warning-option -p "$build" -j "$(nproc)" "${sources[@]/#/$PWD/}" > "$build/clang-tidy.log" 2>&1 || {
        grep -E "(warning|error):" "$build/clang-tidy.log" | sort -u | head -100
        echo "lint: clang-tidy found problems (full log: $build/clang-tidy.log)" >&2
        exit 1
    }
    echo "lint: clang-tidy clean over ${#sources[@]} files"
fi
