// http_rules.hpp: the small decisions of the Streamable HTTP transport, kept apart from the
// server so they are unit-tested and fuzzed alone: the --listen address, whether a host is
// loopback, whether a browser Origin may call, and what an Accept header asks for.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace scout::gateway {

struct ListenAddress {
    std::string host;  ///< without brackets for IPv6
    int port = 0;
};

/// "127.0.0.1:8808", "[::1]:8808", "localhost:8808" or ":8808" (127.0.0.1); port 0 picks a free
/// one. nullopt when the port is missing or not in 0..65535, or the host is empty between
/// brackets.
[[nodiscard]] std::optional<ListenAddress> parse_listen(std::string_view text);

/// 127.0.0.0/8, ::1 and "localhost".
[[nodiscard]] bool is_loopback_host(std::string_view host);

/// Whether a request with this Origin header may reach the endpoint (DNS-rebinding defence):
/// no Origin (not a browser) is allowed; otherwise its host must be loopback, or the whole
/// origin ("scheme://host[:port]") must be one of `allowed`, compared exactly.
[[nodiscard]] bool origin_allowed(std::string_view origin, const std::vector<std::string>& allowed);

/// Whether a Host header names this machine's loopback interface ("localhost", "127.0.0.1:8808",
/// "[::1]:8808"), the DNS-rebinding defence of a listener without authentication: a page on
/// another site that rebinds its name to 127.0.0.1 still sends its own name as Host. A missing
/// Host (not a browser) is allowed; a malformed one is not.
[[nodiscard]] bool host_header_is_loopback(std::string_view host);

/// What an Accept header admits (a missing header admits everything).
struct AcceptedTypes {
    bool json = false;
    bool event_stream = false;
};
[[nodiscard]] AcceptedTypes parse_accept(std::string_view accept);

/// The media type of a Content-Type header, lower-cased, without parameters.
[[nodiscard]] std::string media_type(std::string_view content_type);

/// The data of each event in a text/event-stream body (the "data:" lines of an event joined by
/// newlines; comments, "event:", "id:" and "retry:" lines skipped). An event still open at the
/// end of the body counts. CR, LF and CRLF all end lines.
[[nodiscard]] std::vector<std::string> sse_event_data(std::string_view body);

}  // namespace scout::gateway
