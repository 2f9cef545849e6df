/* scout.h: the C ABI of scout (C99), for Go, Rust, Node, .NET, Python's ctypes and anything else
   with a foreign-function interface. Opaque handles, JSON text in and out, status codes.

   Rules that hold for every function:
   - Every function that can fail returns a scout_status; SCOUT_OK (0) is success. On failure,
     scout_last_error() returns a message saying what went wrong, for the calling thread.
   - No C++ exception and no abort crosses this boundary; bad input is an error code.
   - Every pointer argument is checked: NULL where a value is required is
     SCOUT_INVALID_ARGUMENT. Arguments documented as optional may be NULL.
   - Strings are UTF-8 and NUL-terminated. A `char**` result is set only on success, is owned by
     the caller, and is released with scout_string_free().
   - A scout_catalog may be used from several threads at once (writes are serialized inside);
     a scout_searcher is immutable and may be shared by any number of threads.

   JSON formats:
   - catalog options (scout_catalog_create, scout_catalog_open): an object, every key optional:
       "embedder": "none" | "static" | "static:PATH" | "glove" | "transformer:DIR" |
                   "hashing" | "hashing:DIM" |
                   {"kind": "static", "path": PATH, "idf_power": P} |
                   {"kind": "transformer", "dir": DIR} |
                   {"kind": "hashing", "dim": N} |
                   {"kind": "http", "url": URL, "model": NAME, "dimensions": N,
                    "api_key": KEY, "timeout_ms": MS, "api_version": V (Azure OpenAI),
                    "headers": {NAME: VALUE}, "ca_file": PEM,
                    "allow_cleartext_key": BOOL}   (scout::HttpEmbedderOptions)
                   (default "static": scout's trained word model, found in $SCOUT_DATA_DIR or
                   in share/scout of the prefix libscout is installed in; "none" is BM25 alone);
       "query_cache": N   query vectors kept in an LRU cache (default 1024, 0 = none);
       "options": {...}   index settings, any subset of the "options" object of an index file
                          (docs/FORMAT.md), e.g. {"fusion": {"method": "rrf"}}, and
                          "threads": N, the threads a commit uses (0 = every core, the
                          default; not stored in index files); create only.
       "calibration": PATH  a fusion calibration file (`scout calibrate --out PATH`): its
                          fusion settings, under any "options" given too; refused, naming
                          the file, when it cannot be read (SCOUT_NOT_FOUND, SCOUT_IO_ERROR),
                          is truncated or malformed (SCOUT_INVALID_ARGUMENT, with the line)
                          or was fitted for another model than the embedder's
                          (SCOUT_EMBEDDER_MISMATCH); create only.
   - servers (scout_catalog_upsert_servers): the catalog file format,
       {"servers": [{"name", "description", "category"?, "environment"?, "status"?,
                     "tools": [{"name", "title"?, "description"?, "inputSchema"?,
                                "annotations"?}]}]}.
   - search options: an object, every key optional: "top_k" (1..20, default 5; others are
     SCOUT_INVALID_ARGUMENT naming the range, never clamped), "mode"
     ("hybrid", "bm25", "dense"; default hybrid when the catalog has an embedder, bm25 when it
     was made with "none"), "servers" (array of names: the caller's scope),
     "environment" (label), "embed_timeout_ms", "auto_k" (true, false or a ratio in (0, 1]),
     "exact_name_first" (bool), "outcome_prior" (bool: re-rank with recorded outcomes),
     "rerank" (the path of a learned re-ranker's weights file, read on each such search, e.g.
     data/scout-reranker.txt; null or absent: the fused order),
     "alternatives" (array of at most 8 other phrasings of the query, searched too and fused
     with it by calibrated score: SearchOptions::alternatives; each match then has
     "best_phrasing", 0 for the query and i for its i-th alternative), "max_tokens" (a token budget
   for the matches, a whole number in 1..1000000000; others are SCOUT_INVALID_ARGUMENT with the
     reason: scout/token_budget.hpp's fit_to_budget, counted in cl100k_base tokens. Without
     "top_k" up to 20 matches are considered and the budget decides how many fit. The rank
     file is loaded on first use and kept for the process, from $SCOUT_TOKENIZER_DIR,
     <data dir>/tokenizer or the user cache (TokenCounter::default_rank_dirs); when none holds
     it the search is SCOUT_NOT_FOUND naming the folders looked in).
   - search result: the JSON of `scout search --json`: {"query", "mode", "degraded",
     "degraded_reason"?, "catalog_empty", "matches": [{"name", "server", "tool", "description",
     "inputSchema", "score", "bm25_rank", "dense_rank"}]}.
     With "max_tokens", the matches that fit, in rank order: the first is always kept whole,
     even over the budget; each later one whole, else with its description and then its
     schema trimmed, and the first that fits in no form ends the list. Each match then also
     has "tokens" (its tokens as a gateway answer renders it: scout::hit_json) and "trimmed"
     (what was shortened: "description", "inputSchema"); the result has "tokens" (their sum,
     at most the budget unless the first match alone is over it) and "omitted" (the ranked
     matches left out).
     "degraded" is true when, and only when, the search wanted its dense branch and could not
     run it, so BM25 answered alone: the mode was hybrid or dense (asked for, or the default of
     a catalog with an embedder) and there was no embedder, the embedding service failed, or the
     embedding timed out; "degraded_reason" then says which. A catalog made with "none" and
     searched without a mode is BM25 by choice: not degraded. The same definition holds for
     `scout search --json` (where --embedder none without --mode is bm25, and a model that
     cannot be loaded leaves hybrid degraded) and for the Python module. */
