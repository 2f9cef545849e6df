// half.hpp: IEEE 754 half precision (fp16) bits to float, for the file formats that store
// fp16 (safetensors weights, the .swm version 2 codebooks and word weights).
#pragma once

#include <cstdint>
#include <cstring>

namespace scout::detail {

/// Exact: every fp16 value, subnormals, infinities and NaN included, is a float.
inline float half_to_float(std::uint16_t h) noexcept {
    const std::uint32_t sign = (h & 0x8000U) << 16;
    const std::uint32_t exp = (h >> 10) & 0x1FU;
    std::uint32_t mant = h & 0x3FFU;
    std::uint32_t bits = 0;
    if (exp == 0) {
        if (mant == 0) {
            bits = sign;
        } else {  // subnormal: renormalize
            int e = -1;
            do {
                ++e;
                mant <<= 1;
            } while ((mant & 0x400U) == 0);
            bits =
                sign | (static_cast<std::uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3FFU) << 13);
        }
    } else if (exp == 31) {
        bits = sign | 0x7F800000U | (mant << 13);
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

}  // namespace scout::detail
