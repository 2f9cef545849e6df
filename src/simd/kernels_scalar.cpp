// kernels_scalar.cpp: the reference implementation, always built; every SIMD variant is
// tested against it.
#include <algorithm>
#include <cmath>

#include "simd/kernels.hpp"

namespace scout::detail::simd::scalar {
namespace {

float dot(const float* a, const float* b, std::size_t n) {
    float sum = 0.0f;
    for (std::size_t i = 0; i < n; ++i) {
        sum += a[i] * b[i];
    }
    return sum;
}

void dot_rows(const float* q, const float* const* rows, std::size_t n, float* out) {
    for (std::size_t r = 0; r < kRowGroup; ++r) {
        out[r] = dot(q, rows[r], n);
    }
}

std::int32_t dot_i8(const std::int8_t* a, const std::int8_t* b, std::size_t n) {
    std::int32_t sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
        sum += static_cast<std::int32_t>(a[i]) * static_cast<std::int32_t>(b[i]);
    }
    return sum;
}

void dot_rows_i8(const std::int8_t* q,
                 const std::int8_t* const* rows,
                 std::size_t n,
                 std::int32_t* out) {
    for (std::size_t r = 0; r < kRowGroup; ++r) {
        out[r] = dot_i8(q, rows[r], n);
    }
}

std::size_t next_above(const float* v, std::size_t begin, std::size_t n, float threshold) {
    for (std::size_t i = begin; i < n; ++i) {
        if (v[i] > threshold) {
            return i;
        }
    }
    return n;
}

void block_max(const float* v, std::size_t n, float* out) {
    for (std::size_t i = 0; i < n; i += kScanBlock) {
        float best = v[i];
        for (std::size_t j = i + 1; j < n && j < i + kScanBlock; ++j) {
            best = v[j] > best ? v[j] : best;
        }
        *out++ = best;
    }
}

}  // namespace

float quantize_i8(const float* v, std::size_t n, std::int8_t* codes) {
    float max_abs = 0.0f;
    for (std::size_t i = 0; i < n; ++i) {
        max_abs = std::max(max_abs, std::fabs(v[i]));
    }
    if (!(max_abs > 0.0f) || !std::isfinite(max_abs)) {
        std::fill(codes, codes + n, std::int8_t{0});
        return 0.0f;
    }
    const float inv = 127.0f / max_abs;
    for (std::size_t i = 0; i < n; ++i) {
        // lrint: one conversion instruction (nearbyint is a libm call per component).
        const long c = std::clamp(std::lrint(v[i] * inv), -127L, 127L);
        codes[i] = static_cast<std::int8_t>(c);
    }
    return max_abs / 127.0f;
}

const Kernels kKernels{
    "scalar", &dot, &dot_rows, &dot_i8, &dot_rows_i8, &next_above, &block_max, &quantize_i8};

}  // namespace scout::detail::simd::scalar
