// rerank_maxsim.cpp: see rerank_maxsim.hpp. A tool's words are read from its name, title and
// description up to a bound; each distinct word's cosines to the query words are computed once per
// search, since sibling candidates share most of their words.
#include "search/rerank_maxsim.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <unordered_map>

#include "analysis/analyzer.hpp"
#include "analysis/stem_memo.hpp"

namespace scout::detail {
namespace {

/// Words of a tool that the score reads: its name and title, then its description's first words.
constexpr std::size_t kMaxToolWords = 64;
constexpr std::size_t kMaxTextBytes = 1024;

/// Each distinct word of the candidates: its cosine to every query word, computed once per
/// search (sibling candidates share most of their words). Empty when the model has no vector.
class SimilarityCache {
public:
    SimilarityCache(const WordVectors& vectors, const RerankQueryWords& q)
        : vectors_(vectors), dim_(vectors.dim()), scratch_(vectors.dim()) {
        query_.resize(q.surface.size());
        for (std::size_t i = 0; i < q.surface.size(); ++i) {
            if (unit_vector(q.surface[i], scratch_.data())) {
                query_[i] = scratch_;
            }
        }
    }

    /// The cosines of `word` to the query words (0 for a query word without a vector), or null
    /// when the model has no vector for `word`.
    const std::vector<float>* get(std::string_view word) {
        auto it = index_.find(word);
        if (it != index_.end()) {
            return it->second.empty() ? nullptr : &it->second;
        }
        it = index_.try_emplace(std::string(word)).first;
        if (unit_vector(word, scratch_.data())) {
            it->second.resize(query_.size());
            for (std::size_t i = 0; i < query_.size(); ++i) {
                it->second[i] = query_[i].empty() ? 0.0f : dot(query_[i].data(), scratch_.data());
            }
        }
        return it->second.empty() ? nullptr : &it->second;
    }
    [[nodiscard]] bool has_vector(std::size_t query_word) const noexcept {
        return !query_[query_word].empty();
    }

private:
    bool unit_vector(std::string_view word, float* v) const {
        if (!vectors_.lookup(word, v)) {
            return false;
        }
        double norm = 0;
        for (std::size_t i = 0; i < dim_; ++i) {
            norm += static_cast<double>(v[i]) * static_cast<double>(v[i]);
        }
        if (!(norm > 0) || !std::isfinite(norm)) {
            return false;
        }
        const auto scale = static_cast<float>(1.0 / std::sqrt(norm));
        for (std::size_t i = 0; i < dim_; ++i) {
            v[i] *= scale;
        }
        return true;
    }

    /// Eight partial sums, so the compiler can keep them in one vector register.
    float dot(const float* a, const float* b) const {
        float part[8] = {};
        std::size_t i = 0;
        for (; i + 8 <= dim_; i += 8) {
            for (std::size_t j = 0; j < 8; ++j) {
                part[j] += a[i + j] * b[i + j];
            }
        }
        float sum = 0;
        for (; i < dim_; ++i) {
            sum += a[i] * b[i];
        }
        for (const float p : part) {
            sum += p;
        }
        return sum;
    }

    const WordVectors& vectors_;
    std::size_t dim_;
    std::vector<float> scratch_;
    std::vector<std::vector<float>> query_;  // unit vectors; empty: none
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const noexcept {
            return std::hash<std::string_view>{}(s);
        }
    };
    std::unordered_map<std::string, std::vector<float>, Hash, std::equal_to<>> index_;
};

void tool_words(const Hit& h, std::string& arena, std::vector<RawToken>& tokens) {
    arena.clear();
    tokens.clear();
    Analyzer::raw_tokens(h.tool, true, false, arena, tokens);
    Analyzer::raw_tokens(h.title, true, false, arena, tokens);
    Analyzer::raw_tokens(
        std::string_view(h.description).substr(0, kMaxTextBytes), true, false, arena, tokens);
    if (tokens.size() > kMaxToolWords) {
        tokens.resize(kMaxToolWords);
    }
}

}  // namespace

std::vector<double> maxsim_scores(const RerankQueryWords& q,
                                  std::span<const Hit> hits,
                                  const WordVectors* vectors) {
    if (vectors == nullptr || vectors->dim() == 0 || q.distinct.empty() || !(q.idf_sum > 0)) {
        return {};
    }
    SimilarityCache cache(*vectors, q);
    std::vector<double> scores;
    scores.reserve(hits.size());
    std::string arena;
    std::vector<RawToken> tokens;
    std::vector<float> best(q.distinct.size());
    for (const Hit& h : hits) {
        std::fill(best.begin(), best.end(), 0.0f);
        tool_words(h, arena, tokens);
        for (const RawToken& t : tokens) {
            const std::string_view word(arena.data() + t.begin, t.size);
            if (word.empty() || is_stop_word(word)) {
                continue;
            }
            const std::vector<float>* sims = cache.get(word);
            const std::string* stem = nullptr;
            for (std::size_t i = 0; i < best.size(); ++i) {
                if (best[i] >= 1.0f) {
                    continue;
                }
                if (sims != nullptr && cache.has_vector(i)) {
                    best[i] = std::max(best[i], (*sims)[i]);
                } else if (!cache.has_vector(i)) {
                    if (stem == nullptr) {
                        stem = &memo_porter_stem(word);
                    }
                    if (*stem == q.distinct[i]) {
                        best[i] = 1.0f;
                    }
                }
            }
        }
        double sum = 0;
        for (std::size_t i = 0; i < best.size(); ++i) {
            sum += q.idf[i] * std::clamp(static_cast<double>(best[i]), 0.0, 1.0);
        }
        scores.push_back(sum / q.idf_sum);
    }
    return scores;
}

}  // namespace scout::detail
