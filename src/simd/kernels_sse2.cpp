// kernels_sse2.cpp: the x86-64 baseline (no extra compiler flags).
#include "simd/kernels_impl.hpp"

SCOUT_DEFINE_KERNELS(sse2, xsimd::sse2)
