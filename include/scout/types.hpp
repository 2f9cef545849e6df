// types.hpp: the value types of the public API: catalog entries, search options and hits.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scout/export.hpp"
#include "scout/options.hpp"

namespace scout {

/// Dense id of a tool inside one snapshot (0..N-1, in (server, tool) name order).
/// Ids are only meaningful together with the snapshot generation that issued them.
using ToolId = std::uint32_t;

/// Lifecycle of an MCP server. Only ACTIVE servers are indexed and searchable.
enum class ServerStatus : std::uint8_t { active, degraded, inactive, rejected };

[[nodiscard]] SCOUT_API std::string_view server_status_name(ServerStatus status) noexcept;
/// Parses "ACTIVE"/"active", etc.; nullopt for anything else.
[[nodiscard]] SCOUT_API std::optional<ServerStatus> parse_server_status(
    std::string_view text) noexcept;

/// A tool as MCP `tools/list` describes it. JSON-valued fields are kept as compact JSON text.
struct ToolSpec {
    std::string name;
    std::string title;  ///< optional display title
    std::string description;
    std::string input_schema;  ///< JSON object text; empty means {"type":"object"}
    std::string annotations;   ///< JSON object text; empty means none
};

/// An MCP server (backend) and its tools.
struct ServerSpec {
    std::string name;
    std::string description;
    std::string category;     ///< optional domain, e.g. "analytics"
    std::string environment;  ///< optional label such as "prod" or "dev"
    ServerStatus status = ServerStatus::active;
    std::vector<ToolSpec> tools;
};

/// A whole catalog, as loaded from the catalog JSON format.
struct CatalogSpec {
    std::vector<ServerSpec> servers;
};

/// (server, tool) names of a tool: its identity across snapshots.
struct ToolKey {
    std::string server;
    std::string tool;
    friend bool operator==(const ToolKey&, const ToolKey&) = default;
};

/// Which retrieval branches a search runs.
enum class Mode : std::uint8_t { hybrid, bm25, dense };

[[nodiscard]] SCOUT_API std::string_view mode_name(Mode mode) noexcept;
[[nodiscard]] SCOUT_API std::optional<Mode> parse_mode(std::string_view text) noexcept;

class Reranker;  // scout/reranker.hpp

/// Per-request search parameters.
struct SearchOptions {
    static constexpr std::size_t kDefaultTopK = 5;
    static constexpr std::size_t kMaxTopK = 20;

