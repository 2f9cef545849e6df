// query_embedding.hpp: one query -> one unit vector, with the embedder's failures (statuses,
// exceptions, wrong sizes, a deadline) all turned into a Status.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "scout/embedder.hpp"

namespace scout {

/// Embeds `text` and L2-normalizes it. With a non-zero timeout the call runs on a helper thread
/// and is abandoned (left to finish on its own) when the deadline passes.
[[nodiscard]] Result<std::vector<float>> embed_query(const std::shared_ptr<Embedder>& embedder,
                                                     const std::string& text,
                                                     std::chrono::milliseconds timeout);

}  // namespace scout
