// kernels.hpp: the hot loops of both branches, one implementation per instruction set, chosen
// once at startup (or forced with SCOUT_FORCE_ISA=scalar|sse2|avx2|avx512 for tests/benchmarks).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace scout::detail::simd {

/// Width of the blocks next_above() reports: callers inspect v[i, i + kScanBlock) after a hit.
inline constexpr std::size_t kScanBlock = 16;

/// Rows scored together by the batched kernels: the query is loaded once per group.
inline constexpr std::size_t kRowGroup = 4;

struct Kernels {
    const char* isa;
    /// Inner product of a[0, n) and b[0, n).
    float (*dot)(const float* a, const float* b, std::size_t n);
    /// out[r] = dot(q, rows[r], n) for the kRowGroup rows; each out[r] is bit-identical to
    /// dot(q, rows[r], n) (same summation order), so batched and single scans rank alike.
    void (*dot_rows)(const float* q, const float* const* rows, std::size_t n, float* out);
    /// Exact integer inner product of two int8 vectors (the quantized dense scan). Codes must
    /// lie in [-127, 127] (the AVX2 kernel negates them; -128 has no negation).
    std::int32_t (*dot_i8)(const std::int8_t* a, const std::int8_t* b, std::size_t n);
    /// out[r] = dot_i8(q, rows[r], n) for the kRowGroup rows.
    void (*dot_rows_i8)(const std::int8_t* q,
                        const std::int8_t* const* rows,
                        std::size_t n,
                        std::int32_t* out);
    /// Smallest i >= begin such that some v[j] > threshold for j in [i, min(i + kScanBlock, n));
    /// n if there is none. Lets a top-k scan skip whole blocks that cannot enter the heap.
    std::size_t (*next_above)(const float* v, std::size_t begin, std::size_t n, float threshold);
    /// out[b] = the largest of v[b * kScanBlock, min((b + 1) * kScanBlock, n)) for every block
    /// b < ceil(n / kScanBlock). Values must not be NaN.
    void (*block_max)(const float* v, std::size_t n, float* out);
    /// Symmetric int8 codes of finite v[0, n): the largest |v| maps to 127, each value to
    /// lrint(v * (127 / max)) clamped to [-127, 127]; returns max / 127 (0, with zero codes, for
    /// a zero vector). The same codes and scale as the scalar reference, bit for bit.
    float (*quantize_i8)(const float* v, std::size_t n, std::int8_t* codes);
};

/// The kernels in use: the best the CPU supports, unless SCOUT_FORCE_ISA names another.
[[nodiscard]] const Kernels& active() noexcept;
/// A named implementation, or nullptr when it is not built or not supported by this CPU.
[[nodiscard]] const Kernels* find(std::string_view isa) noexcept;
/// Every implementation this CPU can run, scalar first.
[[nodiscard]] std::vector<std::string> available();

namespace scalar {
extern const Kernels kKernels;
}
#if defined(SCOUT_HAVE_X86_KERNELS)
namespace sse2 {
extern const Kernels kKernels;
}
namespace avx2 {
extern const Kernels kKernels;
}
namespace avx512 {
extern const Kernels kKernels;
}
#endif

}  // namespace scout::detail::simd
