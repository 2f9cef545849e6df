// tools_by_name.cpp: see tools_by_name.hpp.
#include "document/tools_by_name.hpp"

#include <limits>
#include <stdexcept>

#include "util/word_hash.hpp"

namespace scout::detail {
namespace {

std::uint32_t hash_of(std::string_view name) noexcept {
    return static_cast<std::uint32_t>(word_hash(name));
}

}  // namespace

ToolsByName::ToolsByName(std::span<const std::string_view> names) {
    if (names.size() >= kEnd) {
        throw std::length_error("ToolsByName: too many tools");
    }
    next_.assign(names.size(), kEnd);
    std::vector<ToolId> tails;  // last tool so far of distinct name d
    for (ToolId id = 0; id < names.size(); ++id) {
        const std::string_view name = names[id];
        const auto fresh = static_cast<std::uint32_t>(heads_.size());
        const std::uint32_t d = by_name_.insert(
            hash_of(name), fresh, [&](std::uint32_t e) { return distinct_name(e) == name; });
        if (d != fresh) {
            next_[tails[d]] = id;
            tails[d] = id;
            continue;
        }
        if (arena_.size() + name.size() > std::numeric_limits<std::uint32_t>::max()) {
            throw std::length_error("ToolsByName: names too long");
        }
        distinct_.push_back(
            {static_cast<std::uint32_t>(arena_.size()), static_cast<std::uint32_t>(name.size())});
        arena_.insert(arena_.end(), name.begin(), name.end());
        heads_.push_back(id);
        tails.push_back(id);
    }
}

ToolId ToolsByName::first(std::string_view name) const {
    const std::uint32_t d =
        by_name_.find(hash_of(name), [&](std::uint32_t e) { return distinct_name(e) == name; });
    return d == IndexTable::kNone ? kEnd : heads_[d];
}

std::size_t ToolsByName::memory_bytes() const noexcept {
    return arena_.capacity() + distinct_.capacity() * sizeof(Span) +
           (heads_.capacity() + next_.capacity()) * sizeof(ToolId) + by_name_.memory_bytes();
}

}  // namespace scout::detail
