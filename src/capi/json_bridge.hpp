// json_bridge.hpp: the JSON forms that the C ABI (scout.h), the Python module and the `scout`
// command share, so all three read the same options and print the same results: catalog
// options with the embedder choice, search options, search results, commit information and
// search statistics.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

#include <nlohmann/json.hpp>

#include "scout/catalog.hpp"
#include "scout/embedder.hpp"
#include "scout/events.hpp"
#include "scout/options.hpp"
#include "scout/status.hpp"
#include "scout/token_budget.hpp"
#include "scout/types.hpp"

namespace scout::detail {

/// What a catalog is made with: its index settings and its embedder (null for none).
struct CatalogConfig {
    CatalogOptions options;
    std::shared_ptr<Embedder> embedder;
};

/// Reads {"embedder", "query_cache", "options", "calibration"} (every key optional; scout.h
/// documents them). Empty text means the defaults. With `allow_options` false (opening an index
/// file, whose settings are stored in it), an "options" or "calibration" key is
/// invalid_argument. A calibration file's fusion settings go under "options", and must have been
/// fitted for the embedder's model (embedder_mismatch otherwise). Loads the embedder: a
/// missing static model is not_found, an unreachable HTTP service unavailable.
[[nodiscard]] Result<CatalogConfig> catalog_config_from_json(std::string_view text,
                                                             bool allow_options);

/// The embedder a spec names: "none", "static[:PATH]", "hashing[:DIM]", or an object with a
/// "kind" (see scout.h). Null for none.
[[nodiscard]] Result<std::shared_ptr<Embedder>> embedder_from_json(const nlohmann::json& spec);

/// The mode of a search that names none: hybrid when the catalog has an embedder, else bm25. A
/// catalog made without an embedder is BM25 by choice, so its searches are not degraded unless
/// they ask for the dense branch (scout.h, "degraded").
[[nodiscard]] Mode default_search_mode(bool has_embedder) noexcept;

/// A search as the bindings ask for it: the library's options and a token budget.
struct SearchRequest {
    SearchOptions options;
    /// "max_tokens": the most tokens the matches may take (token_budget.hpp); 0 = no budget.
    std::size_t max_tokens = 0;
};

/// Reads search options (every key optional; scout.h documents them). Empty text: defaults,
/// with `default_mode` when no "mode" is given. With "max_tokens" and no "top_k", top_k is
/// SearchOptions::kMaxTopK: the budget decides how many matches fit.
[[nodiscard]] Result<SearchRequest> search_request_from_json(std::string_view text,
                                                             Mode default_mode);

/// The JSON of `scout search --json`. With `with_phrasing` (the search had alternatives) each
/// match also has "best_phrasing" (0 the query, i its i-th alternative), as the CLI writes it.
[[nodiscard]] nlohmann::json search_result_to_json(std::string_view query,
                                                   const SearchResult& result,
                                                   bool with_phrasing = false);
/// search_result_to_json with the matches of `fitted` (fit_to_budget of the result's hits):
/// each match also has "tokens" and "trimmed" (what was shortened: "description",
/// "inputSchema"), and the result "tokens" (their sum) and "omitted" (hits left out).
[[nodiscard]] nlohmann::json budgeted_result_to_json(std::string_view query,
                                                     const SearchResult& result,
                                                     const BudgetedHits& fitted,
                                                     bool with_phrasing = false);
/// One match of a search result, as search_result_to_json writes it.
[[nodiscard]] nlohmann::json hit_to_json(const Hit& hit, bool with_phrasing = false);

[[nodiscard]] nlohmann::json commit_info_to_json(const CommitInfo& info);
[[nodiscard]] nlohmann::json search_stats_to_json(const SearchStats& stats);

/// Text of a JSON value for a caller: invalid UTF-8 in strings becomes U+FFFD rather than an
/// exception. `indent` -1 is compact.
[[nodiscard]] std::string dump_json(const nlohmann::json& value, int indent = -1);

}  // namespace scout::detail
