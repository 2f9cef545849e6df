// evaluation.hpp: labelled queries -> retrieval quality (Hit@k, MRR, Recall@k, nDCG@k) and
// latency percentiles. Shared by the CLI and the benchmark binaries.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "scout/searcher.hpp"
#include "scout/status.hpp"
#include "scout/types.hpp"

namespace scout::eval {

struct LabelledQuery {
    std::string id;
    std::string query;
    std::vector<ToolKey> relevant;  ///< empty: a catalog gap (no tool should answer)
};

/// Reads the queries format {"queries": [{"id", "query", "relevant": [{"server", "tool"}]}]}.
[[nodiscard]] Result<std::vector<LabelledQuery>> load_queries(const std::filesystem::path& path);
[[nodiscard]] Result<std::vector<LabelledQuery>> parse_queries(std::string_view json);

/// One ranked hit of a query, with its score and whether it is relevant.
struct RankedHit {
    ToolKey key;
    float score = 0;
    bool relevant = false;
};

/// Where one evaluable query's first relevant tool landed, for error analysis.
struct QueryOutcome {
    std::string id;
    std::size_t first_relevant_rank = 0;  ///< 1-based within the top 20; 0: not found
    ToolKey top;                          ///< what ranked first (empty when nothing did)
    std::vector<RankedHit> hits;          ///< the ranked list (top 20), for fusion analysis
};

struct Report {
    std::size_t queries = 0;
    std::size_t evaluable = 0;
    std::size_t catalog_gaps = 0;
    std::size_t degraded = 0;  ///< searches answered by BM25 alone because dense failed
    std::size_t errors = 0;    ///< searches that returned an error status (counted as misses)
    std::string first_error;   ///< the first such error, e.g. a query over the size limit
    double hit_at_1 = 0;
    double hit_at_5 = 0;
    double hit_at_10 = 0;
    double mrr = 0;  ///< over the top 20
    double recall_at_5 = 0;
    double ndcg_at_5 = 0;
    /// With SearchOptions::auto_k: mean number of hits returned, and the share of evaluable
    /// queries with a relevant tool among them (0 when auto_k is off).
    double auto_k_mean = 0;
    double hit_at_auto_k = 0;
    double p50_us = 0;
    double p95_us = 0;
    double p99_us = 0;
    std::vector<QueryOutcome> outcomes;  ///< one per evaluable query, in query order
};

/// Share of the queries evaluable in both reports whose first relevant tool is within the top
/// `k` of either (e.g. BM25's and dense's): what a perfect fusion of the two lists could reach.
[[nodiscard]] double union_hit_at(const Report& a, const Report& b, std::size_t k);

struct Options {
    SearchOptions search;  ///< top_k here is the user's k: branches fetch k x fetch_factor
    std::size_t fetch_factor = 3;
    /// Called before each query with (queries done, queries in all) and once more with (all,
    /// all) when every query is done; for a progress display.
    std::function<void(std::size_t, std::size_t)> progress;
};

/// Runs every query. Each search returns the top 20 of the same candidate pool a top_k search
/// would see (a single branch: its own max(top_k, fetch) candidates; hybrid: the fused union of
/// both branches'), so Hit@k for k <= top_k equals what the user's search returns, and no mode
/// is credited with candidates beyond its pool. With
/// `search.auto_k`, each query also runs once as the user would send it (untimed) to measure
/// the automatic result count.
[[nodiscard]] Report evaluate(const Searcher& searcher,
                              const std::vector<LabelledQuery>& queries,
                              const Options& options);

/// q-quantile (0..1) of a sample by linear interpolation; 0 for an empty sample.
[[nodiscard]] double quantile(std::vector<double> sample, double q);

}  // namespace scout::eval
