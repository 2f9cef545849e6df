// outcome_prior.cpp: see outcome_prior.hpp.
#include "outcomes/outcome_prior.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace scout::detail {
namespace {

double decay_factor(std::uint64_t elapsed) {
    return std::exp2(-static_cast<double>(elapsed) / OutcomePrior::limits().half_life);
}

/// Drops the entry of `map` with the least decayed weight, never `keep`: the bound on memory.
template <typename Map, typename Weight>
void evict_lightest(Map& map, std::string_view keep, Weight weight) {
    auto lightest = map.end();
    double least = 0;
    for (auto it = map.begin(); it != map.end(); ++it) {
        if (it->first == keep) {
            continue;
        }
        const double w = weight(it->second);
        if (lightest == map.end() || w < least) {
            lightest = it;
            least = w;
        }
    }
    if (lightest != map.end()) {
        map.erase(lightest);
    }
}

}  // namespace

const OutcomeLimits& OutcomePrior::limits() noexcept {
    static const OutcomeLimits limits;
    return limits;
}

std::string outcome_tool_key(std::string_view server, std::string_view tool) {
    std::string key;
    key.reserve(server.size() + tool.size() + 1);
    key.append(server).append(1, '\n').append(tool);
    return key;
}

OutcomeCounts OutcomePrior::decayed(const OutcomeCounts& c) const noexcept {
    if (c.tick >= tick_) {
        return c;
    }
    const double f = decay_factor(tick_ - c.tick);
    return {c.success * f, c.failure * f, tick_};
}

void OutcomePrior::record(std::span<const std::string> terms,
                          const std::string& tool,
                          bool success) {
    ++tick_;
    const OutcomeLimits& lim = limits();
    auto bump = [&](OutcomeCounts& c) {
        c = decayed(c);
        (success ? c.success : c.failure) += 1;
    };
    auto weight = [&](const OutcomeCounts& c) {
        const OutcomeCounts d = decayed(c);
        return d.success + d.failure;
    };
    bump(tools_[tool]);
    if (tools_.size() > lim.max_tools) {
        evict_lightest(tools_, tool, weight);
    }
    const std::set<std::string_view> distinct(terms.begin(), terms.end());
    for (std::string_view term : distinct) {
        auto it = terms_.find(term);
        if (it == terms_.end()) {
            it = terms_.emplace(std::string(term), ToolMap{}).first;
        }
        bump(it->second[tool]);
        if (it->second.size() > lim.max_tools_per_term) {
            evict_lightest(it->second, tool, weight);
        }
    }
    if (terms_.size() > lim.max_terms) {
        for (std::size_t n = terms_.size() - lim.max_terms; n > 0; --n) {
            auto term_weight = [&](const ToolMap& tools) {
                double sum = 0;
                for (const auto& [key, c] : tools) {
                    sum += weight(c);
                }
                return sum;
            };
            evict_lightest(terms_, distinct.empty() ? "" : *distinct.begin(), term_weight);
        }
    }
}

double OutcomePrior::endorsement(std::span<const std::string> terms, std::string_view tool) const {
    if (tools_.empty() || terms.empty()) {
        return 0;
    }
    const auto own = tools_.find(tool);
    if (own == tools_.end()) {
        return 0;
    }
    const std::set<std::string_view> distinct(terms.begin(), terms.end());
    double support = 0;
    for (std::string_view term : distinct) {
        const auto t = terms_.find(term);
        if (t == terms_.end()) {
            continue;
        }
        double mine = 0;
        double all = 0;
        for (const auto& [key, counts] : t->second) {
            const OutcomeCounts d = decayed(counts);
            const double net = std::max(0.0, d.success - d.failure);
            all += net;
            if (key == tool) {
                mine = net;
            }
        }
        support += mine / (all + 1);  // +1: one success is half an endorsement, not a whole one
    }
    support /= static_cast<double>(distinct.size());
    const OutcomeCounts d = decayed(own->second);
    const double reliability = (d.success + 1) / (d.success + d.failure + 2);
    return support * reliability;
}

void OutcomePrior::restore(std::uint64_t tick, ToolMap tools, TermMap terms) {
    tick_ = tick;
    tools_ = std::move(tools);
    terms_ = std::move(terms);
}

}  // namespace scout::detail
