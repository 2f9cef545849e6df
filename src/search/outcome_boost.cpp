// outcome_boost.cpp: see outcome_boost.hpp.
#include "search/outcome_boost.hpp"

#include <algorithm>
#include <cmath>

#include "search/exact_names.hpp"
#include "search/scope.hpp"

namespace scout::detail {

void apply_outcome_prior(const Snapshot& snap,
                         const OutcomePrior& prior,
                         std::string_view query,
                         const SearchOptions& options,
                         std::vector<Hit>& hits) {
    if (prior.empty() || hits.size() < 2) {
        return;
    }
    std::size_t fixed = 0;  // exact-name hits lead and keep their place
    if (options.exact_name_first) {
        const std::optional<Bitset> filter = scope_filter(snap, options);
        const std::vector<ToolId> exact =
            exact_name_matches(snap, query, filter ? &*filter : nullptr);
        while (fixed < hits.size() &&
               std::find(exact.begin(), exact.end(), hits[fixed].id) != exact.end()) {
            ++fixed;
        }
    }
    const std::vector<std::string> terms = snap.analyzer.analyze(query);
    double scale = 0;
    for (std::size_t i = fixed; i < hits.size(); ++i) {
        scale = std::max(scale, std::abs(static_cast<double>(hits[i].score)));
    }
    std::vector<std::pair<double, std::size_t>> order;  // (adjusted score, original place)
    bool moved = false;
    for (std::size_t i = fixed; i < hits.size(); ++i) {
        const double e = prior.endorsement(terms, outcome_tool_key(hits[i].server, hits[i].tool));
        moved = moved || e > 0;
        order.emplace_back(
            static_cast<double>(hits[i].score) + SearchOptions::kMaxOutcomeBoost * e * scale, i);
    }
    if (!moved) {
        return;
    }
    std::stable_sort(
        order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<Hit> ranked(hits.begin(), hits.begin() + static_cast<std::ptrdiff_t>(fixed));
    for (const auto& [score, i] : order) {
        ranked.push_back(std::move(hits[i]));
        ranked.back().score = static_cast<float>(score);
    }
    hits = std::move(ranked);
}

}  // namespace scout::detail
