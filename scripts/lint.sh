#!/usr/bin/env bash
# lint.sh: the checks that keep the code base in one shape. Fails on:
#   - layers: a room of src/ that includes a room of its own or a higher layer, directly or
#     through a public header that room implements (docs/ARCHITECTURE.md);
#   - programs: a program (examples/gateway/, tools/) that includes a room of src/ instead of
#     the public headers (scout/...), its own headers, or third-party and system ones;
#   - format drift: clang-format --dry-run -Werror over every tracked C++ file (.clang-format);
#   - size: a tracked C or C++ file over 700 lines, the generated Unicode tables aside (a file
#     that long holds more than one job: docs/ARCHITECTURE.md);
#   - clang-tidy findings over src/, examples/gateway/ and tools/ (the .clang-tidy allow-list),
#     run over the translation units of the build in $SCOUT_LINT_BUILD (default build/, made by
#     scripts/setup.sh): its unity batches, each holding up to 8 of those sources (a target's
#     batches joined four to a unit), and the sources compiled alone; a source that no compile
#     command covers fails the check.
# The format and tidy checks run one process per processor.
# Usage: scripts/lint.sh [layers|programs|format|size|tidy|all]   (default all)
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

if [ "$what" = "size" ] || [ "$what" = "all" ]; then
    generated='^(src/tokens/unicode_tables|src/transformer/bert_unicode_tables)[.]cpp$'
    long=$(git ls-files -z '*.cpp' '*.hpp' '*.h' '*.c' | xargs -0 wc -l |
           awk -v generated="$generated" \
               '$2 != "total" && $2 !~ generated && $1 > 700 { print $2 " (" $1 " lines)" }')
    if [ -n "$long" ]; then
        echo "lint: over 700 lines (split by job):" >&2
        echo "$long" >&2
        exit 1
    fi
    echo "lint: no source over 700 lines"
fi

if [ "$what" = "tidy" ] || [ "$what" = "all" ]; then
    db="$build/compile_commands.json"
    if [ ! -f "$db" ]; then
        echo "lint: $db missing; configure the build first (scripts/setup.sh)" >&2
        exit 2
    fi
    # The headers are checked through the sources that include them (HeaderFilterRegex).
    mapfile -t sources < <(git ls-files 'src/*.cpp' 'examples/gateway/*.cpp' 'tools/*.cpp')
    # clang-tidy runs over the build's own translation units: a unity build (SCOUT_UNITY_BUILD,
    # on by default) lists its batches, build/.../Unity/unity_N_cxx.cxx, each including up to
    # SCOUT_UNITY_BATCH sources, so the heavy headers are parsed once per batch instead of once per
    # file. Diagnostics inside the included sources are reported through HeaderFilterRegex, which
    # matches src/, tools/ and examples/gateway/ (never tests/), as for a source tidied alone; the
    # batches' own include lines carry a NOLINT for bugprone-suspicious-include (CMakeLists.txt).
    # Each source is tidied in its batch, or alone when it is compiled alone (files with options
    # of their own, a configuration without unity builds).
    mapfile -t commanded < <(sed -n 's/^ *"file": "\(.*\)",\{0,1\}$/\1/p' "$db" | sort -u)
    declare -A batch_of=()
    for unit in "${commanded[@]}"; do
        [[ "$unit" == */Unity/unity_*_cxx.cxx ]] || continue
        while IFS= read -r included; do
            batch_of["$included"]="$unit"
        done < <(sed -n 's/^#include "\(.*\)"$/\1/p' "$unit")
    done
    declare -A alone=()
    for unit in "${commanded[@]}"; do alone["$unit"]=1; done
    # Sources that only another configuration builds: the stand-ins of the optional components
    # (SCOUT_WITH_HTTP / SCOUT_WITH_TRANSFORMER off) and of the registry without libpq. They are
    # named, not hidden; any other source without a command fails the check.
    other_configurations="
src/http/left_out_http.cpp
src/transformer/left_out_transformer.cpp
tools/cli/registry_unavailable.cpp
"
    declare -A units=()
    uncovered=0
    tidied=0
    for source in "${sources[@]}"; do
        path="$PWD/$source"
        if [ -n "${batch_of[$path]:-}" ]; then
            units["${batch_of[$path]}"]=1
            tidied=$((tidied + 1))
        elif [ -n "${alone[$path]:-}" ]; then
            units["$path"]=1
            tidied=$((tidied + 1))
        elif grep -qxF "$source" <<<"$other_configurations"; then
            echo "lint: $source is built only in another configuration; clang-tidy skips it" >&2
        else
            echo "lint: $source is compiled by no command of $db, alone or in a unity batch" >&2
            uncovered=1
        fi
    done
    if [ "$uncovered" -ne 0 ]; then
        echo "lint: configure $build as scripts/setup.sh does (every component on), or list the file above" >&2
        exit 1
    fi
    # A target's batches are joined four to a unit (scripts/lib/tidy_units.py): clang-tidy
    # spends most of a batch's time parsing the headers every batch includes alike.
    mapfile -t tidy_units < <(printf '%s\n' "${!units[@]}" | python3 scripts/lib/tidy_units.py "$build" 4)
    # run-clang-tidy takes regular expressions: each unit's path, anchored, its dots and pluses
    # escaped (the other characters of a path of this tree are plain).
    unit_patterns=()
    for unit in "${tidy_units[@]}"; do
        pattern="${unit//./\\.}"
        unit_patterns+=("^${pattern//+/\\+}\$")
    done
    # -Werror=reserved-identifier: the compiler's check of our names stands in for
    # bugprone-reserved-identifier (.clang-tidy says why).
    run-clang-tidy -quiet -extra-arg=-Wno-unknown-warning-option -extra-arg=-Werror=reserved-identifier -p "$build/tidy-units" -j "$jobs" "${unit_patterns[@]}" > "$build/clang-tidy.log" 2>&1 || {
        grep -E "(warning|error):" "$build/clang-tidy.log" | sort -u | head -100
        echo "lint: clang-tidy found problems (full log: $build/clang-tidy.log)" >&2
        exit 1
    }
    echo "lint: clang-tidy clean over $tidied files (${#units[@]} translation units, checked as ${#tidy_units[@]})"
fi
