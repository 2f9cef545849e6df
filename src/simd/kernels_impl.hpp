// kernels_impl.hpp: the kernels written once over xsimd batches; each kernels_<isa>.cpp
// instantiates them for its architecture with that file's compiler flags.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include <xsimd/xsimd.hpp>
#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "simd/kernels.hpp"

namespace scout::detail::simd::impl {

// dot and dot_rows share one summation order per row: two accumulators over alternating
// batches, then the single-batch tail, then the scalar tail. Two chains per row and four rows
// at a time keep eight FMAs in flight, which hides the FMA latency without spilling registers.
template <class Arch>
float dot(const float* a, const float* b, std::size_t n) {
    using B = xsimd::batch<float, Arch>;
    constexpr std::size_t W = B::size;
    B acc0(0.0f), acc1(0.0f);
    std::size_t i = 0;
    for (; i + 2 * W <= n; i += 2 * W) {
        acc0 = xsimd::fma(B::load_unaligned(a + i), B::load_unaligned(b + i), acc0);
        acc1 = xsimd::fma(B::load_unaligned(a + i + W), B::load_unaligned(b + i + W), acc1);
    }
    for (; i + W <= n; i += W) {
        acc0 = xsimd::fma(B::load_unaligned(a + i), B::load_unaligned(b + i), acc0);
    }
    float sum = xsimd::hadd(acc0 + acc1);
    // Explicit fma in both scalar tails: left to itself the compiler contracts one and not
    // the other, and dot / dot_rows would differ in the last bit.
    for (; i < n; ++i) {
        sum = std::fma(a[i], b[i], sum);
    }
    return sum;
}

template <class Arch>
void dot_rows(const float* q, const float* const* rows, std::size_t n, float* out) {
    using B = xsimd::batch<float, Arch>;
    constexpr std::size_t W = B::size;
    static_assert(kRowGroup == 4, "the unrolled body below scores four rows");
    const float* r0 = rows[0];
    const float* r1 = rows[1];
    const float* r2 = rows[2];
    const float* r3 = rows[3];
    B a00(0.0f), a01(0.0f), a10(0.0f), a11(0.0f), a20(0.0f), a21(0.0f), a30(0.0f), a31(0.0f);
    std::size_t i = 0;
    for (; i + 2 * W <= n; i += 2 * W) {
        const B q0 = B::load_unaligned(q + i);
        const B q1 = B::load_unaligned(q + i + W);
        a00 = xsimd::fma(q0, B::load_unaligned(r0 + i), a00);
        a01 = xsimd::fma(q1, B::load_unaligned(r0 + i + W), a01);
        a10 = xsimd::fma(q0, B::load_unaligned(r1 + i), a10);
        a11 = xsimd::fma(q1, B::load_unaligned(r1 + i + W), a11);
        a20 = xsimd::fma(q0, B::load_unaligned(r2 + i), a20);
        a21 = xsimd::fma(q1, B::load_unaligned(r2 + i + W), a21);
        a30 = xsimd::fma(q0, B::load_unaligned(r3 + i), a30);
        a31 = xsimd::fma(q1, B::load_unaligned(r3 + i + W), a31);
    }
    for (; i + W <= n; i += W) {
        const B q0 = B::load_unaligned(q + i);
        a00 = xsimd::fma(q0, B::load_unaligned(r0 + i), a00);
        a10 = xsimd::fma(q0, B::load_unaligned(r1 + i), a10);
        a20 = xsimd::fma(q0, B::load_unaligned(r2 + i), a20);
        a30 = xsimd::fma(q0, B::load_unaligned(r3 + i), a30);
    }
    out[0] = xsimd::hadd(a00 + a01);
    out[1] = xsimd::hadd(a10 + a11);
    out[2] = xsimd::hadd(a20 + a21);
    out[3] = xsimd::hadd(a30 + a31);
    for (; i < n; ++i) {
        out[0] = std::fma(q[i], r0[i], out[0]);
        out[1] = std::fma(q[i], r1[i], out[1]);
        out[2] = std::fma(q[i], r2[i], out[2]);
        out[3] = std::fma(q[i], r3[i], out[3]);
    }
}

// int8 inner products. With AVX2 (this TU's flags decide): a.b = |a| . (sign(a) * b), so
// maddubs multiplies unsigned |q| by signed sign(q)*r into int16 pairs (at most 2 * 127 * 127,
// no saturation because codes stay in [-127, 127]), and madd with ones widens to int32. 32 codes
// per step; the four-row variant loads and prepares the query once for four rows. Integer sums
// are exact, so every variant returns the same value. Without AVX2, a plain loop.
#if defined(__AVX2__)
inline std::int32_t hsum_i32(__m256i v) noexcept {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
    return _mm_cvtsi128_si32(s);
}

inline __m256i madd_i8(__m256i q_abs, __m256i q, const std::int8_t* r, __m256i acc) noexcept {
    const __m256i rv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r));
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
    // One instruction for multiply, pairwise add, widen and accumulate.
    return _mm256_dpbusd_epi32(acc, q_abs, _mm256_sign_epi8(rv, q));
