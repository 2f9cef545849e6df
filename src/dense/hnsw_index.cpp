// hnsw_index.cpp: the only file that includes hnswlib (Malkov & Yashunin, TPAMI 2018).
// hnswlib 0.6 has no search-time filter: a broad scope searches the graph with over-fetch and
// keeps the allowed hits; a narrow one (or an over-fetch that comes back short) scans the
// allowed rows exactly, which then costs only O(allowed).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <optional>
#include <random>
#include <span>
#include <string>

#include <hnswlib/hnswlib.h>

#include "dense/dense_index.hpp"
#include "simd/kernels.hpp"
#include "util/block_pool.hpp"
#include "util/thread_scratch.hpp"

namespace scout::detail {
namespace {

/// The elements hnswlib stores and compares: either the fp32 rows, or (hnsw_int8) each row's
/// int8 codes followed by its scale, a quarter of the bytes for the traversal to read. hnswlib
/// picks its own SIMD when it is compiled, so a build for baseline x86-64 would compare with
/// SSE; these distances use the kernels chosen at run time. Distance = 1 - <a, b>, or its int8
/// estimate 1 - scale_a * scale_b * <codes_a, codes_b>, as in hnswlib's InnerProductSpace.
class HnswSpace final : public hnswlib::SpaceInterface<float> {
public:
    HnswSpace(std::size_t dim, bool int8) : int8_(int8) {
        const simd::Kernels& kern = simd::active();
        param_ = {kern.dot, kern.dot_i8, dim};
    }
    [[nodiscard]] bool int8() const noexcept { return int8_; }
    std::size_t get_data_size() override {
        return int8_ ? param_.dim + sizeof(float) : param_.dim * sizeof(float);
    }
    hnswlib::DISTFUNC<float> get_dist_func() override {
        return int8_ ? &int8_distance : &fp32_distance;
    }
    void* get_dist_func_param() override { return &param_; }

    /// Writes `row` as an element (get_data_size() bytes at `out`).
    void encode(const float* row, void* out) const noexcept {
        if (!int8_) {
            std::memcpy(out, row, param_.dim * sizeof(float));
            return;
        }
        auto* codes = static_cast<std::int8_t*>(out);
        const float scale = quantize_int8(row, param_.dim, codes);
        std::memcpy(codes + param_.dim, &scale, sizeof scale);
    }

private:
    struct Param {
        float (*dot)(const float*, const float*, std::size_t);
        std::int32_t (*dot_i8)(const std::int8_t*, const std::int8_t*, std::size_t);
        std::size_t dim;
    };
    static float fp32_distance(const void* a, const void* b, const void* param) {
        const auto* p = static_cast<const Param*>(param);
        return 1.0f - p->dot(static_cast<const float*>(a), static_cast<const float*>(b), p->dim);
    }
    static float int8_distance(const void* a, const void* b, const void* param) {
        const auto* p = static_cast<const Param*>(param);
        const auto* ca = static_cast<const std::int8_t*>(a);
        const auto* cb = static_cast<const std::int8_t*>(b);
        float sa = 0.0f;
        float sb = 0.0f;
        std::memcpy(&sa, ca + p->dim, sizeof sa);
        std::memcpy(&sb, cb + p->dim, sizeof sb);
        return 1.0f - sa * sb * static_cast<float>(p->dot_i8(ca, cb, p->dim));
    }
    bool int8_;
    Param param_{};
};

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

constexpr std::uint32_t kMaxGraphLevel = 64;  // far above what 1 / ln(M) level sampling reaches
/// Points inserted per chunk of a parallel build, and how often a build reports progress.
constexpr std::size_t kPointsPerChunk = 64;
/// Smaller graphs are built on one thread: starting threads would cost more than it saves.
constexpr std::size_t kMinParallelPoints = 1024;

constexpr std::size_t kGraphHeaderWords = 4;

/// Every count within its level's bound, every id an element, the entry point on the top level.
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

constexpr std::size_t kGraphV2HeaderBytes = 32;
constexpr std::uint32_t kGraphV2Int8 = 1;  // flags: the elements are int8 codes and a scale

/// The bytes of a version 2 level-0 element: link count, 2m link slots, data, label.
std::size_t v2_element_bytes(std::size_t m, std::size_t data_bytes) {
    return 4 + 8 * m + data_bytes + sizeof(hnswlib::labeltype);
}

/// Every count within its level's bound, every id a point, every label its point, every code in
/// [-127, 127] and every value finite, the entry point on the top level.
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
        hnswlib::labeltype label = 0;
        std::memcpy(&label, data + data_bytes, sizeof label);
        bad |= static_cast<unsigned>(label != i);
        if (bad != 0) {
            return std::nullopt;
        }
    }
    return g;
}

