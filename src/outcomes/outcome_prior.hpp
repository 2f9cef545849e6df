// outcome_prior.hpp: what executions taught the catalog. A decayed success prior per tool and per
// (query term, tool), bounded in size, from which a search takes a small non-negative boost.
// A value type: the writer changes a copy and publishes it; readers hold an immutable one.
// Copies share their pieces: the state is split by hash into shards held by shared_ptr, and a
// change copies only the shards (and per-term tool maps) it touches, so a record costs little
// next to the size of the prior.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>

namespace scout::detail {

/// Decayed outcome counts of one tool (or one tool under one term) as of `tick`.
struct OutcomeCounts {
    double success = 0;
    double failure = 0;
    std::uint64_t tick = 0;  ///< the prior's tick when these counts were last decayed
    friend bool operator==(const OutcomeCounts&, const OutcomeCounts&) = default;
};

/// Bounds and decay. Memory is O(max_tools + max_terms x max_tools_per_term).
struct OutcomeLimits {
    std::size_t max_tools = 4096;
    std::size_t max_terms = 8192;
    std::size_t max_tools_per_term = 16;
    double half_life = 2000;  ///< outcomes after which an old outcome weighs half
    /// Past a cap on tools or terms, the lightest go until this fraction of the cap is left
    /// free: one scan per many new entries, not one per outcome.
    double evict_fraction = 0.125;
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

    [[nodiscard]] bool empty() const noexcept { return tool_count_ == 0; }
    [[nodiscard]] std::uint64_t tick() const noexcept { return tick_; }
    [[nodiscard]] std::size_t tool_count() const noexcept { return tool_count_; }
    [[nodiscard]] std::size_t term_count() const noexcept { return term_count_; }
    /// Every tool, or every term, in key order: a whole copy, for the codec and tests.
    [[nodiscard]] ToolMap tools() const;
    [[nodiscard]] TermMap terms() const;
    [[nodiscard]] static const OutcomeLimits& limits() noexcept;

    /// Restores a decoded state; the codec has checked it against limits().
    void restore(std::uint64_t tick, ToolMap tools, TermMap terms);

private:
    static constexpr std::size_t kShards = 128;
    // A piece is shared with other priors while its use_count() is above one and is then
    // copied before a change. The prior a change starts from holds every piece it had, so a
    // count of one means the change made the piece itself: readers never see one change.
    using ToolShard = std::shared_ptr<ToolMap>;
    using TermShard = std::shared_ptr<std::map<std::string, std::shared_ptr<ToolMap>, std::less<>>>;

    [[nodiscard]] OutcomeCounts decayed(const OutcomeCounts& c) const noexcept;
    /// Decayed outcomes of either kind: what eviction keeps the heaviest of.
    [[nodiscard]] double weight(const OutcomeCounts& c) const noexcept;
    [[nodiscard]] const ToolMap* find_term(std::string_view term) const;
    void evict_tools(std::string_view keep);
    void evict_terms(const std::set<std::string_view>& keep);

    std::uint64_t tick_ = 0;
    std::size_t tool_count_ = 0;
    std::size_t term_count_ = 0;
    std::array<ToolShard, kShards> tool_shards_;
    std::array<TermShard, kShards> term_shards_;
};

/// The key of a tool in the prior: server '\n' tool (newlines never occur in either name).
[[nodiscard]] std::string outcome_tool_key(std::string_view server, std::string_view tool);

}  // namespace scout::detail
