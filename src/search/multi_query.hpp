// multi_query.hpp: a query with alternative phrasings. Every phrasing runs through the search
// pipeline with the same options, and the ranked lists are fused by calibrated score.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "scout/embedder.hpp"
#include "scout/status.hpp"
#include "scout/types.hpp"

#include "snapshot/snapshot.hpp"

namespace scout::detail {

/// run_search() for `query` and each of options.alternatives (which must be non-empty, at most
/// SearchOptions::kMaxAlternatives), fused. `given_vector` embeds `query` only. Never throws.
[[nodiscard]] Result<SearchResult> run_multi_query(const Snapshot& snap,
                                                   const std::shared_ptr<Embedder>& embedder,
                                                   std::string_view query,
                                                   const std::span<const float>* given_vector,
                                                   const SearchOptions& options) noexcept;

}  // namespace scout::detail
