// gateway_modern_fuzz.cpp: libFuzzer target for what scout-gateway reads from 2026-07-28 peers
// through modern_protocol: the _meta envelope of client requests, subscriptions/listen filters,
// the Streamable HTTP headers (Mcp-Name's =?base64?...?= values) and upstreams' discover
// answers and errors. Any bytes must give an answer, never a crash, and the answers must hold
// their invariants.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "json_rpc.hpp"
#include "modern_protocol.hpp"

using scout::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace scout::gateway;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (auto decoded = modern::decode_header_value(text)) {
        check(decoded->size() <= text.size());
    }
    const Message m = classify(text);  // depth-bounded like every line the gateway reads
    if (m.kind != MessageKind::request && m.kind != MessageKind::notification &&
        m.kind != MessageKind::response) {
        return 0;
    }
    const Json& body = m.body;
    (void)modern::carries_envelope(body);
    (void)modern::envelope_version(body);
    if (auto e = modern::check_envelope(body)) {
        check(e->code == kInvalidParams || e->code == modern::kUnsupportedProtocolVersion);
        check(e->http_status == 400);
        check(e->message.size() < 1024);
        (void)to_line(modern::error_response(m.id, *e));
    }
    Json honoured;
    if (!modern::check_listen(body, honoured)) {
        check(honoured.is_object() && honoured.size() <= 1);
    }
    // The headers taken from the body's own strings, so mismatches and matches both occur.
    modern::ModernHeaders headers;
    if (auto p = body.find("params"); p != body.end() && p->is_object()) {
        if (auto n = p->find("name"); n != p->end() && n->is_string()) {
            headers.name = n->get<std::string>();
        }
    }
    headers.protocol_version = modern::envelope_version(body);
    headers.method = m.method;
    if (auto e = modern::check_headers(body, headers)) {
        check(e->code == modern::kHeaderMismatch && e->http_status == 400);
    }
    if (auto r = body.find("result"); r != body.end()) {
        Json result = *r;
        modern::finish_result(m.method.empty() ? "tools/list" : m.method, result, false);
        if (result.is_object()) {
            check(result["resultType"] == "complete");
        }
        if (modern::is_discover_result(*r)) {
            check(modern::initialize_view(*r)["protocolVersion"] == modern::kProtocolVersion);
        }
    }
    if (auto e = body.find("error"); e != body.end()) {
        (void)modern::is_modern_error(*e);
    }
    return 0;
}
