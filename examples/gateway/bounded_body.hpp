// bounded_body.hpp: an HTTP response body read with a size cap and a deadline, so a peer that
// floods or trickles bytes is cut off instead of holding memory or a thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace scout::gateway {

struct BoundedBody {
    BoundedBody(std::size_t max, std::chrono::steady_clock::time_point until)
        : max_bytes(max), deadline(until) {}

    std::size_t max_bytes;
    std::chrono::steady_clock::time_point deadline;
    std::string text;
    bool too_big = false;
    bool late = false;

    /// A content receiver for cpp-httplib (the body stays in `text`); this object must outlive
    /// the request.
    auto receiver() {
        return [this](const char* data, std::size_t n, std::uint64_t, std::uint64_t) {
            if (text.size() + n > max_bytes) {
                too_big = true;
                return false;
            }
            if (std::chrono::steady_clock::now() > deadline) {  // a server trickling bytes
                late = true;
                return false;
            }
            text.append(data, n);
            return true;
        };
    }
};

}  // namespace scout::gateway
