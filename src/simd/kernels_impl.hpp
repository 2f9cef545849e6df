// kernels_impl.hpp: the kernels written once over xsimd batches; each kernels_<isa>.cpp
// instantiates them for its architecture with that file's compiler flags.
#pragma once

#include <cstddef>

#include <xsimd/xsimd.hpp>

#include "simd/kernels.hpp"

namespace scout::simd::impl {

template <class Arch>
float dot(const float* a, const float* b, std::size_t n) {
    using B = xsimd::batch<float, Arch>;
    constexpr std::size_t W = B::size;
    // Four independent accumulators hide the FMA latency.
    B acc0(0.0f), acc1(0.0f), acc2(0.0f), acc3(0.0f);
    std::size_t i = 0;
    for (; i + 4 * W <= n; i += 4 * W) {
        acc0 = xsimd::fma(B::load_unaligned(a + i), B::load_unaligned(b + i), acc0);
        acc1 = xsimd::fma(B::load_unaligned(a + i + W), B::load_unaligned(b + i + W), acc1);
        acc2 = xsimd::fma(B::load_unaligned(a + i + 2 * W), B::load_unaligned(b + i + 2 * W), acc2);
        acc3 = xsimd::fma(B::load_unaligned(a + i + 3 * W), B::load_unaligned(b + i + 3 * W), acc3);
    }
    for (; i + W <= n; i += W) {
        acc0 = xsimd::fma(B::load_unaligned(a + i), B::load_unaligned(b + i), acc0);
    }
    float sum = xsimd::hadd((acc0 + acc1) + (acc2 + acc3));
    for (; i < n; ++i) {
        sum += a[i] * b[i];
    }
    return sum;
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

}  // namespace scout::simd::impl

/// Defines scout::simd::<ns>::kKernels from the templates above for architecture `arch`.
#define SCOUT_DEFINE_KERNELS(ns, arch)                                                     \
    namespace scout::simd::ns {                                                            \
    namespace {                                                                            \
    float dot(const float* a, const float* b, std::size_t n) {                             \
        return impl::dot<arch>(a, b, n);                                                   \
    }                                                                                      \
    std::size_t next_above(const float* v, std::size_t begin, std::size_t n, float t) {    \
        return impl::next_above<arch>(v, begin, n, t);                                     \
    }                                                                                      \
    }                                                                                      \
    const Kernels kKernels{#ns, &dot, &next_above};                                        \
    }
