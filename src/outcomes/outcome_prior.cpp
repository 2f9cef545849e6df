// outcome_prior.cpp: see outcome_prior.hpp.
#include "outcomes/outcome_prior.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <utility>
#include <vector>

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

std::size_t shard_of(std::string_view key, std::size_t shards) {
    return std::hash<std::string_view>{}(key) % shards;
}

/// `piece`, ready to change: a copy of it first while another prior shares it.
template <typename T>
T& writable(std::shared_ptr<T>& piece) {
    if (!piece) {
        piece = std::make_shared<T>();
    } else if (piece.use_count() > 1) {
        piece = std::make_shared<T>(*piece);
    }
    return *piece;
}

/// The keys of the `count` lightest of `weighted`, ties broken by key so eviction is repeatable.
std::vector<std::string> lightest(std::vector<std::pair<double, const std::string*>>& weighted,
                                  std::size_t count) {
    count = std::min(count, weighted.size());
    const auto lighter = [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first < b.first : *a.second < *b.second;
    };
    std::nth_element(weighted.begin(),
                     weighted.begin() + static_cast<std::ptrdiff_t>(count),
                     weighted.end(),
                     lighter);
    std::vector<std::string> keys;
    keys.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        keys.push_back(*weighted[i].second);
    }
    return keys;
}

/// How many entries past a cap of `cap` to drop: down to the evict fraction below the cap.
std::size_t excess(std::size_t count, std::size_t cap) {
    const auto spare =
        static_cast<std::size_t>(static_cast<double>(cap) * OutcomePrior::limits().evict_fraction);
    return count - (cap - std::min(spare, cap));
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

double OutcomePrior::weight(const OutcomeCounts& c) const noexcept {
    const OutcomeCounts d = decayed(c);
    return d.success + d.failure;
}

const OutcomePrior::ToolMap* OutcomePrior::find_term(std::string_view term) const {
    const TermShard& shard = term_shards_[shard_of(term, kShards)];
    if (!shard) {
        return nullptr;
    }
    const auto it = shard->find(term);
    return it == shard->end() ? nullptr : it->second.get();
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
    {
        auto [it, added] = writable(tool_shards_[shard_of(tool, kShards)]).try_emplace(tool);
        tool_count_ += added ? 1 : 0;
        bump(it->second);
    }
    if (tool_count_ > lim.max_tools) {
        evict_tools(tool);
    }
    const std::set<std::string_view> distinct(terms.begin(), terms.end());
    for (std::string_view term : distinct) {
        auto& shard = writable(term_shards_[shard_of(term, kShards)]);
        auto it = shard.find(term);
        if (it == shard.end()) {
            it = shard.emplace(std::string(term), std::make_shared<ToolMap>()).first;
            ++term_count_;
        }
        ToolMap& of_term = writable(it->second);
        bump(of_term[tool]);
        if (of_term.size() > lim.max_tools_per_term) {
            evict_lightest(of_term, tool, [this](const OutcomeCounts& c) { return weight(c); });
        }
    }
    if (term_count_ > lim.max_terms) {
        evict_terms(distinct);
    }
}

void OutcomePrior::evict_tools(std::string_view keep) {
    std::vector<std::pair<double, const std::string*>> weighted;
    weighted.reserve(tool_count_);
    for (const ToolShard& shard : tool_shards_) {
        if (!shard) {
            continue;
        }
        for (const auto& [key, c] : *shard) {
            if (key != keep) {
                weighted.emplace_back(weight(c), &key);
            }
        }
    }
    // Keys are copied out first: a shard copied for the change may be the last owner of the old.
    for (const std::string& key : lightest(weighted, excess(tool_count_, limits().max_tools))) {
        tool_count_ -= writable(tool_shards_[shard_of(key, kShards)]).erase(key);
    }
}

void OutcomePrior::evict_terms(const std::set<std::string_view>& keep) {
    std::vector<std::pair<double, const std::string*>> weighted;
    weighted.reserve(term_count_);
    for (const TermShard& shard : term_shards_) {
        if (!shard) {
            continue;
        }
        for (const auto& [term, tools] : *shard) {
            if (keep.contains(term)) {
                continue;
            }
            double sum = 0;
            for (const auto& [key, c] : *tools) {
                sum += weight(c);
            }
            weighted.emplace_back(sum, &term);
        }
    }
    for (const std::string& term : lightest(weighted, excess(term_count_, limits().max_terms))) {
        term_count_ -= writable(term_shards_[shard_of(term, kShards)]).erase(term);
    }
}

double OutcomePrior::endorsement(std::span<const std::string> terms, std::string_view tool) const {
    if (tool_count_ == 0 || terms.empty()) {
        return 0;
    }
    const ToolShard& tools = tool_shards_[shard_of(tool, kShards)];
    if (!tools) {
        return 0;
    }
    const auto own = tools->find(tool);
    if (own == tools->end()) {
        return 0;
    }
    const std::set<std::string_view> distinct(terms.begin(), terms.end());
    double support = 0;
    for (std::string_view term : distinct) {
        const ToolMap* of_term = find_term(term);
        if (of_term == nullptr) {
            continue;
        }
        double mine = 0;
        double all = 0;
        for (const auto& [key, counts] : *of_term) {
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

OutcomePrior::ToolMap OutcomePrior::tools() const {
    ToolMap out;
    for (const ToolShard& shard : tool_shards_) {
        if (shard) {
            out.insert(shard->begin(), shard->end());
        }
    }
    return out;
}

OutcomePrior::TermMap OutcomePrior::terms() const {
    TermMap out;
    for (const TermShard& shard : term_shards_) {
        if (shard) {
            for (const auto& [term, tools] : *shard) {
                out.emplace(term, *tools);
            }
        }
    }
    return out;
}

void OutcomePrior::restore(std::uint64_t tick, ToolMap tools, TermMap terms) {
    tick_ = tick;
    tool_count_ = tools.size();
    term_count_ = terms.size();
    tool_shards_ = {};
    term_shards_ = {};
    while (!tools.empty()) {
        auto node = tools.extract(tools.begin());
        writable(tool_shards_[shard_of(node.key(), kShards)]).insert(std::move(node));
    }
    while (!terms.empty()) {
        auto node = terms.extract(terms.begin());
        writable(term_shards_[shard_of(node.key(), kShards)])
            .emplace(std::move(node.key()), std::make_shared<ToolMap>(std::move(node.mapped())));
    }
}

}  // namespace scout::detail
