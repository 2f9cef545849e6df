// hashing_embedder.cpp: the feature-hashing trick (Weinberger et al., ICML 2009): each analyzed
// word and each character trigram of it adds +-1 to one of `dim` buckets.
#include "scout/embedder.hpp"

#include "analysis/analyzer.hpp"
#include "util/hash.hpp"

namespace scout {
namespace {

using detail::Analyzer;
using detail::fnv1a;
using detail::mix64;

void add_feature(std::vector<float>& row, std::size_t dim, std::string_view feature, float weight) {
    const std::uint64_t h = mix64(fnv1a(feature));
    const float sign = (h >> 63U) != 0 ? -1.0f : 1.0f;
    row[static_cast<std::size_t>(h % dim)] += sign * weight;
}

}  // namespace

std::string HashingEmbedder::model_id() const {
    return "scout-hashing-v1-" + std::to_string(dim_);
}

Result<std::vector<float>> HashingEmbedder::embed(std::span<const std::string> texts) {
    static const Analyzer analyzer(AnalyzerOptions{
        .split_identifiers = true, .remove_stop_words = true, .stem = true, .max_token_bytes = 64});
    std::vector<float> out(texts.size() * dim_, 0.0f);
    std::vector<std::string> words;
    for (std::size_t t = 0; t < texts.size(); ++t) {
        std::vector<float> row(dim_, 0.0f);
        words.clear();
        analyzer.analyze(texts[t], words);
        for (const std::string& w : words) {
            add_feature(row, dim_, w, 1.0f);
            const std::string padded = "<" + w + ">";
            for (std::size_t i = 0; i + 3 <= padded.size(); ++i) {
                add_feature(row, dim_, std::string_view(padded).substr(i, 3), 0.3f);
            }
        }
        std::copy(row.begin(), row.end(), out.begin() + static_cast<std::ptrdiff_t>(t * dim_));
    }
    return out;
}

}  // namespace scout