/// Patches re-link at most this fraction of a graph's points in all before it is built afresh:
/// each re-link keeps its neighbourhood sound, but a graph whose points mostly moved after it
/// was built no longer has the structure a build would give it.
constexpr std::size_t kRelinkedOneIn = 8;

class HnswIndex final : public DenseIndex {
public:
    HnswIndex(std::shared_ptr<const VectorStore> vectors,
              const DenseOptions& options,
              ThreadPool* pool,
              const ThreadPool::Progress& progress)
        : HnswIndex(std::move(vectors), options, Empty{}) {
        const std::size_t n = vectors_->size();
        if (pool == nullptr || pool->threads() <= 1 || n < kMinParallelPoints) {
            std::vector<char> element(graph_.data_size_);
            for (std::size_t i = 0; i < n; ++i) {
                space_.encode(vectors_->row(i), element.data());
                graph_.addPoint(element.data(), static_cast<hnswlib::labeltype>(i));
                if (progress && (i + 1) % kPointsPerChunk == 0) {
                    progress(i + 1);
                }
            }
        } else {
            build_in_parallel(options.seed, *pool, progress);
        }
        graph_.setEf(hnsw_search_width(options, vectors_->size()));
    }

    /// The stored graph of `vectors` (checked by parse_graph), filled into hnswlib's layout.
    HnswIndex(std::shared_ptr<const VectorStore> vectors,
              const DenseOptions& options,
              const GraphView& stored)
        : HnswIndex(std::move(vectors), options, Empty{}) {
        using hnswlib::tableint;
        for (std::uint32_t i = 0; i < stored.count; ++i) {
            char* element =
                graph_.data_level0_memory_ + std::size_t{i} * graph_.size_data_per_element_;
            std::memset(element, 0, graph_.size_data_per_element_);
            space_.encode(vectors_->row(i), element + graph_.offsetData_);
            const hnswlib::labeltype label = i;
            std::memcpy(element + graph_.label_offset_, &label, sizeof(label));
            // label_lookup_ stays empty, as in a patched copy: labels are internal ids.
            const std::uint32_t level = stored.levels[i];
            if (level > 0) {
                graph_.linkLists_[i] = allocate_links(static_cast<int>(level));
                std::memset(graph_.linkLists_[i], 0, links_bytes(static_cast<int>(level)));
            }
            graph_.element_levels_[i] = static_cast<int>(level);
            graph_.cur_element_count = std::size_t{i} + 1;  // the destructor frees up to here
            std::size_t at = stored.starts[i];
            for (std::uint32_t l = 0; l <= level; ++l) {
                const std::uint32_t links = stored.word(at++);
                hnswlib::linklistsizeint* list =
                    l == 0 ? graph_.get_linklist0(i) : graph_.get_linklist(i, static_cast<int>(l));
                graph_.setListCount(list, static_cast<unsigned short>(links));
                auto* ids = reinterpret_cast<tableint*>(list + 1);
                for (std::uint32_t j = 0; j < links; ++j) {
                    ids[j] = stored.word(at++);
                }
            }
        }
        if (stored.count > 0) {
            graph_.enterpoint_node_ = stored.entry;
            graph_.maxlevel_ = static_cast<int>(stored.max_level);
        }
        graph_.setEf(hnsw_search_width(options, vectors_->size()));
    }