    std::size_t top_k = kDefaultTopK;  ///< clamped to [1, kMaxTopK]
    /// Candidates each branch fetches before fusion; 0 means top_k * fusion fetch factor.
    std::size_t fetch_k = 0;
    Mode mode = Mode::hybrid;
    /// Allowed servers (the caller's scope). nullopt = every active server; an empty list
    /// allows nothing. Applied inside both branches, so top-k is taken over allowed tools only.
    std::optional<std::vector<std::string>> servers = std::nullopt;
    /// Only servers whose environment label equals this (e.g. "prod"); nullopt = any.
    std::optional<std::string> environment = std::nullopt;
    /// Upper bound on the query embedding; zero means wait for the embedder as long as it takes.
    std::chrono::milliseconds embed_timeout{0};
    /// A query that is exactly a tool's enhanced name, or exactly a plain tool name, puts those
    /// tools first (within the scope), ahead of the ranked results.
    bool exact_name_first = true;
    /// Overrides the catalog's fusion settings for this request (e.g. to compare methods).
    std::optional<FusionOptions> fusion = std::nullopt;
    /// Automatic result count: rank up to kMaxTopK candidates (branches still fetch
    /// top_k x fetch factor), then keep the leading hits whose score, min-max normalized over
    /// that list, is at least auto_k_ratio. One clear winner returns 1 hit; a flat list returns
    /// up to kMaxTopK. A query naming tools exactly returns just those tools.
    bool auto_k = false;
    double auto_k_ratio = 0.5;  ///< in (0, 1]; higher returns fewer hits
    /// Other phrasings of the query (multi-query search), e.g. written by the calling model in
    /// the words a tool's name or description might use. Each is searched like the query, with
    /// these options, and the lists (the query's own included) are fused by calibrated score:
    /// each list's scores over its own top score, a tool's best such score over the phrasings
    /// plus a small bonus for the others' agreement (docs/multi-query.md). Hit::best_phrasing
    /// says which phrasing gave a hit its best score. Exact names in the query still come
    /// first. Empty (the default): the query alone, exactly as without this field.
    std::vector<std::string> alternatives = {};
    /// Learning from executions (Catalog::record_outcome): re-rank the returned hits with a
    /// small boost, at most kMaxOutcomeBoost of the top score, for tools that succeeded before
    /// for queries sharing this query's words. Off (the default), or with nothing recorded, the
    /// results are exactly those without it.
    bool outcome_prior = false;
    /// A learned re-ranker (Reranker::open) that orders the fused candidates (the union of both
    /// branches' fetched lists, not only the first top_k, or the first Reranker::depth of them)
    /// by its features before the cut to top_k; exact names still come first. Null (the
    /// default): the fused order.
    std::shared_ptr<const Reranker> reranker = nullptr;
    /// Also return every fused candidate with its re-ranker features (SearchResult::candidates),
    /// for training a re-ranker. Off by default.
    bool rerank_candidates = false;
    /// With rerank_candidates: return only the first N fused candidates, their features computed
    /// over those N alone, as a re-ranker of depth N (Reranker::depth) computes them. 0: all.
    std::size_t rerank_candidates_depth = 0;
    static constexpr double kMaxOutcomeBoost = 0.1;
    static constexpr std::size_t kMaxAlternatives = 8;
};

/// What became of an execution of a tool, as Catalog::record_outcome is told.
enum class Outcome : std::uint8_t { success, failure };

/// One ranked tool. Ranks are 1-based within each branch; 0 means the branch did not return it.
struct Hit {
    ToolId id = 0;
    std::string name;  ///< enhanced name, unique in the snapshot, valid for LLM tool APIs
    std::string server;
    std::string tool;
    std::string title;
    std::string description;
    std::string input_schema;  ///< JSON text
    std::string annotations;   ///< JSON text, empty if none
    float score = 0;           ///< fused score (or the single branch's score)
    float bm25_score = 0;
    float dense_score = 0;
    std::uint32_t bm25_rank = 0;
    std::uint32_t dense_rank = 0;
    /// Multi-query search: the phrasing that gave this hit its best calibrated score, 0 for the
    /// query itself, i for SearchOptions::alternatives[i - 1]; the branch scores and ranks above
    /// are that phrasing's. Always 0 without alternatives.
    std::uint32_t best_phrasing = 0;
};

/// Approximate bytes one snapshot holds, by part (string payloads, arrays and hash-map nodes).
struct MemoryUsage {
    std::size_t documents = 0;  ///< tool and server records (names, descriptions, schemas)
    std::size_t names = 0;      ///< enhanced-name and plain-name tables
    std::size_t bm25 = 0;       ///< postings, impacts, offsets and the term dictionary
    std::size_t dense = 0;      ///< vectors, int8 codes and the HNSW graph
    [[nodiscard]] std::size_t total() const noexcept { return documents + names + bm25 + dense; }
};

/// A fused candidate and its re-ranker features (SearchOptions::rerank_candidates).
struct RerankCandidate {
    ToolKey key;
    std::vector<float> features;  ///< kRerankFeatureCount values, in RerankFeature order
};

/// What a search returns.
struct SearchResult {
    std::vector<Hit> hits;
    Mode mode = Mode::hybrid;  ///< the mode that actually ran
    bool degraded = false;     ///< the dense branch was wanted but unavailable; BM25 answered
    std::string degraded_reason;
    /// Why the search found little or nothing although nothing failed: the query holds no
    /// searchable words (only punctuation, say), or none the embedding model knows (then BM25
    /// answered alone, not degraded). Empty otherwise.
    std::string notice;
    bool catalog_empty =
        false;  ///< nothing is indexed: a gateway should fall back to its full list
    std::uint64_t generation = 0;
    /// With SearchOptions::rerank_candidates: every fused candidate in fused order, with its
    /// features. Empty otherwise.
    std::vector<RerankCandidate> candidates;
};

}  // namespace scout
