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

std::size_t next_above(const float* v, std::size_t begin, std::size_t n, float threshold) {
    for (std::size_t i = begin; i < n; ++i) {
        if (v[i] > threshold) {
            return i;
        }
    }
    return n;
}

}  // namespace

const Kernels kKernels{"scalar", &dot, &next_above};

}  // namespace scout::simd::scalar
