// query_embedding.hpp: one query -> one unit vector, with the embedder's failures (statuses,
// exceptions, wrong sizes, a deadline) all turned into a Status.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "scout/embedder.hpp"

namespace scout::detail {

/// Why a query has no embedding although the embedder works (its vector is zero).
inline constexpr const char* kNoKnownWords = "the embedding model knows none of the query's words";

/// Embeds `text` and L2-normalizes it. not_found (kNoKnownWords) when the vector is zero. With a
/// non-zero timeout the call runs on one of a few shared helper threads (at most 4, with at most 64
/// calls waiting for them) and is abandoned (left to finish on its own) when the deadline passes;
/// when the helpers are all held by a hung embedder and the queue is full, it fails at once with
/// unavailable.
[[nodiscard]] Result<std::vector<float>> embed_query(const std::shared_ptr<Embedder>& embedder,
                                                     const std::string& text,
                                                     std::chrono::milliseconds timeout);

}  // namespace scout::detail
