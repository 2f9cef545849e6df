// gateway_http_rules_fuzz.cpp: libFuzzer target for what scout-gateway reads from HTTP peers
// itself (request framing is Boost.Beast's on the listener and cpp-httplib's on the client): SSE
// bodies of remote servers (whole, and as a live stream cut into pieces), Accept, Content-Type,
// Origin and Host headers, remote URLs and --listen addresses. Any
// bytes must give an answer, never a crash, and the answers must hold their invariants.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "http_rules.hpp"
#include "remote_session.hpp"
#include "sse_reader.hpp"

using scout::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace scout::gateway;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::size_t total = 0;
    for (const auto& event : sse_event_data(text)) {
        total += event.size();
    }
    check(total <= text.size());
    // The same bytes as a live stream, cut where the first byte says: the events it completes
    // are the whole body's, save an event still open at the end.
    if (!text.empty()) {
        const std::size_t cut = 1 + static_cast<std::uint8_t>(text.front()) % 7;
        std::vector<std::string> streamed;
        SseReader reader;
        for (std::size_t at = 0; at < text.size(); at += cut) {
            check(reader.feed(text.substr(at, cut),
                              [&](std::string d) { streamed.push_back(std::move(d)); }));
        }
        const auto whole = sse_event_data(text);
        check(streamed.size() <= whole.size());
        for (std::size_t i = 0; i < streamed.size(); ++i) {
            check(streamed[i] == whole[i]);
        }
        reader.finish([&](std::string d) { streamed.push_back(std::move(d)); });
        check(streamed == whole);
    }
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
    if (host_header_is_loopback(text)) {  // only no host or a loopback name passes
        std::string lower(text);
        for (char& c : lower) {
            c = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
        }
        check(lower.find_first_not_of(" \t") == std::string::npos ||
              lower.find("localhost") != std::string::npos ||
              lower.find("127.") != std::string::npos || lower.find("[::1]") != std::string::npos);
        check(lower.find('/') == std::string::npos && lower.find('@') == std::string::npos);
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
