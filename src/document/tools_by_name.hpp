// tools_by_name.hpp: the tools of each plain tool name ("create_issue" -> every server's
// create_issue), for exact-name queries.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "scout/types.hpp"

#include "util/index_table.hpp"
#include "util/pod_vector.hpp"

namespace scout::detail {

/// The ids of the tools of each name, in id order: one chain through an array of "next tool of
/// the same name" rather than a list per name, and the distinct names in one arena it owns.
class ToolsByName {
public:
    /// first() and next() after the last tool of a name.
    static constexpr ToolId kEnd = static_cast<ToolId>(-1);

    ToolsByName() = default;
    /// `names[id]` is the name of tool `id`; the names are copied.
    explicit ToolsByName(std::span<const std::string_view> names);

    /// The first tool named `name`, or kEnd.
    [[nodiscard]] ToolId first(std::string_view name) const;
    /// The tool after `id` with the same name, or kEnd.
    [[nodiscard]] ToolId next(ToolId id) const { return next_[id]; }
    /// Approximate bytes held.
    [[nodiscard]] std::size_t memory_bytes() const noexcept;

private:
    struct Span {
        std::uint32_t offset;
        std::uint32_t size;
    };

    [[nodiscard]] std::string_view distinct_name(std::uint32_t d) const noexcept {
        return {arena_.data() + distinct_[d].offset, distinct_[d].size};
    }

    PodVector<char> arena_;       // the distinct names, in order of first use
    std::vector<Span> distinct_;  // distinct name d in arena_
    std::vector<ToolId> heads_;   // first tool of distinct name d
    PodVector<ToolId> next_;      // by tool id
    IndexTable by_name_;          // hash of a name -> d
};

}  // namespace scout::detail
