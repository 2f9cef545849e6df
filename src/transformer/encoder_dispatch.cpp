// encoder_dispatch.cpp: picks the encoder build once, from the CPU's features and SCOUT_FORCE_ISA.
// Unlike the small vector kernels (simd/dispatch.cpp), GEMM-bound work gains from AVX-512's
// width, so the widest supported build comes first.
#include <cstdlib>

#include "transformer/encoder_kernels.hpp"

namespace scout::detail::bert {

namespace generic {
extern const EncoderKernels kKernels;
}
#if defined(SCOUT_HAVE_X86_KERNELS)
namespace avx2 {
extern const EncoderKernels kKernels;
}
namespace avx512 {
extern const EncoderKernels kKernels;
}
#endif

const EncoderKernels* find_encoder_kernels(std::string_view isa) noexcept {
    if (isa == "generic" || isa == "scalar" || isa == "sse2") {
        return &generic::kKernels;
    }
#if defined(SCOUT_HAVE_X86_KERNELS)
    __builtin_cpu_init();
    if (isa == "avx2" && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        return &avx2::kKernels;
    }
    if (isa == "avx512" && __builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx2") &&
        __builtin_cpu_supports("fma")) {
        return &avx512::kKernels;
    }
#endif
    return nullptr;
}

const EncoderKernels& encoder_kernels() noexcept {
    static const EncoderKernels& chosen = []() -> const EncoderKernels& {
        if (const char* forced = std::getenv("SCOUT_FORCE_ISA"); forced != nullptr) {
            if (const EncoderKernels* k = find_encoder_kernels(forced)) {
                return *k;
            }
        }
        for (std::string_view isa : {"avx512", "avx2"}) {
            if (const EncoderKernels* k = find_encoder_kernels(isa)) {
                return *k;
            }
        }
        return generic::kKernels;
    }();
    return chosen;
}

}  // namespace scout::detail::bert
