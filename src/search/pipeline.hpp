// pipeline.hpp: one query through the search pipeline, step by step:
//   check the query -> scope -> dense branch (query vector, nearest tools) -> BM25 branch
//   (query terms, index search, action boost) -> fusion and hits -> exact names first -> auto k.
// Each branch fetches top_k x fetch_factor candidates over the allowed tools only.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "scout/embedder.hpp"
#include "scout/status.hpp"
#include "scout/types.hpp"

#include "snapshot/snapshot.hpp"

namespace scout::detail {

/// Runs one search. `given_vector` (may be null) is a query vector from the host, used instead of
/// embedding the query. Never throws: exceptions (out of memory, ...) become internal errors.
[[nodiscard]] Result<SearchResult> run_search(const Snapshot& snap,
                                              const std::shared_ptr<Embedder>& embedder,
                                              std::string_view query,
                                              const std::span<const float>* given_vector,
                                              const SearchOptions& options) noexcept;

}  // namespace scout::detail
