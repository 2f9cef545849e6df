// dense_index.hpp: the dense branch's internal interface. Vectors are L2-normalized, so the
// inner product is the cosine similarity. Implementations: exact flat scan and HNSW.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "scout/options.hpp"

#include "dense/vector_store.hpp"
#include "util/bitset.hpp"
#include "util/pod_vector.hpp"
#include "util/thread_pool.hpp"
#include "util/topk.hpp"

namespace scout::detail {

/// int8 copies of a VectorStore: row i is scales[i] * codes[i * dim, (i + 1) * dim), each row
/// scaled so its largest |component| maps to 127 (symmetric, per-row scale).
struct Int8Store {
    std::size_t dim = 0;
    std::vector<std::int8_t> codes;
    std::vector<float> scales;
    [[nodiscard]] std::size_t size() const noexcept { return scales.size(); }
    [[nodiscard]] const std::int8_t* row(std::size_t i) const noexcept {
        return codes.data() + i * dim;
    }
    [[nodiscard]] std::size_t memory_bytes() const noexcept {
        return codes.size() + scales.size() * sizeof(float);
    }
};

/// Quantizes one vector into `codes` (dim values); returns its scale (0 for a zero vector).
float quantize_int8(const float* v, std::size_t dim, std::int8_t* codes) noexcept;
[[nodiscard]] Int8Store quantize_int8(const VectorStore& vectors);

class DenseIndex {
public:
    virtual ~DenseIndex() = default;
    /// The k nearest vectors to the unit vector `query` (dim floats), restricted to `allowed`
    /// when given; best first (score desc, id asc). Thread-safe.
    virtual void search(const float* query,
                        std::size_t k,
                        const Bitset* allowed,
                        std::vector<ScoredDoc>& out) const = 0;
    [[nodiscard]] virtual const char* kind() const noexcept = 0;
    [[nodiscard]] virtual std::size_t memory_bytes() const noexcept = 0;
    [[nodiscard]] virtual const VectorStore& vectors() const noexcept = 0;
    /// The HNSW graph as an index file stores it (docs/FORMAT.md: section HNSW of that
    /// version, kHnswGraphVersion or 1); empty for a flat index.
    [[nodiscard]] virtual std::string graph_bytes(std::uint32_t /*version*/ = 2) const {
        return {};
    }
    /// An index of `vectors`, which equal this index's vectors except at the rows `changed`,
    /// made from this one instead of built afresh; null when this kind has no cheaper way (a
    /// flat index is as cheap to make anew) or `vectors` or `options` do not fit it. This index
    /// is only read, so searches on it may run meanwhile.
    [[nodiscard]] virtual std::unique_ptr<DenseIndex> patched(
        // NOLINTNEXTLINE(performance-unnecessary-value-param): an override keeps it
        std::shared_ptr<const VectorStore> /*vectors*/,
        std::span<const ToolId> /*changed*/,
        const DenseOptions& /*options*/) const {
        return nullptr;
    }
};

/// Exact search over every (allowed) vector; with options.int8_scan, an int8 scan re-scored
/// exactly (see DenseOptions).
[[nodiscard]] std::unique_ptr<DenseIndex> make_flat_index(
    std::shared_ptr<const VectorStore> vectors, const DenseOptions& options = {});
/// HNSW graph (hnswlib) for unfiltered queries; filtered ones scan the allowed vectors exactly.
/// With a pool of more than one thread the points are inserted in parallel: every point gets
/// the level a sequential build gives it, but its links depend on the order insertions finish,
/// so two such builds can differ slightly. `progress` (may be empty) hears the points inserted.
[[nodiscard]] std::unique_ptr<DenseIndex> make_hnsw_index(
    std::shared_ptr<const VectorStore> vectors,
    const DenseOptions& options,
    ThreadPool* pool = nullptr,
    const ThreadPool::Progress& progress = {});
/// The search width of an HNSW graph of `points` points (DenseOptions::hnsw_ef_base_tools).
[[nodiscard]] std::size_t hnsw_search_width(const DenseOptions& options,
                                            std::size_t points) noexcept;
/// The layout graph_bytes() writes: version 2 holds each point's level-0 element as the graph
/// compares it (links, int8 codes or fp32 row, label), which a reader uses in place; version 1
/// (index format 1) holds the links only.
inline constexpr std::uint32_t kHnswGraphVersion = 2;

/// The HNSW index of `vectors` from graph_bytes(version) of an earlier one with the same hnsw_m
/// and hnsw_int8, without building anything. A version 2 graph's level-0 elements are used where
/// they lie in `graph` when its layout is the graph library's, kept alive by `owner` (null: the
/// caller keeps `graph` alive as long as the index); otherwise they are copied. Null when the
/// bytes are not a valid graph of these vectors.
[[nodiscard]] std::unique_ptr<DenseIndex> load_hnsw_index(
    std::shared_ptr<const VectorStore> vectors,
    const DenseOptions& options,
    std::span<const std::uint8_t> graph,
    std::uint32_t version = kHnswGraphVersion,
    std::shared_ptr<const void> owner = nullptr);
/// Picks flat or HNSW from options.kind and the number of vectors; `pool` and `progress` as
/// for make_hnsw_index.
[[nodiscard]] std::unique_ptr<DenseIndex> make_dense_index(
    std::shared_ptr<const VectorStore> vectors,
    const DenseOptions& options,
    ThreadPool* pool = nullptr,
    const ThreadPool::Progress& progress = {});

/// Exact top-k by inner product over all rows, or over `allowed` rows only. Scans four rows per
/// kernel call; allocation-free after a thread's first call (thread-local scratch).
void exact_search(const VectorStore& vectors,
                  const float* query,
                  std::size_t k,
                  const Bitset* allowed,
                  std::vector<ScoredDoc>& out);

/// Top-k by the int8 approximation over all (allowed) rows, the best `pool` of which are
/// re-scored exactly against `vectors`; returned scores are exact fp32 inner products.
void int8_search(const VectorStore& vectors,
                 const Int8Store& codes,
                 const float* query,
                 std::size_t k,
                 std::size_t pool,
                 const Bitset* allowed,
                 std::vector<ScoredDoc>& out);

/// Scales v to unit length in place; false if it is zero or not finite.
[[nodiscard]] bool normalize(float* v, std::size_t dim) noexcept;

}  // namespace scout::detail
