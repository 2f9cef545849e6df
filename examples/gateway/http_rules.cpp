// http_rules.cpp: see http_rules.hpp.
#include "http_rules.hpp"

#include <charconv>

#include "sse_reader.hpp"

namespace scout::gateway {
namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) {
        if (c >= 'A' && c <= 'Z') {
            c = static_cast<char>(c - 'A' + 'a');
        }
    }
    return out;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
        s.remove_prefix(1);
    }
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
        s.remove_suffix(1);
    }
    return s;
}

bool parse_port(std::string_view text, int& port, int least = 1) {
    int v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || v < least ||
        v > 65535) {
        return false;
    }
    port = v;
    return true;
}

/// Dotted quad with a first octet of 127.
bool is_ipv4_loopback(std::string_view host) {
    int parts = 0;
    int first = -1;
    while (!host.empty()) {
        const std::size_t dot = host.find('.');
        const std::string_view part = host.substr(0, dot);
        int v = 0;
        auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
        if (part.empty() || part.size() > 3 || ec != std::errc() ||
            ptr != part.data() + part.size() || v > 255) {
            return false;
        }
        if (first < 0) {
            first = v;
        }
        ++parts;
        if (dot == std::string_view::npos) {
            break;
        }
        host.remove_prefix(dot + 1);
        if (host.empty()) {
            return false;
        }
    }
    return parts == 4 && first == 127;
}

}  // namespace

std::optional<ListenAddress> parse_listen(std::string_view text) {
    ListenAddress out;
    std::string_view port;
    if (!text.empty() && text.front() == '[') {
        const std::size_t close = text.find(']');
        if (close == std::string_view::npos || close == 1 || close + 1 >= text.size() ||
            text[close + 1] != ':') {
            return std::nullopt;
        }
        out.host = std::string(text.substr(1, close - 1));
        port = text.substr(close + 2);
    } else {
        const std::size_t colon = text.rfind(':');
        if (colon == std::string_view::npos) {
            return std::nullopt;
        }
        out.host = std::string(text.substr(0, colon));
        if (out.host.find(':') != std::string::npos) {
            return std::nullopt;  // IPv6 needs brackets
        }
        port = text.substr(colon + 1);
        if (out.host.empty()) {
            out.host = "127.0.0.1";
        }
    }
    if (!parse_port(port, out.port, 0)) {
        return std::nullopt;
    }
    return out;
}

bool is_loopback_host(std::string_view host) {
    const std::string h = lower(host);
    return h == "localhost" || h == "::1" || h == "0:0:0:0:0:0:0:1" || is_ipv4_loopback(h);
}

bool origin_allowed(std::string_view origin, const std::vector<std::string>& allowed) {
    origin = trim(origin);
    if (origin.empty()) {
        return true;
    }
    const std::string o = lower(origin);
    for (const std::string& a : allowed) {
        if (lower(a) == o) {
            return true;
        }
    }
    std::string_view rest = o;
    if (rest.substr(0, 7) == "http://") {
        rest.remove_prefix(7);
    } else if (rest.substr(0, 8) == "https://") {
        rest.remove_prefix(8);
    } else {
        return false;  // "null", file://, other schemes
    }
    std::string_view host = rest;
    if (!host.empty() && host.front() == '[') {
        const std::size_t close = host.find(']');
        if (close == std::string_view::npos) {
            return false;
        }
        rest = host.substr(close + 1);
        host = host.substr(1, close - 1);
    } else {
        const std::size_t colon = host.find(':');
        rest = colon == std::string_view::npos ? std::string_view() : host.substr(colon);
        host = host.substr(0, colon);
    }
    if (!rest.empty()) {  // only ":port" may follow the host
        int port = 0;
        if (rest.front() != ':' || !parse_port(rest.substr(1), port)) {
            return false;
        }
    }
    return is_loopback_host(host);
}

bool host_header_is_loopback(std::string_view host) {
    host = trim(host);
    if (host.empty()) {
        return true;
    }
    std::string_view name = host;
    if (host.front() == '[') {  // [v6]:port
        const std::size_t close = host.find(']');
        if (close == std::string_view::npos) {
            return false;
        }
        name = host.substr(1, close - 1);
        std::string_view rest = host.substr(close + 1);
        int port = 0;
        if (!rest.empty() && (rest.front() != ':' || !parse_port(rest.substr(1), port))) {
            return false;
        }
        return name == "::1";
    }
    if (const std::size_t colon = host.rfind(':'); colon != std::string_view::npos) {
        int port = 0;
        if (!parse_port(host.substr(colon + 1), port)) {
            return false;
        }
        name = host.substr(0, colon);
    }
    // A trailing dot names the same host ("localhost.").
    if (!name.empty() && name.back() == '.') {
        name.remove_suffix(1);
    }
    return lower(name) == "localhost" || is_ipv4_loopback(name);
}

AcceptedTypes parse_accept(std::string_view accept) {
    AcceptedTypes out;
    if (trim(accept).empty()) {
        return {true, true};
    }
    while (!accept.empty()) {
        const std::size_t comma = accept.find(',');
        std::string type = media_type(accept.substr(0, comma));
        if (type == "*/*") {
            out.json = out.event_stream = true;
        } else if (type == "application/*" || type == "application/json") {
            out.json = true;
        }
        if (type == "text/*" || type == "text/event-stream") {
            out.event_stream = true;
        }
        if (comma == std::string_view::npos) {
            break;
        }
        accept.remove_prefix(comma + 1);
    }
    return out;
}

std::vector<std::string> sse_event_data(std::string_view body) {
    std::vector<std::string> events;
    // A whole body is bounded already: its lines and events may be as long as it is.
    SseReader reader({.max_line = body.size(), .max_event = body.size() + 1});
    const auto keep = [&](std::string data) { events.push_back(std::move(data)); };
    (void)reader.feed(body, keep);
    reader.finish(keep);
    return events;
}

std::string media_type(std::string_view content_type) {
    return lower(trim(content_type.substr(0, content_type.find(';'))));
}

}  // namespace scout::gateway