    /// A stored version 2 graph of `vectors` (checked by parse_graph_v2). Its level-0 elements
    /// are used in place when their layout is hnswlib's (they are only read: a patch copies
    /// them), kept alive by `owner`; otherwise each is copied into hnswlib's layout.
    HnswIndex(std::shared_ptr<const VectorStore> vectors,
              const DenseOptions& options,
              const GraphV2& stored,
              std::shared_ptr<const void> owner)
        : HnswIndex(std::move(vectors), options, Empty{}) {
        auto& g = graph_;
        const std::size_t n = stored.count;
        const std::size_t links_bytes0 = 4 + 8 * std::size_t{stored.m};
        const bool same_layout = g.size_data_per_element_ == stored.element_bytes &&
                                 g.offsetLevel0_ == 0 && g.offsetData_ == links_bytes0 &&
                                 g.label_offset_ == links_bytes0 + stored.data_bytes &&
                                 g.data_size_ == stored.data_bytes;
        if (same_layout && n > 0) {
            release_level0();
            g.data_level0_memory_ =
                const_cast<char*>(reinterpret_cast<const char*>(stored.level0));  // never written
            // Also the flag that the elements are not ours to free, when the caller keeps them.
            level0_owner_ = owner ? std::move(owner) : std::make_shared<int>(0);
        } else {
            for (std::size_t i = 0; i < n; ++i) {
                const std::uint8_t* e = stored.level0 + i * stored.element_bytes;
                char* element = g.data_level0_memory_ + i * g.size_data_per_element_;
                std::memset(element, 0, g.size_data_per_element_);
                std::memcpy(
                    element + g.offsetLevel0_, e, std::min(links_bytes0, g.size_links_level0_));
                std::memcpy(element + g.offsetData_, e + links_bytes0, stored.data_bytes);
                const hnswlib::labeltype label = i;
                std::memcpy(element + g.label_offset_, &label, sizeof label);
            }
        }
        const std::size_t list_bytes = 4 * (std::size_t{stored.m} + 1);
        for (std::size_t i = 0; i < n; ++i) {
            const auto level = static_cast<int>(stored.level(i));
            if (level > 0) {
                g.linkLists_[i] = allocate_links(level);
                std::memset(g.linkLists_[i], 0, links_bytes(level));
                for (int l = 1; l <= level; ++l) {
                    std::memcpy(g.get_linklist(static_cast<hnswlib::tableint>(i), l),
                                stored.upper + stored.upper_at[i] +
                                    static_cast<std::size_t>(l - 1) * list_bytes,
                                std::min(list_bytes, g.size_links_per_element_));
                }
            }
            g.element_levels_[i] = level;  // after its list exists: the destructor frees it
            g.cur_element_count = i + 1;
        }
        if (n > 0) {
            g.enterpoint_node_ = stored.entry;
            g.maxlevel_ = static_cast<int>(stored.max_level);
        }
        g.setEf(hnsw_search_width(options, n));
    }

    /// A copy of `previous`'s graph over `vectors`, each changed row re-linked in place by
    /// hnswlib's updatePoint (its neighbours' lists repaired too), instead of a build of every
    /// point: a one-tool edit costs a copy of the graph and a few searches.
    HnswIndex(std::shared_ptr<const VectorStore> vectors,
              const DenseOptions& options,
              const HnswIndex& previous,
              std::span<const ToolId> changed)
        : HnswIndex(std::move(vectors), options, Empty{}) {
        auto& g = graph_;
        const auto& p = previous.graph_;
        const std::size_t n = p.cur_element_count;
        // Same dimension, element type and M: the same layout, element for element. The copied
        // elements hold the previous vectors; the changed ones are replaced below.
        std::memcpy(g.data_level0_memory_, p.data_level0_memory_, n * g.size_data_per_element_);
        for (std::size_t i = 0; i < n; ++i) {
            const int level = p.element_levels_[i];
            if (level > 0) {
                g.linkLists_[i] = allocate_links(level);
                std::memcpy(g.linkLists_[i], p.linkLists_[i], links_bytes(level));
            }
            g.element_levels_[i] = level;  // after its list exists: the destructor frees it
            g.cur_element_count = i + 1;
        }
        // label_lookup_ stays empty: labels are internal ids, and nothing here looks one up.
        g.enterpoint_node_ = p.enterpoint_node_;
        g.maxlevel_ = p.maxlevel_;
        std::vector<char> element(g.data_size_);
        for (const ToolId id : changed) {
            if (id < n) {
                space_.encode(vectors_->row(id), element.data());
                g.updatePoint(element.data(), static_cast<hnswlib::tableint>(id), 1.0f);
            }
        }
        g.setEf(hnsw_search_width(options, n));
        relinked_ = previous.relinked_ + changed.size();
    }

