// options.hpp: index-time settings of a Catalog (analysis, BM25, dense index, fusion).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "scout/export.hpp"
#include "scout/status.hpp"

namespace scout {

/// Text analysis shared by indexing and querying (the Lucene-style chain).
struct AnalyzerOptions {
    /// Split identifiers: snake_case, camelCase, kebab-case, dotted.names and letter/digit runs.
    bool split_identifiers = true;
    /// With split_identifiers, a word that case changes split ("MySQL", "GitHub") is also kept
    /// whole ("mysql"), after its parts.
    bool keep_joined_case = true;
    bool remove_stop_words = true;
    /// Porter (1980) suffix stripping of English words.
    bool stem = true;
    /// With stemming, also keep each word's surface form: a word then yields both "word" and
    /// "~stem", so exact matches outscore matches by stem alone.
    bool keep_surface = true;
    /// Longer tokens are cut to this many bytes (at a UTF-8 boundary), so huge inputs stay cheap.
    std::size_t max_token_bytes = 64;

    friend bool operator==(const AnalyzerOptions&, const AnalyzerOptions&) = default;
};

/// Weight of each tool-document field in BM25's term frequency and length (BM25F-style,
/// Robertson, Zaragoza & Taylor 2004: weights scale term counts before saturation).
struct FieldWeights {
    float name = 3.0f;                ///< tool name words and title
    float server = 1.0f;              ///< server name, category, environment label
    float server_description = 0.5f;  ///< domain context (helps area-of-expertise queries)
    float description = 1.0f;
    float parameters = 0.5f;  ///< parameter names, descriptions and enum values
    /// The tool's action (get, list, create, delete, ... read off its name) as one index term;
    /// 0 leaves it out. Queries match it through ExpansionOptions::action_weight.
    float action = 3.0f;
    /// Adjacent word pairs of the tool name and of its description, as index terms; 0 leaves
    /// them out. Queries match them through ExpansionOptions::pair_weight.
    float word_pairs = 1.0f;

    friend bool operator==(const FieldWeights&, const FieldWeights&) = default;
};

/// Okapi BM25. k1 = 1.2 and b = 0.75 are the classic defaults (Robertson & Zaragoza 2009).
struct Bm25Options {
    float k1 = 1.2f;
    float b = 0.75f;
    FieldWeights weights;

    friend bool operator==(const Bm25Options&, const Bm25Options&) = default;
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
    /// re-scored pool. The int8 copies add a quarter to the vectors' memory. True forces it for
    /// any size; see int8_min_tools for the automatic choice.
    bool int8_scan = false;
    /// With `automatic`, exact search (catalogs below hnsw_min_tools) scans int8 copies from this
    /// many tools on. Measured (docs/performance.md): from about 500 tools the int8 scan is the
    /// faster at 256 to 1,536 dimensions, 2-4x at 3,000 tools, and its top-10 equalled the fp32
    /// scan's for every query of the public datasets. Files without the key (format < 1.3) read
    /// it as never, which reproduces them.
    std::size_t int8_min_tools = 1000;
    std::size_t int8_rescore_factor = 3;
    /// HNSW with a scope filter: when at least this fraction of the tools is allowed, search the
    /// graph for k / fraction * 2 candidates and keep the allowed ones (exact scan if too few
    /// survive); below it, scan the allowed vectors exactly.
    float hnsw_filter_min_fraction = 0.05f;
    std::size_t hnsw_m = 16;
    std::size_t hnsw_ef_construction = 200;
    /// The graph's search width (candidates a search keeps) at up to hnsw_ef_base_tools points.
    std::size_t hnsw_ef_search = 64;
    /// Beyond this many points the search width grows with the square root of the graph's
    /// size, hnsw_ef_search x sqrt(points / hnsw_ef_base_tools), because a fixed width finds
    /// fewer of the true neighbours as the graph grows. Measured (docs/performance.md, vectors
    /// of real tool text): recall@10 against exact search at ef 64 is 0.95 at 100,000 points
    /// and 0.84 at 1,000,000; with this rule 0.98 and 0.97. 0 keeps hnsw_ef_search at every size;
    /// files without the key (format < 1.5) read it as 0, which reproduces them.
    std::size_t hnsw_ef_base_tools = 20000;
    /// The graph stores and compares int8 codes of the vectors (a quarter of the bytes each
    /// step of the traversal reads; the distances are the int8 scan's estimates), and a
    /// search re-scores its ef candidates exactly in fp32, so returned scores are exact.
    /// Measured (docs/performance.md): faster to build and to search than fp32 elements, and the
    /// graph keeps a quarter of the fp32 copy it held. Files without the key (format < 1.4) read
    /// it as false, which reproduces them.
    bool hnsw_int8 = true;
    std::uint64_t seed = 42;  ///< HNSW level generation; fixed so rankings are reproducible

