// int8_scan.cpp: the quantized dense scan. Each vector is stored as int8 codes with one scale
// per row (symmetric, largest |component| -> 127); the query is quantized the same way, so a
// row's approximate score is q_scale * row_scale * <q_codes, row_codes> with an exact integer
// inner product. A pool of the best approximate candidates is re-scored in fp32, which makes
// returned scores exact and, with a pool several times k, the top-k almost always identical.
#include <algorithm>
#include <array>
#include <cmath>

#include "dense/best_scores.hpp"
#include "dense/dense_index.hpp"
#include "simd/kernels.hpp"
#include "util/thread_scratch.hpp"

namespace scout::detail {

float quantize_int8(const float* v, std::size_t dim, std::int8_t* codes) noexcept {
    return simd::active().quantize_i8(v, dim, codes);
}

Int8Store quantize_int8(const VectorStore& vectors) {
    Int8Store store;
    store.dim = vectors.dim();
    store.codes.resize(vectors.size() * vectors.dim());
    store.scales.resize(vectors.size());
    for (std::size_t i = 0; i < vectors.size(); ++i) {
        store.scales[i] =
            quantize_int8(vectors.row(i), vectors.dim(), store.codes.data() + i * vectors.dim());
    }
    return store;
}

namespace {

/// approx[j] = the int8 estimate of row id_of(j)'s score, for j < count. A template over
/// id_of, so the unfiltered scan (id_of(j) = j) has no branch or lookup per row. Each group's
/// integer sums are scaled as soon as they are made, while they are in registers.
template <class IdOf>
void approximate(const simd::Kernels& kern,
                 const Int8Store& codes,
                 const std::int8_t* qcodes,
                 std::size_t count,
                 IdOf id_of,
                 std::vector<float>& approx) {
    const std::size_t dim = codes.dim;
    approx.resize(count);
    const float* scales = codes.scales.data();
    std::array<const std::int8_t*, simd::kRowGroup> rows{};
    std::array<std::int32_t, simd::kRowGroup> dots{};
    std::size_t j = 0;
    for (; j + simd::kRowGroup <= count; j += simd::kRowGroup) {
        for (std::size_t r = 0; r < simd::kRowGroup; ++r) {
            rows[r] = codes.row(id_of(j + r));
        }
        kern.dot_rows_i8(qcodes, rows.data(), dim, dots.data());
        for (std::size_t r = 0; r < simd::kRowGroup; ++r) {
            approx[j + r] = scales[id_of(j + r)] * static_cast<float>(dots[r]);
        }
    }
    for (; j < count; ++j) {
        approx[j] =
            scales[id_of(j)] * static_cast<float>(kern.dot_i8(qcodes, codes.row(id_of(j)), dim));
    }
}

}  // namespace

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
    struct Scratch {
        std::vector<std::int8_t> qcodes;
        std::vector<ToolId> ids;  // the allowed rows, when filtered
        std::vector<float> approx;
        BestScoresScratch best;
        TopK top;
    };
    Scratch& s = thread_scratch<Scratch>();  // a plain reference inside the row loop
    s.qcodes.resize(dim);
    // The query's own scale is a positive constant factor: it cannot change the order.
    (void)quantize_int8(query, dim, s.qcodes.data());
    s.ids.clear();
    if (allowed != nullptr) {
        allowed->members(n, s.ids);
        approximate(
            kern,
            codes,
            s.qcodes.data(),
            s.ids.size(),
            [&](std::size_t j) { return s.ids[j]; },
            s.approx);
    } else {
        approximate(
            kern,
            codes,
            s.qcodes.data(),
            n,
            [](std::size_t j) { return static_cast<ToolId>(j); },
            s.approx);
    }
    best_scores(s.approx, s.ids, std::max(pool, k), s.best, out);

    // Exact re-scoring of the pool. Its fp32 rows are scattered over a store that outgrows the
    // caches, so each row is requested a few rows ahead of its turn.
    constexpr std::size_t kAhead = 4;
    const std::size_t row_bytes = vectors.dim() * sizeof(float);
    const auto prefetch = [&](ToolId id) {
        const char* p = reinterpret_cast<const char*>(vectors.row(id));
        for (std::size_t b = 0; b < row_bytes; b += 64) {
            __builtin_prefetch(p + b);
        }
    };
    for (std::size_t c = 0; c < out.size() && c < kAhead; ++c) {
        prefetch(out[c].id);
    }
    // Four rows per kernel call: the query is loaded once for the four, and their eight
    // accumulator chains overlap; dot_rows returns for each row the bits dot would.
    s.top.reset(k);
    const std::size_t m = out.size();
    std::array<const float*, simd::kRowGroup> rows{};
    std::array<float, simd::kRowGroup> exact{};
    std::size_t c = 0;
    for (; c + simd::kRowGroup <= m; c += simd::kRowGroup) {
        for (std::size_t r = 0; r < simd::kRowGroup; ++r) {
            if (c + r + kAhead < m) {
                prefetch(out[c + r + kAhead].id);
            }
            rows[r] = vectors.row(out[c + r].id);
        }
        kern.dot_rows(query, rows.data(), vectors.dim(), exact.data());
        for (std::size_t r = 0; r < simd::kRowGroup; ++r) {
            s.top.push(out[c + r].id, exact[r]);
        }
    }
    for (; c < m; ++c) {
        s.top.push(out[c].id, kern.dot(query, vectors.row(out[c].id), vectors.dim()));
    }
    s.top.drain_sorted(out);
}

}  // namespace scout::detail