    std::unique_ptr<DenseIndex> patched(std::shared_ptr<const VectorStore> vectors,
                                        std::span<const ToolId> changed,
                                        const DenseOptions& options) const override {
        if (vectors->size() != vectors_->size() || vectors->dim() != vectors_->dim() ||
            options.hnsw_m != graph_.M_ || options.hnsw_int8 != space_.int8() ||
            graph_.cur_element_count != vectors_->size() ||
            (relinked_ + changed.size()) * kRelinkedOneIn > vectors_->size()) {
            return nullptr;  // the last: a build afresh bounds how far patches drift from one
        }
        return std::make_unique<HnswIndex>(std::move(vectors), options, *this, changed);
    }

    std::string graph_bytes(std::uint32_t version) const override {
        return version == 1 ? graph_bytes_v1() : graph_bytes_v2();
    }

    /// Version 2: the header, every level-0 element (link count, the links then zeros up to 2M
    /// slots, the element's data, its label), every point's level, then each upper level's list
    /// of every point that has it (count, the links then zeros up to M slots).
    std::string graph_bytes_v2() const {
        const auto& g = graph_;
        const std::size_t n = g.cur_element_count;
        const std::size_t m = g.M_;
        const std::size_t element_bytes = v2_element_bytes(m, g.data_size_);
        std::string out;
        const auto put = [&out](std::uint32_t v) {
            char b[4];
            std::memcpy(b, &v, 4);
            out.append(b, 4);
        };
        put(static_cast<std::uint32_t>(n));
        put(static_cast<std::uint32_t>(m));
        put(n == 0 ? 0U : static_cast<std::uint32_t>(g.maxlevel_));
        put(n == 0 ? 0U : static_cast<std::uint32_t>(g.enterpoint_node_));
        put(static_cast<std::uint32_t>(element_bytes));
        put(static_cast<std::uint32_t>(g.data_size_));
        put(space_.int8() ? kGraphV2Int8 : 0U);
        put(0);
        const auto put_list = [&](hnswlib::linklistsizeint* list, std::size_t slots) {
            const unsigned short links = g.getListCount(list);
            put(links);
            const auto* ids = reinterpret_cast<const hnswlib::tableint*>(list + 1);
            for (std::size_t j = 0; j < slots; ++j) {
                put(j < links ? ids[j] : 0U);
            }
        };
        out.reserve(kGraphV2HeaderBytes + n * (element_bytes + 4));
        for (std::size_t i = 0; i < n; ++i) {
            const auto id = static_cast<hnswlib::tableint>(i);
            put_list(g.get_linklist0(id), 2 * m);
            out.append(g.getDataByInternalId(id), g.data_size_);
            const hnswlib::labeltype label = i;
            char b[sizeof label];
            std::memcpy(b, &label, sizeof label);
            out.append(b, sizeof label);
        }
        for (std::size_t i = 0; i < n; ++i) {
            put(static_cast<std::uint32_t>(g.element_levels_[i]));
        }
        for (std::size_t i = 0; i < n; ++i) {
            for (int l = 1; l <= g.element_levels_[i]; ++l) {
                put_list(g.get_linklist(static_cast<hnswlib::tableint>(i), l), m);
            }
        }
        return out;
    }

