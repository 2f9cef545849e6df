// embeddings_response.hpp: the OpenAI embeddings wire format's answer, parsed and checked. Its
// own file so the fuzzer reaches it without a server.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "scout/status.hpp"

namespace scout::detail {

/// The largest vector the HTTP embedder accepts, from a probe or as --embedder-dimensions.
inline constexpr std::size_t kMaxHttpEmbeddingDim = 65536;

/// {"data":[{"embedding":[...],"index":i},...]} -> texts x dim floats in input order. `dim` 0
/// accepts the size of the first vector (at most kMaxHttpEmbeddingDim) and sets `dim`. Errors:
/// unavailable (malformed, wrong count, bad index; the message quotes at most 200 bytes of the
/// body, control characters escaped), dimension_mismatch (a vector of another size).
[[nodiscard]] Result<std::vector<float>> parse_embeddings_response(const std::string& body,
                                                                   std::size_t texts,
                                                                   std::size_t& dim);

}  // namespace scout::detail