#else
    const __m256i ones = _mm256_set1_epi16(1);
    const __m256i prod16 = _mm256_maddubs_epi16(q_abs, _mm256_sign_epi8(rv, q));
    return _mm256_add_epi32(acc, _mm256_madd_epi16(prod16, ones));
#endif
}
#endif

inline std::int32_t dot_i8_tail(const std::int8_t* a,
                                const std::int8_t* b,
                                std::size_t i,
                                std::size_t n) noexcept {
    std::int32_t sum = 0;
    for (; i < n; ++i) {
        sum += static_cast<std::int32_t>(a[i]) * static_cast<std::int32_t>(b[i]);
    }
    return sum;
}

template <class Arch>
std::int32_t dot_i8(const std::int8_t* a, const std::int8_t* b, std::size_t n) {
    std::size_t i = 0;
    std::int32_t sum = 0;
#if defined(__AVX2__)
    __m256i acc = _mm256_setzero_si256();
    for (; i + 32 <= n; i += 32) {
        const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i));
        acc = madd_i8(_mm256_abs_epi8(q), q, b + i, acc);
    }
    sum = hsum_i32(acc);
#endif
    return sum + dot_i8_tail(a, b, i, n);
}

template <class Arch>
void dot_rows_i8(const std::int8_t* q,
                 const std::int8_t* const* rows,
                 std::size_t n,
                 std::int32_t* out) {
    std::size_t i = 0;
    for (std::size_t r = 0; r < kRowGroup; ++r) {
        out[r] = 0;
    }
#if defined(__AVX2__)
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
    for (; i + 32 <= n; i += 32) {
        const __m256i qv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + i));
        const __m256i qa = _mm256_abs_epi8(qv);
        a0 = madd_i8(qa, qv, rows[0] + i, a0);
        a1 = madd_i8(qa, qv, rows[1] + i, a1);
        a2 = madd_i8(qa, qv, rows[2] + i, a2);
        a3 = madd_i8(qa, qv, rows[3] + i, a3);
    }
    // The four sums at once: each hadd halves the lanes of two rows, and the two 128-bit
    // halves left hold the four rows' partial sums in order.
    const __m256i h = _mm256_hadd_epi32(_mm256_hadd_epi32(a0, a1), _mm256_hadd_epi32(a2, a3));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out),
                     _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1)));
#endif
    for (std::size_t r = 0; r < kRowGroup; ++r) {
        out[r] += dot_i8_tail(q, rows[r], i, n);
    }
}

template <class Arch>
std::size_t next_above(const float* v, std::size_t begin, std::size_t n, float threshold) {
    using B = xsimd::batch<float, Arch>;
    constexpr std::size_t W = B::size;
    static_assert(kScanBlock % W == 0, "a scan block must hold whole batches");
    const B t(threshold);
    std::size_t i = begin;
    for (; i + kScanBlock <= n; i += kScanBlock) {
        auto mask = B::load_unaligned(v + i) > t;
        for (std::size_t j = W; j < kScanBlock; j += W) {
            mask = mask | (B::load_unaligned(v + i + j) > t);
        }
        if (xsimd::any(mask)) {
            return i;
        }
    }
    for (; i < n; ++i) {
        if (v[i] > threshold) {
            return i;
        }
    }
    return n;
}