    /// Version 1 (index format 1): the header, then per point its level and its lists.
    std::string graph_bytes_v1() const {
        std::string out;
        const auto put = [&out](std::uint32_t v) {
            char b[4];
            std::memcpy(b, &v, 4);
            out.append(b, 4);
        };
        const std::size_t n = graph_.cur_element_count;
        put(static_cast<std::uint32_t>(n));
        put(static_cast<std::uint32_t>(graph_.M_));
        put(n == 0 ? 0U : static_cast<std::uint32_t>(graph_.maxlevel_));
        put(n == 0 ? 0U : static_cast<std::uint32_t>(graph_.enterpoint_node_));
        for (std::size_t i = 0; i < n; ++i) {
            const auto id = static_cast<hnswlib::tableint>(i);
            const int level = graph_.element_levels_[i];
            put(static_cast<std::uint32_t>(level));
            for (int l = 0; l <= level; ++l) {
                hnswlib::linklistsizeint* list =
                    l == 0 ? graph_.get_linklist0(id) : graph_.get_linklist(id, l);
                const unsigned short links = graph_.getListCount(list);
                put(links);
                const auto* ids = reinterpret_cast<const hnswlib::tableint*>(list + 1);
                for (unsigned short j = 0; j < links; ++j) {
                    put(ids[j]);
                }
            }
        }
        return out;
    }

    void search(const float* query,
                std::size_t k,
                const Bitset* allowed,
                std::vector<ScoredDoc>& out) const override {
        out.clear();
        const std::size_t n = vectors_->size();
        if (k == 0 || n == 0) {
            return;
        }
        if (allowed == nullptr) {
            graph_search(query, std::min(k, n), nullptr, k, out);
            return;
        }
        const std::size_t count = allowed->count();
        const double fraction = static_cast<double>(count) / static_cast<double>(n);
        if (count <= k || fraction < static_cast<double>(min_fraction_)) {
            exact_search(*vectors_, query, k, allowed, out);
            return;
        }
        // Expect k allowed hits among k / fraction graph hits; fetch twice that for slack.
        const auto fetch = std::min(
            n, static_cast<std::size_t>(std::ceil(2.0 * static_cast<double>(k) / fraction)));
        graph_search(query, fetch, allowed, k, out);
        if (out.size() < k) {
            exact_search(*vectors_, query, k, allowed, out);
        }
    }

    const char* kind() const noexcept override { return space_.int8() ? "hnsw-int8" : "hnsw"; }
    std::size_t memory_bytes() const noexcept override {
        return vectors_->bytes() + graph_.max_elements_ * graph_.size_data_per_element_ +
               graph_.cur_element_count * graph_.size_links_per_element_;
    }
    const VectorStore& vectors() const noexcept override { return *vectors_; }

private:
    struct Empty {};
    /// An empty graph sized for `vectors`; the public constructors fill it.
    HnswIndex(std::shared_ptr<const VectorStore> vectors, const DenseOptions& options, Empty)
        : vectors_(std::move(vectors)),
          space_(vectors_->dim(), options.hnsw_int8),
          graph_(&space_,
                 std::max<std::size_t>(vectors_->size(), 1),
                 options.hnsw_m,
                 options.hnsw_ef_construction,
                 options.seed),
          min_fraction_(options.hnsw_filter_min_fraction) {
        // The level-0 elements (tens of MB at 100k points) in a block the retired index freed,
        // instead of fresh pages: every element is written before it is read (addPoint and the
        // constructors above clear or fill each one), and hnswlib never reallocates it here.
        const std::size_t bytes = level0_bytes();
        if (bytes >= block_pool::kPooledFrom) {
            void* block = block_pool::acquire(bytes);
            std::free(graph_.data_level0_memory_);
            graph_.data_level0_memory_ = static_cast<char*>(block);
        }
    }

    /// The bytes of a point's upper-level link lists, as hnswlib's addPoint sizes them (one
    /// more than the lists): every graph here, built, loaded or patched, allocates the same, so
    /// a patch can copy a loaded graph's lists whole.
    [[nodiscard]] std::size_t links_bytes(int level) const noexcept {
        return graph_.size_links_per_element_ * static_cast<std::size_t>(level) + 1;
    }
    /// Uninitialized link lists for a point of `level` > 0, freed by hnswlib's destructor.
    [[nodiscard]] char* allocate_links(int level) const {
        auto* links = static_cast<char*>(std::malloc(links_bytes(level)));
        if (links == nullptr) {
            throw std::bad_alloc();
        }
        return links;
    }

    [[nodiscard]] std::size_t level0_bytes() const noexcept {
        return graph_.max_elements_ * graph_.size_data_per_element_;
    }

