// byte_io.hpp: trivially copyable values appended to and read from unaligned bytes, for the
// binary file formats (.scout vectors, .swm word models). Bytes are the host's; each format
// asserts that the host is little-endian.
#pragma once

#include <cstring>
#include <string>
#include <type_traits>

namespace scout::detail {

template <typename T>
void put_bytes(std::string& out, T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    out.append(bytes, sizeof(T));
}

/// Reads a T from p, which needs no alignment; the caller has checked sizeof(T) bytes remain.
template <typename T>
T get_bytes(const char* p) {
    static_assert(std::is_trivially_copyable_v<T>);
    T value;
    std::memcpy(&value, p, sizeof(T));
    return value;
}

}  // namespace scout::detail
