// pq_table.hpp: product-quantized word rows, the table of a version 2 static word model (.swm):
// each row is cut into equal sub-vectors, and each sub-vector is stored as the one-byte index of
// its nearest centroid in that sub-vector's codebook (fp16). Decoded once, at load, into the
// int8 VectorTable the embedder reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "scout/status.hpp"

#include "embed/vector_table.hpp"

namespace scout::detail {

struct PqRows {
    std::size_t dim = 0;
    std::size_t subvectors = 0;  ///< divides dim
    std::size_t centroids = 0;   ///< per codebook, 1..256
    /// fp16 bits, subvectors x centroids x (dim / subvectors).
    std::vector<std::uint16_t> codebooks;
    /// rows x subvectors, each < centroids.
    std::vector<std::uint8_t> codes;
};

/// The rows as a VectorTable (int8, one scale per row, as VectorTable::add quantizes them);
/// `words` holds each word followed by '\0'. corrupt when the sizes disagree, a code is out of
/// range, a centroid is not finite, or from_quantized() refuses the vocabulary.
[[nodiscard]] Result<VectorTable> decode_pq(const PqRows& pq, std::string words);

}  // namespace scout::detail
