// safetensors.hpp: a bounds-checked reader of the safetensors format: an 8-byte little-endian
// header length, a JSON header naming each tensor's dtype, shape and byte range, then the data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "scout/status.hpp"

namespace scout::detail::bert {

enum class DType : std::uint8_t { f64, f32, f16, bf16, i64, i32, i16, i8, u8, boolean };

struct TensorInfo {
    DType dtype = DType::f32;
    std::vector<std::size_t> shape;
    std::size_t begin = 0;  ///< byte offsets into the data section, begin <= end <= data size
    std::size_t end = 0;
    [[nodiscard]] std::size_t elements() const noexcept;
};

/// A parsed file: the tensor table plus a view of the data section (not owned).
struct SafeTensors {
    std::map<std::string, TensorInfo, std::less<>> tensors;
    std::string_view data;

    /// The tensor's values as floats (from F32, F16 or BF16). invalid_argument for other
    /// dtypes, or when `expected_shape` is non-empty and differs.
    [[nodiscard]] Result<std::vector<float>> floats(
        std::string_view name, const std::vector<std::size_t>& expected_shape) const;
};

/// Largest header accepted (real headers are a few kB to a few MB).
inline constexpr std::size_t kMaxSafetensorsHeader = std::size_t{100} << 20;

/// Parses `file` (the whole file's bytes, which must outlive the result). corrupt on a
/// truncated or inconsistent file, invalid_argument on a malformed header.
[[nodiscard]] Result<SafeTensors> parse_safetensors(std::string_view file);

/// Writes a safetensors file of F32 tensors (tests and tools). Names sorted, data packed.
[[nodiscard]] std::string write_safetensors(
    const std::map<std::string, std::pair<std::vector<std::size_t>, std::vector<float>>>& tensors);

}  // namespace scout::detail::bert
