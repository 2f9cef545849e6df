// config_file.hpp: reads one of the gateway's JSON files (config, auth) whole and parses it;
// a parse error names the file.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>

#include "scout/status.hpp"

#include "file_io.hpp"

namespace scout::gateway {

/// The gateway's files are small; a larger one (or a device, a FIFO) is refused, not read.
inline constexpr std::size_t kMaxConfigFileBytes = std::size_t{16} << 20;

/// Reads `path` and returns parse(text), a Status or a Result<T>, its error prefixed by the path.
template <typename Parse>
auto load_config_file(const std::string& path, Parse&& parse)
    -> decltype(parse(std::string_view{})) {
    auto text = detail::read_text_file(path, kMaxConfigFileBytes);
    if (!text) {
        return text.status();
    }
    auto parsed = parse(std::string_view(*text));
    Status status;
    if constexpr (std::is_same_v<decltype(parsed), Status>) {
        status = parsed;
    } else {
        status = parsed.status();
    }
    if (!status.ok()) {
        return Status{status.code(), path + ": " + status.message()};
    }
    return parsed;
}

}  // namespace scout::gateway
