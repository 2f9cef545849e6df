// hnsw_graph_format.hpp: an HNSW section of an index file (docs/FORMAT.md, section HNSW) read
// and checked before the graph is trusted: a version 1 graph word by word, a version 2 one as
// level-0 elements and upper-level lists. No hnswlib here: only hnsw_index.cpp includes it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

#include "scout/options.hpp"

namespace scout::detail {

/// A point's label as hnswlib stores it in a level-0 element (hnswlib::labeltype, checked
/// where hnswlib is included).
using GraphLabel = std::size_t;

/// The graph as an index file stores it (docs/FORMAT.md, section HNSW), read and checked.
struct GraphView {
    std::uint32_t count = 0;
    std::uint32_t m = 0;
    std::uint32_t max_level = 0;
    std::uint32_t entry = 0;
    /// Per element: its level, then per level 0..level one list (a u32 count, then the ids).
    std::vector<std::uint32_t> levels;
    std::vector<std::size_t> starts;  ///< offset (in u32 words) of each element's first list
    std::span<const std::uint8_t> words;
    [[nodiscard]] std::uint32_t word(std::size_t i) const {
        std::uint32_t v = 0;
        std::memcpy(&v, words.data() + i * 4, 4);
        return v;
    }
};

/// Every count within its level's bound, every id an element, the entry point on the top level.
[[nodiscard]] std::optional<GraphView> parse_graph(std::span<const std::uint8_t> bytes,
                                                   std::size_t rows,
                                                   std::size_t m);

/// A version 2 graph (docs/FORMAT.md, section HNSW), checked: its level-0 elements, each
/// `element_bytes` long, and the upper levels' link lists.
struct GraphV2 {
    std::uint32_t count = 0;
    std::uint32_t m = 0;
    std::uint32_t max_level = 0;
    std::uint32_t entry = 0;
    std::size_t element_bytes = 0;
    std::size_t data_bytes = 0;
    const std::uint8_t* level0 = nullptr;
    const std::uint8_t* levels = nullptr;  ///< count u32
    /// Offset in `upper` of each point's lists (level L: L lists of 1 + m words), by point.
    std::vector<std::size_t> upper_at;
    const std::uint8_t* upper = nullptr;
    [[nodiscard]] static std::uint32_t u32(const std::uint8_t* p) {
        std::uint32_t v = 0;
        std::memcpy(&v, p, 4);
        return v;
    }
    [[nodiscard]] std::uint32_t level(std::size_t i) const { return u32(levels + 4 * i); }
};

inline constexpr std::size_t kGraphV2HeaderBytes = 32;
inline constexpr std::uint32_t kGraphV2Int8 = 1;  // flags: the elements are int8 codes and a scale

/// The bytes of a version 2 level-0 element: link count, 2m link slots, data, label.
[[nodiscard]] inline std::size_t v2_element_bytes(std::size_t m, std::size_t data_bytes) {
    return 4 + 8 * m + data_bytes + sizeof(GraphLabel);
}

/// Every count within its level's bound, every id a point, every label its point, every code in
/// [-127, 127] and every value finite, the entry point on the top level.
[[nodiscard]] std::optional<GraphV2> parse_graph_v2(std::span<const std::uint8_t> bytes,
                                                    std::size_t rows,
                                                    std::size_t dim,
                                                    const DenseOptions& options);

}  // namespace scout::detail
