#!/usr/bin/env bash
# lint.sh: the checks that keep the code base in one shape. Fails on:
#   - layers: a room of src/ that includes a room of its own or a higher layer, directly or
#     through a public header that room implements (docs/ARCHITECTURE.md);
#   - programs: a program (examples/gateway/, tools/) that includes a room of src/ instead of
#     the public headers (scout/...), its own headers, or third-party and system ones;
#   - format drift: clang-format --dry-run -Werror over every tracked C++ file (.clang-format);
#   - clang-tidy findings over src/, examples/gateway/ and tools/ (the .clang-tidy allow-list),
#     using the compile commands of the build in $SCOUT_LINT_BUILD (default build/, made by
#     scripts/setup.sh).
# The format and tidy checks run one process per processor.
# Usage: scripts/lint.sh [layers|programs|format|tidy|all]   (default all)
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-all}"
build="${SCOUT_LINT_BUILD:-build}"
jobs="$(nproc)"

# The layers of docs/ARCHITECTURE.md: a room may include rooms of lower layers only. Sets
# `layer` (empty for an unknown room) without a subshell: it runs once per include.
layer_of() {
    case "$1" in
        value-types) layer=-1 ;;
        util | types) layer=0 ;;
        analysis | outcomes | rerank | simd | telemetry | tokens) layer=1 ;;
        document | sparse | dense | fusion | embed) layer=2 ;;
        snapshot | persist) layer=3 ;;
        search) layer=4 ;;
        catalog | doctor) layer=5 ;;
        mcp | capi | registry) layer=6 ;;
        registry_capi | umbrella) layer=7 ;;
        # The components (scout::http, scout::transformer): libraries on the core that the
        # core never includes, so they sit above all of it.
        http | transformer) layer=8 ;;
        *) layer="" ;;
    esac
}

# Sets `owner` to the room a public header belongs to, the one that implements it: a room may
# include the header only when it may include that room. The value types of the boundary
# (status, types, options, export) sit under every room: their few functions (names, parsers,
# Status::to_string) are in types/, which needs nothing but them. The umbrella scout.hpp
# includes every header, so no room may include it.
room_of_public_header() {
    case "$1" in
        scout/status.hpp | scout/types.hpp | scout/options.hpp | scout/export.hpp) owner=value-types ;;
        scout/events.hpp) owner=telemetry ;;
        scout/token_counter.hpp | scout/token_budget.hpp) owner=tokens ;;
        scout/embedder.hpp) owner=embed ;;
        scout/catalog_loader.hpp) owner=document ;;
        scout/searcher.hpp) owner=search ;;
        scout/reranker.hpp) owner=rerank ;;
        scout/catalog.hpp) owner=catalog ;;
        scout/doctor.hpp) owner=doctor ;;
        scout/scout.h) owner=capi ;;
        scout/mcp/*.hpp) owner=mcp ;;
        scout/registry/*.hpp) owner=registry ;;
        scout/http/*) owner=http ;;
        scout/transformer/*) owner=transformer ;;
        scout/scout_registry.h) owner=registry_capi ;;
        scout/scout.hpp) owner=umbrella ;;
        *) owner="" ;;
    esac
}

# The quoted includes with a folder ("util/utf8.hpp", "scout/catalog.hpp") of a file.
folder_includes() {
    sed -n 's|^#include "\([a-z_0-9]*/[^"]*\)".*|\1|p' "$1"
}

# Known back edges through public headers, no other may be added. scout/catalog.hpp declares
# value types and constants that lower rooms produce or check (the input limits, CommitInfo and
# ProgressCallback, IndexFileInfo and the index format version): moving them to
# scout/types.hpp, where the value types are, removes three. dense/ (layer 2) builds word
# neighbours from the WordVectors of embed/'s public header, a room of its own layer.
known_back_edges="
src/document/validate.cpp scout/catalog.hpp
src/persist/index_codec.hpp scout/catalog.hpp
src/snapshot/snapshot_builder.hpp scout/catalog.hpp
src/dense/word_neighbours.hpp scout/embedder.hpp
"