#ifndef SCOUT_SCOUT_H
#define SCOUT_SCOUT_H

#include <stdint.h>

#include "scout/export.hpp"

#ifdef __cplusplus
extern "C" {
#endif

/* NOLINTBEGIN(modernize-use-using): this header is C99, which has no `using`. */
/** Status codes; the same values, in the same order, as scout::Errc. */
typedef enum scout_status {
    SCOUT_OK = 0,
    SCOUT_INVALID_ARGUMENT = 1,    /**< malformed input (bad JSON, bad name, NULL pointer) */
    SCOUT_NOT_FOUND = 2,           /**< an unknown server or file */
    SCOUT_IO_ERROR = 3,            /**< reading or writing a file failed */
    SCOUT_CORRUPT = 4,             /**< a file's bytes do not form a valid index */
    SCOUT_VERSION_UNSUPPORTED = 5, /**< an index file of a newer format */
    SCOUT_EMBEDDER_MISMATCH = 6,   /**< the embedder differs from the index file's */
    SCOUT_DIMENSION_MISMATCH = 7,  /**< an embedding of the wrong size */
    SCOUT_UNAVAILABLE = 8,         /**< a dependency (the embedder) failed or timed out */
    SCOUT_INTERNAL = 9             /**< a bug or resource exhaustion inside the library */
} scout_status;

/** The writer: servers, tools, commits, index files. */
typedef struct scout_catalog scout_catalog;
/** A reader pinned to one committed generation of a catalog. */
typedef struct scout_searcher scout_searcher;
/* NOLINTEND(modernize-use-using) */

/** The library version, "major.minor.patch". Never NULL; static storage. */
SCOUT_API const char* scout_version(void);
/** The stable lowercase name of a status ("ok", "invalid_argument", ...); "unknown" otherwise. */
SCOUT_API const char* scout_status_name(scout_status status);
/** The message of the last call on this thread that failed ("" if none has). Valid until the
    next failing call on this thread. */
SCOUT_API const char* scout_last_error(void);
/** Releases a string returned by this library. NULL is ignored. */
SCOUT_API void scout_string_free(char* text);

/** A new, empty catalog. `options_json` is optional (NULL or "" for the defaults). */
SCOUT_API scout_status scout_catalog_create(const char* options_json, scout_catalog** out);
/** Opens an index file written by scout_catalog_save (or `scout index`). `options_json` is
    optional and may choose the embedder and query cache; the index settings are the file's. */
SCOUT_API scout_status scout_catalog_open(const char* path,
                                          const char* options_json,
                                          scout_catalog** out);
/** Releases a catalog. Searchers taken from it stay valid. NULL is ignored. */
SCOUT_API void scout_catalog_free(scout_catalog* catalog);

/** Stages every server of `servers_json` (catalog file format), replacing servers of the same
    name, all or nothing. Invisible to searches until scout_catalog_commit. */
SCOUT_API scout_status scout_catalog_upsert_servers(scout_catalog* catalog,
                                                    const char* servers_json);
/** Stages the removal of a server (SCOUT_NOT_FOUND when unknown). */
SCOUT_API scout_status scout_catalog_remove_server(scout_catalog* catalog, const char* server);
/** Stages a server's status: "active", "degraded", "inactive" or "rejected" (any case). Only
    active servers are searched. */
SCOUT_API scout_status scout_catalog_set_server_status(scout_catalog* catalog,
                                                       const char* server,
                                                       const char* status);
/** Learning from executions: the host ran `tool` of `server` for `query` and it succeeded
    (`succeeded` != 0) or failed. Searches with "outcome_prior": true use what was recorded
    (SCOUT_NOT_FOUND for a tool that is not indexed). */
SCOUT_API scout_status scout_catalog_record_outcome(
    scout_catalog* catalog, const char* query, const char* server, const char* tool, int succeeded);
/** Builds and publishes the next generation from the staged state. `info_json` is optional:
    when not NULL it receives {"generation", "servers", "tools", "embedded", "rendered",
    "dense_reused", "dense_patched", "dense_ready", "dense_error", "build_ms"} (CommitInfo's
    fields: dense_patched when the previous HNSW graph was patched instead of rebuilt). */
SCOUT_API scout_status scout_catalog_commit(scout_catalog* catalog, char** info_json);
/** Writes the committed catalog to `path` atomically (docs/FORMAT.md). */
SCOUT_API scout_status scout_catalog_save(const scout_catalog* catalog, const char* path);
/** Search statistics since creation: {"searches", "failures", "fallbacks", "fallback_rate",
    "p50_ms", "p95_ms", "p99_ms", "max_ms"}. */
SCOUT_API scout_status scout_catalog_stats(const scout_catalog* catalog, char** stats_json);
/** Searches the latest committed generation. `options_json` is optional. */
SCOUT_API scout_status scout_catalog_search(const scout_catalog* catalog,
                                            const char* query,
                                            const char* options_json,
                                            char** result_json);

/** The catalog doctor (docs/doctor.md) on `servers_json` (the catalog file format): indexes it
    in a catalog made with `options_json` (the catalog options of scout_catalog_create; optional:
    NULL is the shipped static model) and examines every tool's text and retrievability.
    *report_json is the JSON of `scout doctor --json`: {"summary": {"servers", "tools",
    "errors", "warnings", "infos", "self_retrieval_rate", ...}, "servers": [per-server health],
    "findings": [{"kind", "severity", "server", "tool"?, "detail", "fix", "related"?}]}. */
SCOUT_API scout_status scout_doctor(const char* servers_json,
                                    const char* options_json,
                                    char** report_json);

/** A searcher pinned to the latest committed generation: later commits do not change it. */
SCOUT_API scout_status scout_searcher_create(const scout_catalog* catalog, scout_searcher** out);
/** Releases a searcher. NULL is ignored. */
SCOUT_API void scout_searcher_free(scout_searcher* searcher);
/** The generation the searcher is pinned to (0 for NULL or before the first commit). */
SCOUT_API uint64_t scout_searcher_generation(const scout_searcher* searcher);
/** Searches the pinned generation. `options_json` is optional. */
SCOUT_API scout_status scout_searcher_search(const scout_searcher* searcher,
                                             const char* query,
                                             const char* options_json,
                                             char** result_json);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SCOUT_SCOUT_H */
