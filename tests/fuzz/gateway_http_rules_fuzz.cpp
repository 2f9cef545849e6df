// gateway_http_rules_fuzz.cpp: libFuzzer target for what scout-gateway reads from HTTP peers
// itself (the rest is cpp-httplib's): SSE bodies of remote servers, Accept, Content-Type and
// Origin headers, remote URLs and --listen addresses. Any bytes must give an answer, never a
// crash, and the answers must hold their invariants.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "http_rules.hpp"
#include "remote_session.hpp"

using scout::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace scout::gateway;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::size_t total = 0;
    for (const auto& event : sse_event_data(text)) {
        total += event.size();
    }
    check(total <= text.size());
    (void)parse_accept(text);
    check(media_type(text).size() <= text.size());
    if (origin_allowed(text, {})) {  // only no origin or a loopback one passes without a list
        std::string lower(text);
        for (char& c : lower) {
            c = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
        }
        check(lower.find_first_not_of(" \t") == std::string::npos ||
              lower.find("localhost") != std::string::npos ||
              lower.find("127.") != std::string::npos || lower.find("::1") != std::string::npos ||
              lower.find("0:0:0:0:0:0:0:1") != std::string::npos);
    }
    if (auto listen = parse_listen(text)) {
        check(listen->port >= 0 && listen->port <= 65535 && !listen->host.empty());
    }
    if (auto url = parse_http_url(text)) {
        check(!url->path.empty() && url->path.front() == '/');
        check(url->origin.rfind("http", 0) == 0);
    }
    return 0;
}