template <class Arch>
void block_max(const float* v, std::size_t n, float* out) {
    using B = xsimd::batch<float, Arch>;
    constexpr std::size_t W = B::size;
    static_assert(kScanBlock % W == 0, "a scan block must hold whole batches");
    std::size_t i = 0;
    for (; i + kScanBlock <= n; i += kScanBlock) {
        B m = B::load_unaligned(v + i);
        for (std::size_t j = W; j < kScanBlock; j += W) {
            m = xsimd::max(m, B::load_unaligned(v + i + j));
        }
        alignas(64) float lanes[W];
        m.store_aligned(lanes);
        float best = lanes[0];
        for (std::size_t l = 1; l < W; ++l) {
            best = lanes[l] > best ? lanes[l] : best;
        }
        *out++ = best;
    }
    if (i < n) {
        float best = v[i];
        for (++i; i < n; ++i) {
            best = v[i] > best ? v[i] : best;
        }
        *out = best;
    }
}

// The scalar reference's steps in batches: the same max (finite input), the same float
// products and the same rounding (cvtps rounds to nearest even, as lrint does), so the codes are
// identical.
template <class Arch>
float quantize_i8(const float* v, std::size_t n, std::int8_t* codes) {
    using B = xsimd::batch<float, Arch>;
    using I = xsimd::batch<std::int32_t, Arch>;
    constexpr std::size_t W = B::size;
    B top(0.0f);
    std::size_t i = 0;
    for (; i + W <= n; i += W) {
        top = xsimd::max(top, xsimd::abs(B::load_unaligned(v + i)));
    }
    alignas(64) float lanes[W];
    top.store_aligned(lanes);
    float max_abs = 0.0f;
    for (const float lane : lanes) {
        max_abs = std::max(max_abs, lane);
    }
    for (; i < n; ++i) {
        max_abs = std::max(max_abs, std::fabs(v[i]));
    }
    if (!(max_abs > 0.0f) || !std::isfinite(max_abs)) {
        std::fill(codes, codes + n, std::int8_t{0});
        return 0.0f;
    }
    const float inv = 127.0f / max_abs;
    const B scale(inv);
    const I lo(-127);
    const I hi(127);
    alignas(64) std::int32_t ints[W];
    i = 0;
    for (; i + W <= n; i += W) {
        const I c = xsimd::min(
            xsimd::max(xsimd::nearbyint_as_int(B::load_unaligned(v + i) * scale), lo), hi);
        c.store_aligned(ints);
        for (std::size_t j = 0; j < W; ++j) {
            codes[i + j] = static_cast<std::int8_t>(ints[j]);
        }
    }
    for (; i < n; ++i) {
        const long c = std::clamp(std::lrint(v[i] * inv), -127L, 127L);
        codes[i] = static_cast<std::int8_t>(c);
    }
    return max_abs / 127.0f;
}

}  // namespace scout::detail::simd::impl

/// Defines scout::detail::simd::<ns>::kKernels from the templates above for architecture `arch`.
#define SCOUT_DEFINE_KERNELS(ns, arch)                                                       \
    namespace scout::detail::simd::ns {                                                      \
    namespace {                                                                              \
    float dot(const float* a, const float* b, std::size_t n) {                               \
        return impl::dot<arch>(a, b, n);                                                     \
    }                                                                                        \
    void dot_rows(const float* q, const float* const* r, std::size_t n, float* out) {        \
        impl::dot_rows<arch>(q, r, n, out);                                                  \
    }                                                                                        \
    std::int32_t dot_i8(const std::int8_t* a, const std::int8_t* b, std::size_t n) {         \
        return impl::dot_i8<arch>(a, b, n);                                                  \
    }                                                                                        \
    void dot_rows_i8(const std::int8_t* q,                                                   \
                     const std::int8_t* const* r,                                            \
                     std::size_t n,                                                          \
                     std::int32_t* out) {                                                    \
        impl::dot_rows_i8<arch>(q, r, n, out);                                               \
    }                                                                                        \
    std::size_t next_above(const float* v, std::size_t begin, std::size_t n, float t) {      \
        return impl::next_above<arch>(v, begin, n, t);                                       \
    }                                                                                        \
    void block_max(const float* v, std::size_t n, float* out) {                              \
        impl::block_max<arch>(v, n, out);                                                    \
    }                                                                                        \
    float quantize_i8(const float* v, std::size_t n, std::int8_t* codes) {                   \
        return impl::quantize_i8<arch>(v, n, codes);                                         \
    }                                                                                        \
    }                                                                                        \
    const Kernels kKernels{                                                                  \
        #ns, &dot, &dot_rows, &dot_i8, &dot_rows_i8, &next_above, &block_max, &quantize_i8}; \
    }