if [ "$what" = "layers" ] || [ "$what" = "all" ]; then
    bad=0
    for header in $(git ls-files 'include/scout/*' | sed 's|^include/||') scout/export.hpp; do
        room_of_public_header "$header"
        if [ -z "$owner" ]; then
            echo "lint: public header $header has no room in scripts/lint.sh" >&2
            bad=1
        fi
    done
    while IFS= read -r file; do
        room="${file#src/}"
        room="${room%%/*}"
        layer_of "$room"
        mine="$layer"
        if [ -z "$mine" ]; then
            echo "lint: $file: room '$room' has no layer in scripts/lint.sh" >&2
            bad=1
            continue
        fi
        # Each include names a room: its first folder, or for a public header its owner.
        while IFS= read -r path; do
            case "$path" in
                scout/*)
                    room_of_public_header "$path"
                    included="$owner"
                    ;;
                *) included="${path%%/*}" ;;
            esac
            [ "$included" != "$room" ] || continue
            layer_of "$included"
            if { [ -z "$layer" ] || [ "$layer" -ge "$mine" ]; } &&
                ! grep -qxF "$file $path" <<<"$known_back_edges"; then
                echo "lint: $file includes $path (${included:-unknown}/, layer ${layer:-?}) from $room/ (layer $mine)" >&2
                bad=1
            fi
        done < <(folder_includes "$file")
    done < <(git ls-files 'src/*.cpp' 'src/*.hpp')
    [ "$bad" -eq 0 ] || exit 1
    echo "lint: layers respected"
fi

# The `scout` command and the evaluation code (tools/cli, tools/eval) still measure through a
# few internals (they link scout_internal): these includes are the known ones, and no other may
# be added. Every other program file uses the public headers alone.
known_internal_includes="
tools/cli/calibrate_command.cpp util/file_io.hpp
tools/cli/common.cpp document/catalog_parse.hpp
tools/cli/common.cpp util/file_io.hpp
tools/cli/eval_command.cpp util/file_io.hpp
tools/cli/index_command.cpp capi/json_bridge.hpp
tools/cli/index_command.cpp util/file_io.hpp
tools/cli/registry_command.cpp capi/json_bridge.hpp
tools/cli/search_json.cpp util/json_limits.hpp
tools/cli/synth_command.cpp capi/json_bridge.hpp
tools/cli/synth_command.cpp util/data_dir.hpp
tools/cli/synth_command.cpp util/file_io.hpp
tools/cli/tokens_command.cpp capi/json_bridge.hpp
tools/cli/tokens_command.cpp util/file_io.hpp
tools/eval/evaluation.cpp util/file_io.hpp
tools/eval/evaluation.cpp util/json_limits.hpp
tools/eval/synthetic_catalog.cpp util/split_mix.hpp
tools/eval/token_table.cpp document/enhanced_name.hpp
"

if [ "$what" = "programs" ] || [ "$what" = "all" ]; then
    bad=0
    while IFS= read -r file; do
        while IFS= read -r path; do
            [ -d "src/${path%%/*}" ] || continue  # scout/, a program's own folder, support/...
            if ! grep -qxF "$file $path" <<<"$known_internal_includes"; then
                echo "lint: $file includes $path, a room of src/; programs include the public headers (scout/...)" >&2
                bad=1
            fi
        done < <(folder_includes "$file")
    done < <(git ls-files 'examples/gateway/*.cpp' 'examples/gateway/*.hpp' 'tools/*.cpp' 'tools/*.hpp')
    [ "$bad" -eq 0 ] || exit 1
    echo "lint: programs include the public headers"
fi

if [ "$what" = "format" ] || [ "$what" = "all" ]; then
    git ls-files -z '*.cpp' '*.hpp' '*.h' '*.c' | xargs -0 -n 40 -P "$jobs" clang-format --dry-run -Werror
    echo "lint: format clean"
fi

if [ "$what" = "tidy" ] || [ "$what" = "all" ]; then
    if [ ! -f "$build/compile_commands.json" ]; then
        echo "lint: $build/compile_commands.json missing; configure the build first (scripts/setup.sh)" >&2
        exit 2
    fi
    # A unity build (SCOUT_UNITY_BUILD, on by default) lists its batches, not the sources, in
    # compile_commands.json: clang-tidy then gets the commands of a one-file-per-unit
    # configuration of the same compiler and build type beside it (configured only, never built;
    # its one generated header, scout/export.hpp, is made by the configuration).
    db="$build"
    if grep -q '^SCOUT_UNITY_BUILD:BOOL=ON' "$build/CMakeCache.txt"; then
        db="$build/tidy-commands"
        cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
        cmake -S . -B "$db" -DSCOUT_UNITY_BUILD=OFF -DCMAKE_BUILD_TYPE="$(cache_value CMAKE_BUILD_TYPE)" \
            -DCMAKE_CXX_COMPILER="$(cache_value CMAKE_CXX_COMPILER)" \
            -DCMAKE_C_COMPILER="$(cache_value CMAKE_C_COMPILER)" \
            -DSCOUT_SANITIZE="$(cache_value SCOUT_SANITIZE)" -DSCOUT_FUZZ="$(cache_value SCOUT_FUZZ)" \
            -DPython3_EXECUTABLE="$(cache_value Python3_EXECUTABLE)" > "$build/tidy-commands.log" 2>&1 || {
            cat "$build/tidy-commands.log" >&2
            echo "lint: configuring $db (clang-tidy's compile commands) failed" >&2
            exit 1
        }
    fi
    # The headers are checked through the sources that include them (HeaderFilterRegex).
    mapfile -t sources < <(git ls-files 'src/*.cpp' 'examples/gateway/*.cpp' 'tools/*.cpp')
    # clang-tidy skips a source without a command: one this configuration does not build (e.g.
    # tools/cli/registry_unavailable.cpp, built only without libpq). They are named, not hidden.
    for source in "${sources[@]}"; do
        grep -qF "\"file\": \"$PWD/$source\"" "$db/compile_commands.json" ||
            echo "lint: $source is not built in this configuration; clang-tidy skips it" >&2
    done
    # -Werror=reserved-identifier: the compiler's check of our names stands in for
    # bugprone-reserved-identifier (.clang-tidy says why).
    run-clang-tidy -quiet -extra-arg=-Wno-unknown-warning-option -extra-arg=-Werror=reserved-identifier -p "$db" -j "$jobs" "${sources[@]/#/$PWD/}" > "$build/clang-tidy.log" 2>&1 || {
        grep -E "(warning|error):" "$build/clang-tidy.log" | sort -u | head -100
        echo "lint: clang-tidy found problems (full log: $build/clang-tidy.log)" >&2
        exit 1
    }
    echo "lint: clang-tidy clean over ${#sources[@]} files"
fi
