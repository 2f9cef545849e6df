#!/usr/bin/env bash
# fuzz.sh: builds the libFuzzer targets with clang (libFuzzer + ASan + UBSan) in build-asan/ (the
# sanitizer build the tests share: scripts/lib/asan-build.sh) and runs each for a bounded time:
# SCOUT_FUZZ_SECONDS per target (default 60), SCOUT_FUZZ_JOBS targets at once (default: the cores).
# SCOUT_FUZZ_SEED (1..999999999) fixes libFuzzer's -seed: the same seeds then give the same
# inputs in the same order (a time-bounded run only stops sooner or later). .ci/run sets it, so its
# smoke run does not fail at random on an old, unrelated input some other seed happens to reach;
# finding those is what the longer campaigns are for. Unset, as by hand, each run draws a seed.
# SCOUT_FUZZ_PREBUILT=1 runs the targets build-asan/ already holds, without configuring or
# building (.ci/run, right after `scripts/sanitizers.sh asan` built them); a missing one is an error.
# Targets:
#   index_reader    the index file reader, seeded with index files the scout CLI writes
#   word_model      the static word model reader, seeded from tests/fuzz/seeds/word_model/
#   safetensors, bert_config, vocab_txt, tokenizer_json
#                   the transformer model files' parsers
#   catalog_loader  the catalog JSON loader and tools/list reader, then upsert and commit
#   embeddings_response
#                   the HTTP embedder's response parser
#   search_json     Catalog::open on any bytes, searches, and the --json rendering of results,
#                   seeded like index_reader
#   jsonrpc_reader  scout-gateway's line framing and JSON-RPC classification
#   gateway_config  scout-gateway's config parser
#   gateway_embedder_config
#                   scout-gateway's config "embedder" (the embedder options), then HttpEmbedder::create
#   gateway_auth    scout-gateway's auth file parser and bearer-token check
#   gateway_jwt     scout-gateway's JWT bearer tokens and JWKS key sets: key sets, whole tokens,
#                   and headers and claims of tokens signed in-process
#   gateway_http_rules
#                   what scout-gateway reads from HTTP peers itself: SSE bodies, Accept,
#                   Content-Type and Origin headers, remote URLs, --listen addresses
#   gateway_argument_check
#                   execute_tool's arguments against a tool's inputSchema (both untrusted)
#   gateway_templates
#                   scout-gateway's --templates file, then the meta-tools rendered from it
#   gateway_modern  scout-gateway's 2026-07-28 rules: _meta envelopes, subscriptions/listen
#                   filters, Mcp-Name (=?base64?...?=) headers, upstream discover answers
#   c_abi_json      the JSON the C ABI reads (search options, servers, catalog options)
#   outcome_codec   the OUTC section of recorded execution outcomes, seeded from
#                   tests/fuzz/corpus/outcome_codec/
#   query_text      any bytes as a query and its alternatives, through Searcher::search on
#                   fixed catalogs (BM25-only, hashing and static embedders), seeded from
#                   tests/fuzz/corpus/query_text/
#   json_shape      the index reader's check of stored schemas (is it one JSON object?) against
#                   the JSON parser, seeded from tests/fuzz/corpus/json_shape/
#   reranker_file   the learned re-ranker's weights file, seeded from
#                   tests/fuzz/corpus/reranker_file/
#   calibration_file
#                   the fusion calibration file of `scout calibrate`, seeded from
#                   tests/fuzz/corpus/calibration_file/
#   registry_rows   change rows and vectors a replica reads from the PostgreSQL registry, seeded
#                   from tests/fuzz/corpus/registry_rows/ (built when libpq is found)
# The other targets' seeds come from tests/fuzz/corpus/<target>/ (read only); what the fuzzer
# finds goes to build-asan/fuzz/corpus/<target>/, crashes to build-asan/fuzz/crashes/<target>/.
# Usage: scripts/fuzz.sh [--long] [target...]
#   --long  at least 10 million executions per target, no time limit (not for CI)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${SCOUT_FUZZ_SECONDS:-60}"
if [ -n "${SCOUT_FUZZ_SEED:-}" ] && ! [[ "$SCOUT_FUZZ_SEED" =~ ^[1-9][0-9]{0,8}$ ]]; then
  echo "fuzz: SCOUT_FUZZ_SEED must be a whole number from 1 to 999999999, not '$SCOUT_FUZZ_SEED'" >&2
  exit 2
fi
long=0
targets=()
for arg in "$@"; do
  case "$arg" in
    --long) long=1 ;;
    index_reader | word_model | safetensors | bert_config | vocab_txt | tokenizer_json | \
      catalog_loader | embeddings_response | search_json | jsonrpc_reader | gateway_config | \
      gateway_embedder_config | c_abi_json | outcome_codec | gateway_auth | gateway_http_rules | \
      gateway_modern | gateway_argument_check | gateway_templates | gateway_jwt | query_text | json_shape | registry_rows | \
      reranker_file | calibration_file)
      targets+=("$arg") ;;
    *) echo "fuzz: unknown argument $arg" >&2; exit 2 ;;
  esac
