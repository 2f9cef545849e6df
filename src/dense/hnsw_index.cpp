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
#include <type_traits>

#include <hnswlib/hnswlib.h>

#include "dense/dense_index.hpp"
#include "dense/hnsw_graph_format.hpp"
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

static_assert(std::is_same_v<hnswlib::labeltype, GraphLabel>,
              "stored version 2 graphs hold hnswlib's labels");

/// Points inserted per chunk of a parallel build, and how often a build reports progress.
constexpr std::size_t kPointsPerChunk = 64;
/// Smaller graphs are built on one thread: starting threads would cost more than it saves.
constexpr std::size_t kMinParallelPoints = 1024;

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
