// printable.hpp: names and values from outside (clients, backends, config files), made safe to
// quote in logs and error messages: control characters escaped (an ESC in a tool name must not
// drive the operator's terminal) and long values clipped (an error about a 1 MB name must not
// echo the megabyte).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace scout::gateway::detail {

/// `s` with C0 control characters and DEL written as \xNN; other bytes unchanged.
[[nodiscard]] inline std::string printable(std::string_view s) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
        const auto b = static_cast<unsigned char>(c);
        if (b < 0x20 || b == 0x7f) {
            out += "\\x";
            out += kHex[b >> 4];
            out += kHex[b & 15];
        } else {
            out += c;
        }
    }
    return out;
}

/// printable() of at most `max` bytes of `s`, cut before a UTF-8 continuation byte, plus
/// "... (N bytes)" when it was cut.
[[nodiscard]] inline std::string clipped(std::string_view s, std::size_t max = 80) {
    if (s.size() <= max) {
        return printable(s);
    }
    std::size_t cut = max;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) {
        --cut;
    }
    return printable(s.substr(0, cut)) + "... (" + std::to_string(s.size()) + " bytes)";
}

}  // namespace scout::gateway::detail