    friend bool operator==(const DenseOptions&, const DenseOptions&) = default;
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
    /// Agreement-gated blend: BM25's scores divided by its top score (or min-max normalized, see
    /// gated_relative_bm25) at bm25_weight, each dense list min-max normalized at
    /// gated_dense_weight x a per-query gate: 1 when the dense top-1 is among BM25's first
    /// agreement_depth candidates, else disagreement_gate; times the dense list's confidence to
    /// gated_confidence_power; times the share of candidates the two lists have in common to
    /// overlap_power. Unlike `anchored` nothing is pinned, so with a dense weight above 0 a
    /// dense list that agrees with BM25 can settle its near-ties, including the first place.
    gated,
};

/// Every method, in the order tables list them.
inline constexpr FusionMethod kFusionMethods[] = {FusionMethod::rrf,
                                                  FusionMethod::weighted_rrf,
                                                  FusionMethod::score_blend,
                                                  FusionMethod::anchored,
                                                  FusionMethod::gated};

/// "rrf", "weighted_rrf", "score_blend", "anchored" or "gated".
[[nodiscard]] SCOUT_API std::string_view fusion_method_name(FusionMethod method) noexcept;
/// The method of that exact name, or nullopt.
[[nodiscard]] SCOUT_API std::optional<FusionMethod> parse_fusion_method(
    std::string_view name) noexcept;

/// Defaults (docs/quality.md): `gated` with dense weight 0, the setting `scout calibrate` fits
/// to the offline static model on the training sets (../shared/training, leave-one-source-out):
/// no dense weight above 0 kept the training sets' mean Hit@1, Hit@5 and MRR at or above BM25's.
/// The fused ranking is then BM25's by construction: the dense list only settles BM25's exact
/// ties and fills the list after BM25's candidates, so the hybrid is never below BM25 alone.
/// Plain RRF (the paper's method) loses Hit@1 to BM25 alone on every dataset.
struct FusionOptions {
    FusionMethod method = FusionMethod::gated;
    double rrf_k = 60.0;
    /// Each branch fetches top_k * fetch_factor candidates (the paper: 3).
    std::size_t fetch_factor = 3;
    double bm25_weight = 1.0;   ///< weighted_rrf, score_blend and anchored
    double dense_weight = 0.2;  ///< weighted_rrf, score_blend and anchored
    /// anchored: the dense gate is also multiplied by the dense list's own confidence raised to
    /// this power, so a flat, uncertain dense list moves the ranking less; 0 ignores it.
    double dense_confidence_power = 0.3;
    /// gated: weight of the dense list (before its gate); 0 keeps BM25's order (see above).
    double gated_dense_weight = 0.0;
    /// gated: the dense top-1 "agrees" when it is among this many of BM25's first candidates.
    std::size_t agreement_depth = 3;
    /// gated: gate of a dense list whose top-1 does not agree (1 = no penalty, 0 = ignored).
    double disagreement_gate = 1.0;
    /// gated: power of the dense list's own confidence in its gate; 0 ignores it.
    double gated_confidence_power = 0.0;
    /// gated: power of the candidate overlap in the dense gate: the share of the dense list's
    /// candidates that BM25 also fetched (over the longer list). A query whose two lists share
    /// few candidates is one the branches read differently, and there the weaker dense branch
    /// is more often wrong; 0 ignores it.
    double overlap_power = 2.0;
    /// gated: BM25's scores divided by its top score (true) rather than min-max scaled, so its
    /// near-ties stay near and a small dense weight can settle them.
    bool gated_relative_bm25 = true;

    friend bool operator==(const FusionOptions&, const FusionOptions&) = default;
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

    friend bool operator==(const ExpansionOptions&, const ExpansionOptions&) = default;
};

struct CatalogOptions {
    AnalyzerOptions analyzer;
    Bm25Options bm25;
    DenseOptions dense;
    FusionOptions fusion;
    ExpansionOptions expansion;
    std::size_t embed_batch = 16;  ///< texts per Embedder::embed call when indexing
    /// Threads a commit uses, counting the committing one, for analyzing documents, embedding
    /// batches and building the HNSW graph; 0 = std::thread::hardware_concurrency(), 1 = none
    /// besides the committing thread. A setting of this process, not of the index: index files
    /// do not store it (an opened catalog uses 0). BM25 and exact dense results are the same
    /// for every value; an HNSW graph built with more than one thread depends on scheduling, so
    /// its approximate results can differ slightly between builds.
    std::size_t threads = 0;

