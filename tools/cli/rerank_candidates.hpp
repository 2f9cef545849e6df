// rerank_candidates.hpp: `scout eval --rerank-candidates FILE`: the training rows of a
// re-ranker, one per fused candidate of each evaluable query.
#pragma once

#include <filesystem>
#include <vector>

#include "scout/searcher.hpp"
#include "scout/status.hpp"

#include "eval/evaluation.hpp"

namespace scout::cli {

/// Searches each evaluable query (hybrid, the user's top_k, branches fetching top_k x
/// fetch_factor) and writes a header line naming the features, then one line per fused
/// candidate: "QUERY_INDEX RELEVANT F1 ... FN" (QUERY_INDEX counts evaluable queries from 0,
/// RELEVANT is 0 or 1). Queries whose search fails are left out.
[[nodiscard]] Status write_rerank_candidates(const std::filesystem::path& path,
                                             const Searcher& searcher,
                                             const std::vector<eval::LabelledQuery>& queries,
                                             SearchOptions options,
                                             std::size_t fetch_factor);

}  // namespace scout::cli
