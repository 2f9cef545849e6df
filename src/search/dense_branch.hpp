// dense_branch.hpp: the dense half of a search: the query vector (given by the host, or embedded
// with a deadline) and the nearest allowed tools. Any embedder failure is a reason to answer with
// BM25 alone, not an error of the search.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scout/embedder.hpp"
#include "scout/status.hpp"

#include "snapshot/snapshot.hpp"
#include "util/bitset.hpp"
#include "util/topk.hpp"

namespace scout::detail {

/// The query vector the dense branch searches with, and what the caller gave or asked for.
struct DenseQuery {
    std::string_view text;
    const std::span<const float>* given_vector = nullptr;  ///< null: embed `text`
    std::chrono::milliseconds embed_timeout{0};
};

/// What the dense branch did: ran (both strings empty), could not run because something failed
/// (degraded_reason: no dense index, embedder failure or timeout), or had nothing to search
/// with although nothing failed (notice: the model knows none of the query's words).
struct DenseOutcome {
    std::string degraded_reason;
    std::string notice;
    [[nodiscard]] bool ran() const noexcept { return degraded_reason.empty() && notice.empty(); }
};

/// Fills `out` with the `fetch` best allowed tools when the branch runs. A given vector of the
/// wrong size, zero or not finite fails the search (dimension_mismatch / invalid_argument).
[[nodiscard]] Result<DenseOutcome> run_dense_branch(const Snapshot& snap,
                                                    const std::shared_ptr<Embedder>& embedder,
                                                    const DenseQuery& query,
                                                    std::size_t fetch,
                                                    const Bitset* filter,
                                                    std::vector<ScoredDoc>& out);

}  // namespace scout::detail
