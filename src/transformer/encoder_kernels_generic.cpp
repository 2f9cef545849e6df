// encoder_kernels_generic.cpp: the encoder built for the compiler's baseline instruction set;
// CMakeLists.txt renames Eigen's namespace for this file alone.
#define SCOUT_ENCODER_ISA generic
#define SCOUT_ENCODER_ISA_NAME "generic"
#define SCOUT_ENCODER_PANEL_ROWS 0
#include "transformer/encoder_kernels_impl.hpp"