done
[ ${#targets[@]} -gt 0 ] ||
  targets=(index_reader word_model safetensors bert_config vocab_txt tokenizer_json catalog_loader
    embeddings_response search_json jsonrpc_reader gateway_config gateway_embedder_config c_abi_json
    outcome_codec gateway_auth gateway_http_rules gateway_modern gateway_argument_check gateway_templates
    gateway_jwt query_text json_shape registry_rows reranker_file calibration_file)
bin=build-asan/bin
if [ "${SCOUT_FUZZ_PREBUILT:-0}" = "1" ]; then
  for program in scout $(printf 'scout_fuzz_%s ' "${targets[@]}"); do
    if [ ! -x "$bin/$program" ]; then
      echo "fuzz: SCOUT_FUZZ_PREBUILT=1 but $bin/$program is not built (scripts/sanitizers.sh asan builds it)" >&2
      exit 2
    fi
  done
else
  source scripts/lib/asan-build.sh
  configure_asan_build
  cmake --build build-asan -j"$(nproc)" --target scout_cli $(printf 'scout_fuzz_%s ' "${targets[@]}")
fi
out=build-asan/fuzz

# Index seeds: a tiny catalog with and without vectors (small inputs keep executions fast).
seed_indexes() {
  local dir="$out/seeds/index_reader"
  rm -rf "$dir"
  mkdir -p "$dir"
  cat > "$out/tiny.json" <<'JSON'
{"servers": [{"name": "files", "description": "file store", "environment": "prod",
  "tools": [{"name": "read_file", "description": "read a file",
             "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}}]},
 {"name": "mail", "description": "email", "status": "DEGRADED",
  "tools": [{"name": "send", "description": "send mail"}]}]}
JSON
  "$bin/scout" index --catalog "$out/tiny.json" --embedder hashing:4 --out "$dir/tiny-vecs.scoutidx"
  "$bin/scout" index --catalog "$out/tiny.json" --embedder none --out "$dir/tiny.scoutidx"
  # Every format version's golden files: the BM25, vector-key and embedder-state sections.
  for f in tests/golden/v*/*.scoutidx; do
    cp "$f" "$dir/$(basename "$(dirname "$f")")-$(basename "$f")"
  done
}

# The arguments of one target's run (its seeds and options) in the array fuzz_args.
fuzz_args_of() {
  local target="$1" seeds
  fuzz_args=("$out/corpus/$target")
  case "$target" in
    index_reader | search_json) seeds="$out/seeds/index_reader"; fuzz_args+=("$seeds" -max_len=65536) ;;
    word_model) fuzz_args+=(tests/fuzz/seeds/word_model -max_len=4096) ;;
    outcome_codec) fuzz_args+=(tests/fuzz/corpus/outcome_codec -max_len=4096) ;;
    query_text) fuzz_args+=(tests/fuzz/corpus/query_text -max_len=4096) ;;
    reranker_file) fuzz_args+=(tests/fuzz/corpus/reranker_file -max_len=4096) ;;
    safetensors | bert_config | vocab_txt | tokenizer_json) fuzz_args+=("tests/fuzz/corpus/$target" -max_len=16384) ;;
    *) fuzz_args+=("tests/fuzz/corpus/$target" -max_len=8192 -dict=tests/fuzz/json.dict) ;;
  esac
  fuzz_args+=(-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$out/crashes/$target/")
  if [ -n "${SCOUT_FUZZ_SEED:-}" ]; then fuzz_args+=(-seed="$SCOUT_FUZZ_SEED"); fi
  if [ "$long" -eq 1 ]; then
    fuzz_args+=(-runs=10000000)
  else
    fuzz_args+=(-max_total_time="$seconds")
  fi
}

# Each fuzzer runs on one core: SCOUT_FUZZ_JOBS of them at once (default: the cores), each
# writing its own log, printed (without progress lines) when it ends.
jobs="${SCOUT_FUZZ_JOBS:-$(nproc)}"
for target in "${targets[@]}"; do
  case "$target" in index_reader | search_json) seed_indexes; break ;; esac
done
declare -A running=()  # pid -> target
summary=()
failed=""
finish_one() {
  local pid status target log runs
  set +e
  wait -n -p pid "${!running[@]}"
  status=$?
  set -e
  target="${running[$pid]}"
  unset "running[$pid]"
  log="$out/$target.log"
  echo "== fuzzing $target"
  grep -v '^#' "$log" || true
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  summary+=("$target: ${runs:-?} executions, exit $status")
  if [ "$status" -ne 0 ] && [ -z "$failed" ]; then
    failed="$target"
  fi
}
for target in "${targets[@]}"; do
  mkdir -p "$out/corpus/$target" "$out/crashes/$target"
  fuzz_args_of "$target"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1 \
    "$bin/scout_fuzz_$target" "${fuzz_args[@]}" > "$out/$target.log" 2>&1 &
  running[$!]="$target"
  while [ "${#running[@]}" -ge "$jobs" ]; do finish_one; done
  [ -z "$failed" ] || break
done
while [ "${#running[@]}" -gt 0 ]; do finish_one; done
printf '%s\n' "${summary[@]}"
if [ -n "$failed" ]; then
  echo "fuzz: $failed failed; the input is in $out/crashes/$failed/" >&2
  exit 1
fi
