// kernels_avx2.cpp: compiled with -mavx2 -mfma (set on this file only, in CMake).
#include "simd/kernels_impl.hpp"

SCOUT_DEFINE_KERNELS(avx2, xsimd::fma3<xsimd::avx2>)
