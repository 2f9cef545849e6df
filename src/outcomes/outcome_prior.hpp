// outcome_prior.hpp: what executions taught the catalog. A decayed success prior per tool and per
// (query term, tool), bounded in size, from which a search takes a small non-negative boost.
// A value type: the writer changes a copy and publishes it; readers hold an immutable one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>

namespace scout::detail {

/// Decayed outcome counts of one tool (or one tool under one term) as of `tick`.
struct OutcomeCounts {
    double success = 0;
    double failure = 0;
    std::uint64_t tick = 0;  ///< the prior's tick when these counts were last decayed
};

/// Bounds and decay. Memory is O(max_tools + max_terms x max_tools_per_term).
struct OutcomeLimits {
    std::size_t max_tools = 4096;
    std::size_t max_terms = 8192;
    std::size_t max_tools_per_term = 16;
    double half_life = 2000;  ///< outcomes after which an old outcome weighs half
};

class OutcomePrior {
public:
    using ToolMap = std::map<std::string, OutcomeCounts, std::less<>>;
    using TermMap = std::map<std::string, ToolMap, std::less<>>;

    /// One execution of `tool` (a tool key: server '\n' tool) for a query analyzed into `terms`.
    void record(std::span<const std::string> terms, const std::string& tool, bool success);

    /// In [0, 1): how strongly past successes of `tool` under these query terms endorse it.
    /// Zero unless some query term has a net success of this tool: failures and outcomes under
    /// other terms never lower a tool below zero, so they cannot move an unrelated ranking.
    [[nodiscard]] double endorsement(std::span<const std::string> terms,
                                     std::string_view tool) const;

    [[nodiscard]] bool empty() const noexcept { return tools_.empty(); }
    [[nodiscard]] std::uint64_t tick() const noexcept { return tick_; }
    [[nodiscard]] const ToolMap& tools() const noexcept { return tools_; }
    [[nodiscard]] const TermMap& terms() const noexcept { return terms_; }
    [[nodiscard]] static const OutcomeLimits& limits() noexcept;

    /// Restores a decoded state; the codec has checked it against limits().
    void restore(std::uint64_t tick, ToolMap tools, TermMap terms);

private:
    [[nodiscard]] OutcomeCounts decayed(const OutcomeCounts& c) const noexcept;

    std::uint64_t tick_ = 0;
    ToolMap tools_;
    TermMap terms_;
};

/// The key of a tool in the prior: server '\n' tool (newlines never occur in either name).
[[nodiscard]] std::string outcome_tool_key(std::string_view server, std::string_view tool);

}  // namespace scout::detail