    /// Frees the level-0 elements (to the block pool, or nothing when they are an index file's),
    /// leaving none for hnswlib's destructor to free.
    void release_level0() noexcept {
        const std::size_t bytes = level0_bytes();
        if (level0_owner_) {
            level0_owner_.reset();
        } else if (bytes >= block_pool::kPooledFrom) {
            block_pool::release(graph_.data_level0_memory_, bytes);
        } else {
            std::free(graph_.data_level0_memory_);
        }
        graph_.data_level0_memory_ = nullptr;
    }

public:
    HnswIndex(const HnswIndex&) = delete;
    HnswIndex& operator=(const HnswIndex&) = delete;
    HnswIndex(HnswIndex&&) = delete;
    HnswIndex& operator=(HnswIndex&&) = delete;
    ~HnswIndex() override { release_level0(); }

private:
    /// Every point with the level a sequential build draws for it (the same generator and seed),
    /// the first alone, the others on the pool in increasing order.
    void build_in_parallel(std::uint64_t seed,
                           ThreadPool& pool,
                           const ThreadPool::Progress& progress) {
        const std::size_t n = vectors_->size();
        std::vector<int> levels(n);
        std::default_random_engine generator(seed);
        std::uniform_real_distribution<double> uniform(0.0, 1.0);
        for (int& level : levels) {
            level = static_cast<int>(-std::log(uniform(generator)) * graph_.mult_);
        }
        for (std::size_t i = 0; i < n; ++i) {
            graph_.label_lookup_[i] = static_cast<hnswlib::tableint>(i);
        }
        // Counted from the start, so the destructor frees the link lists of every point
        // inserted even when an insertion throws (a point not reached has level 0: nothing).
        graph_.cur_element_count = n;
        insert(0, levels[0]);
        pool.parallel_for(
            n - 1,
            kPointsPerChunk,
            [&](std::size_t begin, std::size_t end) {
                for (std::size_t i = begin + 1; i <= end; ++i) {
                    insert(i, levels[i]);
                }
            },
            progress);
    }

    /// hnswlib 0.6's addPoint for a new point whose internal id is its label, with its level
    /// given: its own addPoint draws the level from a generator every thread shares, reads the
    /// entry point after releasing the lock that guards it, and numbers points in the order
    /// insertions start (graph_bytes() needs id = label). Otherwise the same steps and locks:
    /// the point's own lock is held until it is linked on every level.
    void insert(std::size_t i, int level) {
        using hnswlib::tableint;
        auto& g = graph_;
        const auto id = static_cast<tableint>(i);
        std::unique_lock own(g.link_list_locks_[id]);
        std::unique_lock top(g.global);
        const int top_level = g.maxlevel_;
        tableint entry = g.enterpoint_node_;
        const bool first = g.enterpoint_node_ == static_cast<tableint>(-1);
        if (level <= top_level) {
            top.unlock();  // kept while this point becomes the new entry point
        }
        std::memset(g.data_level0_memory_ + i * g.size_data_per_element_ + g.offsetLevel0_,
                    0,
                    g.size_data_per_element_);
        const hnswlib::labeltype label = i;
        std::memcpy(g.getExternalLabeLp(id), &label, sizeof(label));
        space_.encode(vectors_->row(i), g.getDataByInternalId(id));
        const void* point = g.getDataByInternalId(id);
        if (level > 0) {
            g.linkLists_[id] = allocate_links(level);
            std::memset(g.linkLists_[id], 0, links_bytes(level));
        }
        g.element_levels_[id] = level;
        if (!first) {
            float best = g.fstdistfunc_(point, g.getDataByInternalId(entry), g.dist_func_param_);
            for (int l = top_level; l > level; --l) {
                for (bool moved = true; moved;) {
                    moved = false;
                    std::unique_lock lock(g.link_list_locks_[entry]);
                    hnswlib::linklistsizeint* list = g.get_linklist(entry, l);
                    const auto* ids = reinterpret_cast<const tableint*>(list + 1);
                    for (int k = 0; k < g.getListCount(list); ++k) {
                        const float d = g.fstdistfunc_(
                            point, g.getDataByInternalId(ids[k]), g.dist_func_param_);
                        if (d < best) {
                            best = d;
                            entry = ids[k];
                            moved = true;
                        }
                    }
                }
            }
            for (int l = std::min(level, top_level); l >= 0; --l) {
                auto candidates = g.searchBaseLayer(entry, point, l);
                entry = g.mutuallyConnectNewElement(point, id, candidates, l, false);
            }
        }
        if (first || level > top_level) {
            g.enterpoint_node_ = id;
            g.maxlevel_ = level;
        }
    }

