// encoder_kernels_avx2.cpp: the encoder built for avx2; CMakeLists.txt sets its ISA flags and
// renames Eigen's namespace for this file alone.
#define SCOUT_ENCODER_ISA avx2
#define SCOUT_ENCODER_ISA_NAME "avx2"
#define SCOUT_ENCODER_PANEL_ROWS 3
#include "transformer/encoder_kernels_impl.hpp"
