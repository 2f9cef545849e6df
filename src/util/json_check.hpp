// json_check.hpp: whether a text is a JSON object, without building it. Opening an index file
// checks every stored input schema; parsing each into a tree took more time than the rest of
// opening a large catalog. The check agrees with parse_json (json_limits.hpp): a fuzz target
// compares the two on arbitrary bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "util/json_limits.hpp"

namespace scout::detail {

enum class JsonShape : std::uint8_t {
    object,      ///< parse_json(text, max_depth) accepts it and it is an object
    not_object,  ///< parse_json refuses it, or it is some other JSON value
    unsure,      ///< left to the parser: a number that may not fit a double, a byte-order mark
};

/// One pass over `text`, allocating nothing.
[[nodiscard]] JsonShape json_shape(std::string_view text,
                                   std::size_t max_depth = kMaxJsonDepth) noexcept;

/// True when parse_json(text, max_depth) gives an object: json_shape, and the parser for what it
/// is unsure of.
[[nodiscard]] bool is_json_object(std::string_view text, std::size_t max_depth = kMaxJsonDepth);

}  // namespace scout::detail
