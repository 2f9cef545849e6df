// options.hpp: index-time settings of a Catalog (analysis, BM25, dense index, fusion).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "scout/analyzer.hpp"

namespace scout {

/// Weight of each tool-document field in BM25's term frequency and length (BM25F-style,
/// Robertson, Zaragoza & Taylor 2004: weights scale term counts before saturation).
struct FieldWeights {
    float name = 3.0f;                ///< tool name words and title
    float server = 1.0f;              ///< server name, category, environment label
    float server_description = 0.5f;  ///< domain context (helps area-of-expertise queries)
    float description = 1.0f;
    float parameters = 0.5f;          ///< parameter names, descriptions and enum values
    /// The tool's action (get, list, create, delete, ... read off its name) as one index term;
    /// 0 leaves it out. Queries match it through ExpansionOptions::action_weight.
    float action = 3.0f;
    /// Adjacent word pairs of the tool name and of its description, as index terms; 0 leaves
    /// them out. Queries match them through ExpansionOptions::pair_weight.
    float word_pairs = 1.0f;
};

/// Okapi BM25. k1 = 1.2 and b = 0.75 are the classic defaults (Robertson & Zaragoza 2009).
struct Bm25Options {
    float k1 = 1.2f;
    float b = 0.75f;
    FieldWeights weights;
};

enum class DenseIndexKind : std::uint8_t { automatic, flat, hnsw };

struct DenseOptions {
    DenseIndexKind kind = DenseIndexKind::automatic;
    /// With `automatic`, catalogs of at least this many tools use HNSW; smaller ones exact search.
    /// Measured crossover (docs/performance.md): at 20k x 384 the int8 scan and HNSW
    /// cost about the same, at 200k HNSW is several times faster.
    std::size_t hnsw_min_tools = 20000;
    /// Exact search scans int8 copies of the vectors (4x less memory traffic), then re-scores
    /// the best max(k * int8_rescore_factor, 32) candidates exactly in fp32. Returned scores are
    /// exact; the top-k differs from the fp32 scan only if a true top-k vector falls outside the
    /// re-scored pool. Off by default: the fp32 scan is exact by construction.
    bool int8_scan = false;
    std::size_t int8_rescore_factor = 3;
    /// HNSW with a scope filter: when at least this fraction of the tools is allowed, search the
    /// graph for k / fraction * 2 candidates and keep the allowed ones (exact scan if too few
    /// survive); below it, scan the allowed vectors exactly.
    float hnsw_filter_min_fraction = 0.05f;
    std::size_t hnsw_m = 16;
    std::size_t hnsw_ef_construction = 200;
    std::size_t hnsw_ef_search = 64;
    std::uint64_t seed = 42;  ///< HNSW level generation; fixed so rankings are reproducible
};

/// How the BM25 and dense lists become one ranking.
enum class FusionMethod : std::uint8_t {
    /// Reciprocal Rank Fusion (Cormack, Clarke & Buettcher, SIGIR 2009): sum 1 / (k + rank).
    rrf,
    /// RRF with a weight per branch: sum w / (k + rank).
    weighted_rrf,
    /// Min-max normalized scores combined with the branch weights (CombSUM, Fox & Shaw 1994);
    /// uses how far apart the scores are, not only their order.
    score_blend,
    /// BM25-anchored, confidence-gated blend: the first list (BM25) is the anchor. Scores are
    /// min-max normalized per list; the dense list adds weight x gate x its normalized score.
    /// The gate is 1 - the anchor's confidence (the gap between its top-1 and top-2 scores over
    /// the spread of its list: 1 = a clear winner, 0 = flat), and 0 when the dense top-1 is not
    /// among the anchor's candidates (the branches disagree on the topic). The anchor's own
    /// top-1 stays first, so dense evidence reorders and fills the rest of the list.
    anchored,
};

/// Every method, in the order tables list them.
inline constexpr FusionMethod kFusionMethods[] = {FusionMethod::rrf, FusionMethod::weighted_rrf,
                                                  FusionMethod::score_blend, FusionMethod::anchored};

/// "rrf", "weighted_rrf", "score_blend" or "anchored".
[[nodiscard]] std::string_view fusion_method_name(FusionMethod method) noexcept;
/// The method of that exact name, or nullopt.
[[nodiscard]] std::optional<FusionMethod> parse_fusion_method(std::string_view name) noexcept;

/// Defaults chosen by measurement on the public datasets (docs/quality.md): with the
/// offline static embedder the dense branch is much weaker than BM25, and plain RRF (the
/// paper's method) loses Hit@1 to BM25 alone on every dataset; `anchored` with dense weight
/// 0.2 keeps BM25's Hit@1 and adds dense candidates further down.
struct FusionOptions {
    FusionMethod method = FusionMethod::anchored;
    double rrf_k = 60.0;
    /// Each branch fetches top_k * fetch_factor candidates (the paper: 3).
    std::size_t fetch_factor = 3;
    double bm25_weight = 1.0;   ///< weighted_rrf, score_blend and anchored
    double dense_weight = 0.2;  ///< weighted_rrf, score_blend and anchored
    /// anchored: the dense gate is also multiplied by the dense list's own confidence raised to
    /// this power, so a flat, uncertain dense list moves the ranking less; 0 ignores it.
    double dense_confidence_power = 0.3;
};

/// Query expansion for the BM25 branch with the built-in lexicon of tool language.
struct ExpansionOptions {
    bool lexicon = true;
    /// Weight of an added word relative to the query's own words (1).
    float weight = 0.2f;
    /// Word-vector neighbour expansion (needs an embedder with word_vectors(), e.g.
    /// StaticEmbedder): each query word adds up to this many of its nearest catalog words
    /// (cosine >= neighbour_min_similarity) to the BM25 query, each weighted
    /// neighbour_weight x cosine. 0 (the default) turns it off: with GloVe 100d it moved Hit@1
    /// by at most +0.02 and cost MRR elsewhere (docs/query-expansion.md), so it is opt-in.
    std::size_t neighbours = 0;
    float neighbour_weight = 0.1f;
    float neighbour_min_similarity = 0.6f;
    /// Weight of the query's action term ("remove the file" -> delete, "show me the keys" ->
    /// list), which matches tools whose name has that action; 0 turns it off.
    float action_weight = 1.0f;
    /// BM25 scores of tools whose action is the query's are multiplied by 1 + action_boost.
    /// Small: it settles near-ties between siblings (keyvault_key_get vs keyvault_key_list)
    /// without overturning a clearly better match; 0 turns it off.
    float action_boost = 0.05f;
    /// Weight of compound words rejoined or split against the catalog's vocabulary ("key vault"
    /// adds "keyvault", "cosmosdb" adds "cosmos db"); 0 turns it off.
    float compound_weight = 0.5f;
    /// Weight of the query's adjacent word pairs, which match the same pairs in a tool's name
    /// or description (word order and adjacency); 0 turns it off.
    float pair_weight = 0.5f;
};

struct CatalogOptions {
    AnalyzerOptions analyzer;
    Bm25Options bm25;
    DenseOptions dense;
    FusionOptions fusion;
    ExpansionOptions expansion;
    std::size_t embed_batch = 16;  ///< texts per Embedder::embed call when indexing
};

}  // namespace scout