    friend bool operator==(const CatalogOptions&, const CatalogOptions&) = default;
};

/// The kind of value an option holds, as text and in JSON.
enum class OptionType : std::uint8_t {
    flag,    ///< true or false
    whole,   ///< an unsigned integer
    real,    ///< a finite number
    choice,  ///< one of a few names (dense.kind, fusion.method)
};

/// What an index file written before an option existed reads as, when its key is absent.
enum class WhenAbsent : std::uint8_t {
    required,    ///< the file is refused as corrupt
    off,         ///< 0 or false: the setting off, which reproduces the older file
    as_default,  ///< the default (the option had no effect in files that could lack it)
    largest,     ///< the largest value (e.g. dense.int8_min_tools: never)
};

/// One setting of CatalogOptions. The table of them (option_fields()) is the one place that
/// names, bounds, documents and defaults a setting: the index file codec, Catalog::create's
/// check, the CLI's --option flag and the list in docs/FORMAT.md all read it.
struct OptionField {
    /// Dotted path: the key in index files (META.options) and in the C ABI's JSON options,
    /// e.g. "bm25.weights.name".
    std::string_view key;
    OptionType type = OptionType::real;
    double min = 0;  ///< inclusive bounds of a whole or real value
    double max = 0;  ///< (a whole bound of 2^64 - 1 prints as "max")
    WhenAbsent when_absent = WhenAbsent::required;
    /// False for a setting of the process rather than of the index (threads): files do not
    /// store it.
    bool stored = true;
    std::string_view help;

    /// "automatic|flat|hnsw" for a choice, empty otherwise.
    [[nodiscard]] SCOUT_API std::string_view choices() const noexcept;
};

/// Every setting, in the order of CatalogOptions' members.
[[nodiscard]] SCOUT_API std::span<const OptionField> option_fields() noexcept;
/// The setting of that dotted key, or nullptr.
[[nodiscard]] SCOUT_API const OptionField* find_option(std::string_view key) noexcept;
/// A setting's value as text: "true", "16", "0.75", "gated" (reals with the shortest text that
/// reads back to the same value).
[[nodiscard]] SCOUT_API std::string option_text(const CatalogOptions& options,
                                                const OptionField& field);
/// Sets the setting `key` from text ("true"/"false", a number, a choice's name), checked against
/// its bounds; invalid_argument naming the key and the bounds otherwise.
[[nodiscard]] SCOUT_API Status set_option(CatalogOptions& options,
                                          std::string_view key,
                                          std::string_view value);
/// OK when every setting is within its bounds (what an index file can store and read back);
/// otherwise invalid_argument naming the first that is not. Catalog::create calls it.
[[nodiscard]] SCOUT_API Status check_options(const CatalogOptions& options);

/// The first line of every fusion calibration file (`scout calibrate`); the number is the format
/// version.
inline constexpr std::string_view kCalibrationHeader = "scout-calibration 1";

/// What a calibration file holds: the model the fusion was fitted for, and the fusion settings.
struct Calibration {
    /// Embedder::model_id() of the embedder as created, before it saw any catalog.
    std::string model_id;
    FusionOptions fusion;
    /// Free text written as `#` comment lines (how the settings were chosen); not read back.
    std::string notes;

    friend bool operator==(const Calibration& a, const Calibration& b) {
        return a.model_id == b.model_id && a.fusion == b.fusion;
    }
};

/// A calibration file's text: the header, `model ID`, one `fusion.KEY VALUE` line per fusion
/// setting of the option table, and `end` (so a truncated file is told apart from a complete one).
[[nodiscard]] SCOUT_API std::string format_calibration(const Calibration& calibration);

/// Reads format_calibration's text. invalid_argument naming the line for a missing or other
/// header (version_unsupported for another version), an unknown or repeated key, a value out of
/// the option's bounds or not finite, a missing `model` line, or no `end` line (truncated).
/// Blank lines and lines starting with `#` are skipped; settings not listed keep their defaults.
[[nodiscard]] SCOUT_API Result<Calibration> parse_calibration(std::string_view text);

/// parse_calibration of a file's bytes (a regular file of at most 64 KiB), its errors starting
/// with "calibration file PATH"; io_error when it cannot be read.
[[nodiscard]] SCOUT_API Result<Calibration> read_calibration(const std::string& path);

/// OK when `calibration` was fitted for `model_id` (Embedder::model_id() of the embedder as
/// created; "" for none); embedder_mismatch naming both models otherwise. `file` names the
/// calibration in the message.
[[nodiscard]] SCOUT_API Status check_calibration_model(const Calibration& calibration,
                                                       std::string_view model_id,
                                                       std::string_view file);

}  // namespace scout
