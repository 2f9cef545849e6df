// hnsw_graph_format.cpp: stored HNSW graphs checked before anything trusts them: counts within
// their bounds, ids in range, labels their points, codes and values sound.
#include "dense/hnsw_graph_format.hpp"

#include <cmath>

namespace scout::detail {

namespace {

constexpr std::uint32_t kMaxGraphLevel = 64;  // far above what 1 / ln(M) level sampling reaches
constexpr std::size_t kGraphHeaderWords = 4;

}  // namespace

std::optional<GraphView> parse_graph(std::span<const std::uint8_t> bytes,
                                     std::size_t rows,
                                     std::size_t m) {
    if (bytes.size() % 4 != 0 || bytes.size() < kGraphHeaderWords * 4) {
        return std::nullopt;
    }
    GraphView g;
    g.words = bytes;
    const std::size_t total = bytes.size() / 4;
    g.count = g.word(0);
    g.m = g.word(1);
    g.max_level = g.word(2);
    g.entry = g.word(3);
    if (g.count != rows || g.m != m) {
        return std::nullopt;
    }
    if (g.count == 0) {
        return total == kGraphHeaderWords ? std::optional<GraphView>(g) : std::nullopt;
    }
    if (g.entry >= g.count || g.max_level > kMaxGraphLevel) {
        return std::nullopt;
    }
    g.levels.reserve(g.count);
    g.starts.reserve(g.count);
    std::size_t at = kGraphHeaderWords;
    for (std::uint32_t i = 0; i < g.count; ++i) {
        if (at >= total) {
            return std::nullopt;
        }
        const std::uint32_t level = g.word(at++);
        if (level > g.max_level) {
            return std::nullopt;
        }
        g.levels.push_back(level);
        g.starts.push_back(at);
        for (std::uint32_t l = 0; l <= level; ++l) {
            if (at >= total) {
                return std::nullopt;
            }
            const std::uint32_t links = g.word(at++);
            if (links > (l == 0 ? 2 * m : m) || links > total - at) {
                return std::nullopt;
            }
            for (std::uint32_t j = 0; j < links; ++j) {
                if (g.word(at + j) >= g.count) {
                    return std::nullopt;
                }
            }
            at += links;
        }
    }
    if (at != total || g.levels[g.entry] != g.max_level) {
        return std::nullopt;
    }
    return g;
}

std::optional<GraphV2> parse_graph_v2(std::span<const std::uint8_t> bytes,
                                      std::size_t rows,
                                      std::size_t dim,
                                      const DenseOptions& options) {
    if (bytes.size() < kGraphV2HeaderBytes) {
        return std::nullopt;
    }
    GraphV2 g;
    const std::uint8_t* b = bytes.data();
    g.count = GraphV2::u32(b);
    g.m = GraphV2::u32(b + 4);
    g.max_level = GraphV2::u32(b + 8);
    g.entry = GraphV2::u32(b + 12);
    const std::uint32_t element_bytes = GraphV2::u32(b + 16);
    const std::uint32_t data_bytes = GraphV2::u32(b + 20);
    const std::uint32_t flags = GraphV2::u32(b + 24);
    const bool int8 = flags == kGraphV2Int8;
    const std::size_t want_data = int8 ? dim + sizeof(float) : dim * sizeof(float);
    if (g.count != rows || g.m != options.hnsw_m || (flags & ~kGraphV2Int8) != 0 ||
        int8 != options.hnsw_int8 || GraphV2::u32(b + 28) != 0 || data_bytes != want_data ||
        element_bytes != v2_element_bytes(g.m, data_bytes) || g.max_level > kMaxGraphLevel ||
        (g.count > 0 && g.entry >= g.count)) {
        return std::nullopt;
    }
    g.element_bytes = element_bytes;
    g.data_bytes = data_bytes;
    const std::size_t body = bytes.size() - kGraphV2HeaderBytes;
    if (g.count > body / (element_bytes + 4)) {
        return std::nullopt;
    }
    g.level0 = b + kGraphV2HeaderBytes;
    g.levels = g.level0 + std::size_t{g.count} * element_bytes;
    g.upper = g.levels + std::size_t{g.count} * 4;
    const std::size_t upper_bytes = body - std::size_t{g.count} * (element_bytes + 4);
    const std::size_t list_bytes = 4 * (std::size_t{g.m} + 1);
    g.upper_at.resize(g.count);
    std::size_t at = 0;
    for (std::uint32_t i = 0; i < g.count; ++i) {
        const std::uint32_t level = g.level(i);
        if (level > g.max_level || level * list_bytes > upper_bytes - at) {
            return std::nullopt;
        }
        g.upper_at[i] = at;
        for (std::uint32_t l = 0; l < level; ++l) {
            const std::uint8_t* list = g.upper + at + l * list_bytes;
            const std::uint32_t links = GraphV2::u32(list);
            if (links > g.m) {
                return std::nullopt;
            }
            for (std::uint32_t j = 0; j < links; ++j) {
                if (GraphV2::u32(list + 4 + 4 * std::size_t{j}) >= g.count) {
                    return std::nullopt;
                }
            }
        }
        at += level * list_bytes;
    }
    if (at != upper_bytes || (g.count > 0 && g.level(g.entry) != g.max_level) ||
        (g.count == 0 && (g.max_level != 0 || g.entry != 0))) {
        return std::nullopt;
    }
    // The level-0 elements: one flag per element rather than a branch per value.
    for (std::uint32_t i = 0; i < g.count; ++i) {
        const std::uint8_t* e = g.level0 + std::size_t{i} * element_bytes;
        const std::uint32_t head = GraphV2::u32(e);
        unsigned bad = static_cast<unsigned>(head > 2 * g.m);
        const std::uint32_t links = bad != 0 ? 0 : head;
        for (std::uint32_t j = 0; j < links; ++j) {
            bad |= static_cast<unsigned>(GraphV2::u32(e + 4 + 4 * std::size_t{j}) >= g.count);
        }
        const std::uint8_t* data = e + 4 + 8 * std::size_t{g.m};
        if (int8) {
            for (std::size_t d = 0; d < dim; ++d) {
                bad |= static_cast<unsigned>(data[d] == 0x80U);  // -128 has no negation
            }
            float scale = 0.0f;
            std::memcpy(&scale, data + dim, sizeof scale);
            bad |= static_cast<unsigned>(!(scale >= 0.0f) || !std::isfinite(scale));
        } else {
            for (std::size_t d = 0; d < dim; ++d) {
                float x = 0.0f;
                std::memcpy(&x, data + 4 * d, sizeof x);
                bad |= static_cast<unsigned>(!std::isfinite(x));
            }
        }
        GraphLabel label = 0;
        std::memcpy(&label, data + data_bytes, sizeof label);
        bad |= static_cast<unsigned>(label != i);
        if (bad != 0) {
            return std::nullopt;
        }
    }
    return g;
}

}  // namespace scout::detail
