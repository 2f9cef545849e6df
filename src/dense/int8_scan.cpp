// int8_scan.cpp: the quantized dense scan. Each vector is stored as int8 codes with one scale
// per row (symmetric, largest |component| -> 127); the query is quantized the same way, so a
// row's approximate score is q_scale * row_scale * <q_codes, row_codes> with an exact integer
// inner product. A pool of the best approximate candidates is re-scored in fp32, which makes
// returned scores exact and, with a pool several times k, the top-k almost always identical.
#include <algorithm>
#include <array>
#include <cmath>

#include "dense/dense_index.hpp"
#include "simd/kernels.hpp"

namespace scout::detail {

float quantize_int8(const float* v, std::size_t dim, std::int8_t* codes) noexcept {
    float max_abs = 0.0f;
    for (std::size_t d = 0; d < dim; ++d) {
        max_abs = std::max(max_abs, std::fabs(v[d]));
    }
    if (!(max_abs > 0.0f) || !std::isfinite(max_abs)) {
        std::fill(codes, codes + dim, std::int8_t{0});
        return 0.0f;
    }
    const float inv = 127.0f / max_abs;
    for (std::size_t d = 0; d < dim; ++d) {
        // lrint: one conversion instruction (nearbyint is a libm call per component).
        const long c = std::clamp(std::lrint(v[d] * inv), -127L, 127L);
        codes[d] = static_cast<std::int8_t>(c);
    }
    return max_abs / 127.0f;
}

Int8Store quantize_int8(const VectorStore& vectors) {
    Int8Store store;
    store.dim = vectors.dim;
    store.codes.resize(vectors.size() * vectors.dim);
    store.scales.resize(vectors.size());
    for (std::size_t i = 0; i < vectors.size(); ++i) {
        store.scales[i] =
            quantize_int8(vectors.row(i), vectors.dim, store.codes.data() + i * vectors.dim);
    }
    return store;
}

void int8_search(const VectorStore& vectors,
                 const Int8Store& codes,
                 const float* query,
                 std::size_t k,
                 std::size_t pool,
                 const Bitset* allowed,
                 std::vector<ScoredDoc>& out) {
    const simd::Kernels& kern = simd::active();
    const std::size_t n = codes.size();
    const std::size_t dim = codes.dim;
    // One lookup of the thread-local scratch: in position-independent code every access to a
    // thread_local may cost a __tls_get_addr call, too much inside the row loop.
    struct Scratch {
        std::vector<std::int8_t> qcodes;
        TopKBuffer candidates;
        TopK top;
    };
    thread_local Scratch scratch;
    Scratch& s = scratch;
    std::vector<std::int8_t>& qcodes = s.qcodes;
    TopKBuffer& candidates = s.candidates;
    TopK& top = s.top;
    qcodes.resize(dim);
    // The query's own scale is a positive constant factor: it cannot change the order.
    (void)quantize_int8(query, dim, qcodes.data());
    candidates.reset(std::max(pool, k));

    std::array<const std::int8_t*, simd::kRowGroup> rows{};
    std::array<ToolId, simd::kRowGroup> ids{};
    std::array<std::int32_t, simd::kRowGroup> dots{};
    const float* scales = codes.scales.data();
    const auto offer = [&](ToolId id, std::int32_t dot) {
        const float approx = scales[id] * static_cast<float>(dot);
        if (approx >= candidates.threshold()) {
            candidates.push(id, approx);
        }
    };
    std::size_t i = 0;
    if (allowed == nullptr) {
        // Unfiltered: consecutive rows, no gathering.
        for (; i + simd::kRowGroup <= n; i += simd::kRowGroup) {
            for (std::size_t r = 0; r < simd::kRowGroup; ++r) {
                rows[r] = codes.row(i + r);
            }
            kern.dot_rows_i8(qcodes.data(), rows.data(), dim, dots.data());
            for (std::size_t r = 0; r < simd::kRowGroup; ++r) {
                offer(static_cast<ToolId>(i + r), dots[r]);
            }
        }
        for (; i < n; ++i) {
            offer(static_cast<ToolId>(i), kern.dot_i8(qcodes.data(), codes.row(i), dim));
        }
    } else {
        std::size_t filled = 0;
        for (; i < n; ++i) {
            if (!allowed->test(static_cast<ToolId>(i))) {
                continue;
            }
            rows[filled] = codes.row(i);
            ids[filled] = static_cast<ToolId>(i);
            if (++filled == simd::kRowGroup) {
                kern.dot_rows_i8(qcodes.data(), rows.data(), dim, dots.data());
                for (std::size_t r = 0; r < simd::kRowGroup; ++r) {
                    offer(ids[r], dots[r]);
                }
                filled = 0;
            }
        }
        for (std::size_t r = 0; r < filled; ++r) {
            offer(ids[r], kern.dot_i8(qcodes.data(), rows[r], dim));
        }
    }
    candidates.drain_unordered(out);

    // Exact re-scoring of the pool.
    top.reset(k);
    for (const ScoredDoc& c : out) {
        top.push(c.id, kern.dot(query, vectors.row(c.id), vectors.dim));
    }
    top.drain_sorted(out);
}

}  // namespace scout::detail
