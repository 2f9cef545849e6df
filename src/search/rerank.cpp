// rerank.cpp: see rerank.hpp.
#include "search/rerank.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace scout::detail {

void rerank_hits(const Reranker& model,
                 std::span<const RerankFeatures> features,
                 std::vector<Hit>& hits) {
    std::size_t n = std::min(features.size(), hits.size());
    if (model.depth != 0) {
        n = std::min(n, model.depth);
    }
    std::vector<double> scores(n);
    for (std::size_t i = 0; i < n; ++i) {
        scores[i] = model.score(features[i]);
    }
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&scores](std::size_t a, std::size_t b) {
        return scores[a] > scores[b];
    });
    const auto probability = [](double s) {
        return static_cast<float>(1.0 / (1.0 + std::exp(-s)));
    };
    std::vector<Hit> sorted;
    sorted.reserve(hits.size());
    for (const std::size_t i : order) {
        hits[i].score = probability(scores[i]);
        sorted.push_back(std::move(hits[i]));
    }
    // The hits past the depth (which have no feature row) keep their fused order and score
    // after the re-ordered ones, capped so that scores still descend.
    for (std::size_t i = n; i < hits.size(); ++i) {
        if (!sorted.empty()) {
            hits[i].score = std::min(hits[i].score, sorted.back().score);
        }
        sorted.push_back(std::move(hits[i]));
    }
    hits = std::move(sorted);
}

std::vector<RerankCandidate> rerank_candidates(std::span<const Hit> hits,
                                               std::span<const RerankFeatures> features) {
    std::vector<RerankCandidate> out;
    const std::size_t n = std::min(features.size(), hits.size());
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        out.push_back({ToolKey{hits[i].server, hits[i].tool},
                       std::vector<float>(features[i].begin(), features[i].end())});
    }
    return out;
}

}  // namespace scout::detail
