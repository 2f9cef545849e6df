// kernels_avx512.cpp: compiled with -mavx512f -mavx512dq (xsimd 8 reduces with a DQ
// instruction); set on this file only, in CMake.
#include "simd/kernels_impl.hpp"

SCOUT_DEFINE_KERNELS(avx512, xsimd::avx512f)
