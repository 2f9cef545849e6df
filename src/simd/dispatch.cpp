// dispatch.cpp: picks the kernels once, from the CPU's features and SCOUT_FORCE_ISA.
#include <cstdlib>

#include "simd/kernels.hpp"

namespace scout::detail::simd {
namespace {

bool supported(std::string_view isa) noexcept {
    if (isa == "scalar") {
        return true;
    }
#if defined(SCOUT_HAVE_X86_KERNELS)
    __builtin_cpu_init();
    if (isa == "sse2") {
        return true;
    }
    if (isa == "avx2") {
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }
    if (isa == "avx512") {
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx512vnni");
    }
#endif
    return false;
}

const Kernels* lookup(std::string_view isa) noexcept {
    if (isa == "scalar") {
        return &scalar::kKernels;
    }
#if defined(SCOUT_HAVE_X86_KERNELS)
    if (isa == "sse2") {
        return &sse2::kKernels;
    }
    if (isa == "avx2") {
        return &avx2::kKernels;
    }
    if (isa == "avx512") {
        return &avx512::kKernels;
    }
#endif
    return nullptr;
}

const Kernels& choose() noexcept {
    if (const char* forced = std::getenv("SCOUT_FORCE_ISA"); forced != nullptr) {
        if (const Kernels* k = find(forced)) {
            return *k;
        }
    }
    // AVX2 before AVX-512: at our vector sizes the wider unit rarely pays for its downclock.
    for (std::string_view isa : {"avx2", "avx512", "sse2"}) {
        if (const Kernels* k = find(isa)) {
            return *k;
        }
    }
    return scalar::kKernels;
}

/// The chosen kernels, with the int8 ones taken from the AVX-512 build when it runs here: its
/// 256-bit VNNI dpbusd fuses three AVX2 instructions and does not use the 512-bit units that
/// made us prefer AVX2 for the float kernels. An explicit SCOUT_FORCE_ISA is left untouched.
Kernels with_best_int8(const Kernels& base) noexcept {
    Kernels k = base;
    if (std::getenv("SCOUT_FORCE_ISA") == nullptr && std::string_view(base.isa) == "avx2") {
        if (const Kernels* wide = find("avx512")) {
            k.dot_i8 = wide->dot_i8;
            k.dot_rows_i8 = wide->dot_rows_i8;
        }
    }
    return k;
}

}  // namespace

const Kernels* find(std::string_view isa) noexcept {
    return supported(isa) ? lookup(isa) : nullptr;
}

const Kernels& active() noexcept {
    static const Kernels chosen = with_best_int8(choose());
    return chosen;
}

std::vector<std::string> available() {
    std::vector<std::string> out;
    for (std::string_view isa : {"scalar", "sse2", "avx2", "avx512"}) {
        if (find(isa) != nullptr) {
            out.emplace_back(isa);
        }
    }
    return out;
}

}  // namespace scout::detail::simd