    /// The `fetch` nearest graph hits, restricted to `allowed`, best `k` first. With int8
    /// elements the query is quantized like them, the whole candidate list the traversal keeps
    /// (ef, at least fetch) is taken, and its members are re-scored exactly in fp32, so returned
    /// scores are the flat scan's.
    void graph_search(const float* query,
                      std::size_t fetch,
                      const Bitset* allowed,
                      std::size_t k,
                      std::vector<ScoredDoc>& out) const {
        // The element the traversal compares: the query itself, or its int8 encoding.
        const void* element = query;
        std::size_t pool = fetch;
        if (space_.int8()) {
            struct QueryElement {
                std::vector<char> bytes;
            };
            std::vector<char>& bytes = thread_scratch<QueryElement>().bytes;
            bytes.resize(graph_.data_size_);
            space_.encode(query, bytes.data());
            element = bytes.data();
            pool = std::max(fetch, graph_.ef_);
        }
        auto found = graph_.searchKnn(element, pool);
        const simd::Kernels& kern = simd::active();
        const std::size_t dim = vectors_->dim();
        for (; !found.empty(); found.pop()) {
            const auto id = static_cast<ToolId>(found.top().second);
            if (allowed == nullptr || allowed->test(id)) {
                // fp32 elements: the distance is 1 - <q, v>; int8 ones are re-scored exactly.
                out.push_back({id,
                               space_.int8() ? kern.dot(query, vectors_->row(id), dim)
                                             : 1.0f - found.top().first});
            }
        }
        const std::size_t keep = std::min(k, out.size());
        std::partial_sort(
            out.begin(), out.begin() + static_cast<std::ptrdiff_t>(keep), out.end(), ranks_before);
        out.resize(keep);
    }

    std::shared_ptr<const VectorStore> vectors_;
    HnswSpace space_;
    hnswlib::HierarchicalNSW<float> graph_;
    float min_fraction_;
    /// Points re-linked by patches since the graph was last built in full.
    std::size_t relinked_ = 0;
    /// Set when the level-0 elements are an index file's, read in place: keeps them alive.
    std::shared_ptr<const void> level0_owner_;
};

}  // namespace

std::size_t hnsw_search_width(const DenseOptions& options, std::size_t points) noexcept {
    const std::size_t base = options.hnsw_ef_base_tools;
    if (base == 0 || points <= base) {
        return options.hnsw_ef_search;
    }
    const double grown = static_cast<double>(options.hnsw_ef_search) *
                         std::sqrt(static_cast<double>(points) / static_cast<double>(base));
    return std::max(options.hnsw_ef_search, static_cast<std::size_t>(std::ceil(grown)));
}

std::unique_ptr<DenseIndex> make_hnsw_index(std::shared_ptr<const VectorStore> vectors,
                                            const DenseOptions& options,
                                            ThreadPool* pool,
                                            const ThreadPool::Progress& progress) {
    return std::make_unique<HnswIndex>(std::move(vectors), options, pool, progress);
}

std::unique_ptr<DenseIndex> load_hnsw_index(std::shared_ptr<const VectorStore> vectors,
                                            const DenseOptions& options,
                                            std::span<const std::uint8_t> graph,
                                            std::uint32_t version,
                                            std::shared_ptr<const void> owner) {
    if (version == 1) {
        const auto parsed = parse_graph(graph, vectors->size(), options.hnsw_m);
        if (!parsed) {
            return nullptr;
        }
        return std::make_unique<HnswIndex>(std::move(vectors), options, *parsed);
    }
    if (version != kHnswGraphVersion) {
        return nullptr;
    }
    const auto parsed = parse_graph_v2(graph, vectors->size(), vectors->dim(), options);
    if (!parsed) {
        return nullptr;
    }
    return std::make_unique<HnswIndex>(std::move(vectors), options, *parsed, std::move(owner));
}

}  // namespace scout::detail
