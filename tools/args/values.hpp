// values.hpp: option values read the same way by every program: whole numbers within a range,
// refused with the range rather than clamped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace scout::args {

/// Reads `text` as a whole number in [min, max] into `out`. "" when it is one, else why not:
/// "must be 1..20 (got 25)". `out` is unchanged on error.
[[nodiscard]] std::string read_whole(std::string_view text,
                                     std::uint64_t min,
                                     std::uint64_t max,
                                     std::uint64_t& out);

/// read_whole into another integer type (`max` must fit in it).
template <typename Int>
[[nodiscard]] std::string read_whole_into(std::string_view text,
                                          std::uint64_t min,
                                          std::uint64_t max,
                                          Int& out) {
    std::uint64_t value = 0;
    std::string error = read_whole(text, min, max, value);
    if (error.empty()) {
        out = static_cast<Int>(value);
    }
    return error;
}

}  // namespace scout::args
