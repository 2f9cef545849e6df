// hits.hpp: the last step of a search: the branches' ranked lists, fused when both ran, become
// value-type Hits that carry each tool's record and what each branch said about it.
#pragma once

#include <cstddef>
#include <vector>

#include "scout/options.hpp"
#include "scout/types.hpp"

#include "snapshot/snapshot.hpp"
#include "util/topk.hpp"

namespace scout::detail {

/// What the two branches of one search returned (best first).
struct BranchLists {
    std::vector<ScoredDoc> bm25;
    std::vector<ScoredDoc> dense;
    bool ran_bm25 = false;
    bool ran_dense = false;
};

/// The tool's record as a Hit with zero scores.
[[nodiscard]] Hit make_hit(const Snapshot& snap, ToolId id);

/// The best k hits: the fusion of both lists when both branches ran, else the one list with its
/// own scores. Consumes the lists.
[[nodiscard]] std::vector<Hit> ranked_hits(const Snapshot& snap,
                                           BranchLists& lists,
                                           std::size_t k,
                                           const FusionOptions& fusion);

}  // namespace scout::detail
