// kernels_avx512.cpp: compiled with -mavx512f -mavx512dq (xsimd 8 reduces with a DQ
// instruction) and -mavx512bw -mavx512vl -mavx512vnni (the int8 kernels use VNNI's dpbusd);
// set on this file only, in CMake. The CPU must have all of them (dispatch.cpp checks).
#include "simd/kernels_impl.hpp"

SCOUT_DEFINE_KERNELS(avx512, xsimd::avx512f)
