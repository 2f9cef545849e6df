// kernels_scalar.cpp: the reference implementation, always built; every SIMD variant is
// tested against it.
#include "simd/kernels.hpp"

namespace scout::simd::scalar {
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

}  // namespace

const Kernels kKernels{"scalar", &dot, &dot_rows, &dot_i8, &dot_rows_i8, &next_above};

}  // namespace scout::simd::scalar
