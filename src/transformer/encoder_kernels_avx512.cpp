// encoder_kernels_avx512.cpp: the encoder built for avx512; CMakeLists.txt sets its ISA flags and
// renames Eigen's namespace for this file alone.
#define SCOUT_ENCODER_ISA avx512
#define SCOUT_ENCODER_ISA_NAME "avx512"
#define SCOUT_ENCODER_PANEL_ROWS 8
#include "transformer/encoder_kernels_impl.hpp"
