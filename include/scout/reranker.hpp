// reranker.hpp: a learned linear re-ranker over a search's first fused candidates. Each
// candidate gets features that carry across catalogs (the branches' scores and ranks, how much
// of the query each field of the tool covers, per-field BM25, name matches, late interaction
// over word vectors); the model's score sum(w_i x_i) + bias orders them. The weights are a
// small text file (training/train_reranker.py writes it).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "scout/export.hpp"
#include "scout/status.hpp"

namespace scout {

/// The re-ranker's features, in the order a weights file lists them.
enum class RerankFeature : std::uint8_t {
    bm25_relative,         ///< BM25 score over the best BM25 score among the candidates
    bm25_reciprocal_rank,  ///< 1 / BM25 rank, 0 when BM25 did not fetch it
    dense_cosine,          ///< the dense branch's cosine, 0 when it did not fetch it
    dense_relative,        ///< cosine min-max scaled over the candidates the dense branch fetched
    dense_reciprocal_rank,
    fused_relative,  ///< the fused score over the best fused score
    in_both,         ///< 1 when both branches fetched it
    cover_name,      ///< IDF-weighted share of the query's words in the tool name and title
    cover_description,
    cover_parameters,  ///< ... in the input schema's text
    cover_server,
    cover_any,            ///< ... in any of those fields
    name_words_in_query,  ///< share of the tool name's words that the query holds
    name_in_query,        ///< 1 when the query holds all the tool name's words, in order
    /// BM25 of the query's words over one field alone (k1 1.2, b 0.75, the field's mean length
    /// over the candidates), over the best such score among the candidates
    bm25_name,
    bm25_description,
    bm25_parameters,
    bm25_server,
    /// Late interaction: each query word's best cosine to a word of the tool's name, title and
    /// description (the embedder's word vectors), IDF-weighted mean; 0 without word vectors
    maxsim,
    maxsim_relative,  ///< maxsim over the best maxsim among the candidates
    /// BM25's confidence in its first place, on that candidate only (0 on the others):
    /// (s1 - s2) / s1 of BM25's two best scores, so a model can learn when to keep BM25's top
    bm25_top_margin,
};
inline constexpr std::size_t kRerankFeatureCount = 21;

/// The feature's name in a weights file ("bm25_relative", ...).
[[nodiscard]] SCOUT_API std::string_view rerank_feature_name(RerankFeature feature) noexcept;

/// A linear model over the features. All-zero weights (the default) keep the fused order.
class SCOUT_API Reranker {
public:
    std::array<double, kRerankFeatureCount> weights{};
    double bias = 0;
    /// How many of the fused candidates, from the first, the model re-orders; the rest stay
    /// after them in fused order. 0: every candidate. A depth of top_k or less keeps the fused
    /// top k as a set (the default fusion's is BM25's), so Hit@k cannot fall below it.
    std::size_t depth = 0;

    /// The model's score of one candidate's features.
    [[nodiscard]] double score(
        const std::array<float, kRerankFeatureCount>& features) const noexcept;

    /// The text form: "scout-reranker 1", "features N", one "name weight" line per feature in
    /// order, "bias B", "depth D" when depth is not 0, "end". Weights are written so that
    /// parsing them gives the same doubles.
    [[nodiscard]] std::string serialize() const;
    /// Reads the text form. Refuses (invalid_argument, naming the line) another format or
    /// version, a feature list other than this build's, a number that is not finite, and a
    /// file without its closing "end" line (truncated).
    [[nodiscard]] static Result<Reranker> parse(std::string_view text);

    [[nodiscard]] static Result<Reranker> open(const std::filesystem::path& path);
    [[nodiscard]] Status save(const std::filesystem::path& path) const;

    friend bool operator==(const Reranker&, const Reranker&) = default;
};

}  // namespace scout
