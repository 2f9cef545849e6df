// utf8.hpp: internal UTF-8 helpers shared by the analyzer and the input validators.
#pragma once

#include <cstddef>
#include <string_view>

namespace scout {

/// Length of the well-formed UTF-8 sequence starting at text[i], or 0 if it is malformed.
[[nodiscard]] std::size_t utf8_sequence_length(std::string_view text, std::size_t i) noexcept;

}  // namespace scout
