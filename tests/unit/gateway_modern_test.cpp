// gateway_modern_test.cpp: the rules of the stateless MCP era (2026-07-28) in scout-gateway:
// era detection, envelope checks, result stamping, subscriptions, the Streamable HTTP headers
// (with the =?base64?...?= encoding of Mcp-Name) and the upstream probe's verdicts.
#include <catch2/catch.hpp>

#include "modern_protocol.hpp"

using namespace scout::gateway;
namespace m = scout::gateway::modern;

namespace {

Json request(const std::string& method, Json params) {
    return Json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", std::move(params)}};
}

Json envelope(Json extra = Json::object()) {
    Json meta{{m::kProtocolVersionKey, m::kProtocolVersion},
              {m::kClientCapabilitiesKey, Json::object()}};
    meta.update(extra);
    return Json{{"_meta", meta}};
}

}  // namespace

TEST_CASE("modern: the era is read from the _meta envelope", "[gateway][modern]") {
    CHECK(m::carries_envelope(request("tools/list", envelope())));
    CHECK(m::carries_envelope(
        request("tools/list", Json{{"_meta", {{m::kClientCapabilitiesKey, Json::object()}}}})));
    CHECK_FALSE(m::carries_envelope(request("tools/list", Json::object())));
    CHECK_FALSE(
        m::carries_envelope(request("tools/list", Json{{"_meta", {{"progressToken", 1}}}})));
    CHECK_FALSE(m::carries_envelope(request("tools/list", Json{{"_meta", "text"}})));
    CHECK_FALSE(m::carries_envelope(Json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "x"}}));
    CHECK(m::envelope_version(request("tools/list", envelope())) == "2026-07-28");
    CHECK(
        m::envelope_version(request("x", Json{{"_meta", {{m::kProtocolVersionKey, 7}}}})).empty());
}

TEST_CASE("modern: envelope checks give the spec's codes", "[gateway][modern]") {
    CHECK_FALSE(m::check_envelope(request("tools/list", envelope())));
    CHECK_FALSE(m::check_envelope(
        request("tools/list",
                envelope({{m::kLogLevelKey, "debug"}, {m::kClientInfoKey, {{"name", "c"}}}}))));

    auto code_of = [](const Json& params) {
        auto e = m::check_envelope(request("tools/list", params));
        return e ? e->code : 0;
    };
    CHECK(code_of(Json::object()) == kInvalidParams);
    CHECK(code_of(Json::array()) == kInvalidParams);
    CHECK(code_of(Json{{"_meta", nullptr}}) == kInvalidParams);
    CHECK(code_of(Json{{"_meta", {{m::kClientCapabilitiesKey, Json::object()}}}}) ==
          kInvalidParams);
    CHECK(code_of(envelope({{m::kProtocolVersionKey, 20260728}})) == kInvalidParams);
    CHECK(code_of(envelope({{m::kClientCapabilitiesKey, "all"}})) == kInvalidParams);
    CHECK(code_of(envelope({{m::kClientInfoKey, "me"}})) == kInvalidParams);
    CHECK(code_of(envelope({{m::kLogLevelKey, "loud"}})) == kInvalidParams);
    CHECK(code_of(envelope({{m::kLogLevelKey, 3}})) == kInvalidParams);

    auto unsupported = m::check_envelope(
        request("tools/list", envelope({{m::kProtocolVersionKey, "2025-11-25"}})));
    REQUIRE(unsupported);
    CHECK(unsupported->code == m::kUnsupportedProtocolVersion);
    CHECK(unsupported->http_status == 400);
    CHECK(unsupported->data["supported"] == Json::array({"2026-07-28"}));
    CHECK(unsupported->data["requested"] == "2025-11-25");
    // A huge version is clipped in the answer, not echoed whole.
    auto huge = m::check_envelope(
        request("tools/list", envelope({{m::kProtocolVersionKey, std::string(100000, 'x')}})));
    REQUIRE(huge);
    CHECK(huge->message.size() < 300);
    const Json response = m::error_response(7, *unsupported);
    CHECK(response["error"]["code"] == -32022);
    CHECK(response["error"]["data"]["supported"][0] == "2026-07-28");
    CHECK(response["id"] == 7);
}

TEST_CASE("modern: methods served and results stamped", "[gateway][modern]") {
    CHECK(m::serves_method("server/discover"));
    CHECK(m::serves_method("tools/call"));
    CHECK(m::serves_method("subscriptions/listen"));
    CHECK_FALSE(m::serves_method("ping"));
    CHECK_FALSE(m::serves_method("logging/setLevel"));
    CHECK_FALSE(m::serves_method("initialize"));

    Json list{{"tools", Json::array()}};
    m::finish_result("tools/list", list, false);
    CHECK(list["resultType"] == "complete");
    CHECK(list["ttlMs"] == m::kToolListTtlMs);
    CHECK(list["cacheScope"] == "public");
    Json scoped{{"tools", Json::array()}};
    m::finish_result("tools/list", scoped, true);
    CHECK(scoped["cacheScope"] == "private");

    Json call{{"content", Json::array()}};
    m::finish_result("tools/call", call, true);
    CHECK(call["resultType"] == "complete");
    CHECK_FALSE(call.contains("ttlMs"));
    CHECK_FALSE(call.contains("cacheScope"));

    // An upstream's valid hints stay unless the caller's scope makes the answer private;
    // invalid ones are replaced.
    Json read{{"contents", Json::array()}, {"ttlMs", 5000}, {"cacheScope", "public"}};
    m::finish_result("resources/read", read, false);
    CHECK(read["ttlMs"] == 5000);
    CHECK(read["cacheScope"] == "public");
    m::finish_result("resources/read", read, true);
    CHECK(read["cacheScope"] == "private");
    Json odd{{"contents", Json::array()}, {"ttlMs", -1}, {"cacheScope", "everyone"}};
    m::finish_result("resources/read", odd, false);
    CHECK(odd["ttlMs"] == 0);
    CHECK(odd["cacheScope"] == "public");
    Json big{{"ttlMs", 1e300}};
    m::finish_result("prompts/list", big, false);
    CHECK(big["ttlMs"] == 0);

    const Json discover =
        m::discover_result(Json{{"protocolVersion", "2025-11-25"},
                                {"capabilities", {{"tools", {{"listChanged", true}}}}},
                                {"serverInfo", {{"name", "scout-gateway"}, {"version", "0.1.0"}}},
                                {"instructions", "search first"}},
                           false);
    CHECK(discover["supportedVersions"] == Json::array({"2026-07-28"}));
    CHECK(discover["capabilities"]["tools"]["listChanged"] == true);
    CHECK(discover["instructions"] == "search first");
    CHECK(discover["_meta"][m::kServerInfoKey]["name"] == "scout-gateway");
    CHECK(discover["resultType"] == "complete");
    CHECK(discover["ttlMs"].is_number_integer());
    CHECK(discover["cacheScope"] == "public");
    CHECK_FALSE(discover.contains("protocolVersion"));
}

TEST_CASE("modern: subscriptions/listen shapes", "[gateway][modern]") {
    Json honoured;
    auto listen = [&](Json filter) {
        Json params = envelope();
        params["notifications"] = std::move(filter);
        return m::check_listen(request("subscriptions/listen", params), honoured);
    };
    CHECK_FALSE(listen(Json{{"toolsListChanged", true}, {"promptsListChanged", true}}));
    CHECK(honoured == Json{{"toolsListChanged", true}});
    CHECK_FALSE(listen(Json{{"resourceSubscriptions", Json::array({"file:///a"})}}));
    CHECK(honoured == Json::object());
    CHECK(listen(Json{{"toolsListChanged", "yes"}}));
    CHECK(listen(Json{{"resourceSubscriptions", "file:///a"}}));
    CHECK(listen(Json::array()));
    CHECK(m::check_listen(request("subscriptions/listen", envelope()), honoured));

    const Json ack = m::acknowledged("listen:1", Json{{"toolsListChanged", true}});
    CHECK(ack["method"] == "notifications/subscriptions/acknowledged");
    CHECK(ack["params"]["_meta"][m::kSubscriptionIdKey] == "listen:1");
    CHECK(ack["params"]["notifications"]["toolsListChanged"] == true);
    const Json changed = m::tools_list_changed(5);
    CHECK(changed["method"] == "notifications/tools/list_changed");
    CHECK(changed["params"]["_meta"][m::kSubscriptionIdKey] == 5);
    const Json closed = m::listen_closed("listen:1");
    CHECK(closed["id"] == "listen:1");
    CHECK(closed["result"]["resultType"] == "complete");
    CHECK(closed["result"]["_meta"][m::kSubscriptionIdKey] == "listen:1");
}

TEST_CASE("modern: Mcp-Name values, plain or base64", "[gateway][modern]") {
    CHECK(m::decode_header_value("tool_search") == "tool_search");
    CHECK(m::decode_header_value("=?base64?dG9vbF9zZWFyY2g=?=") == "tool_search");
    CHECK(m::decode_header_value("=?base64?dMO2w7Zs?=") == "t\xc3\xb6\xc3\xb6l");  // "tööl"
    CHECK(m::decode_header_value("=?base64?"
                                 "?=") == "");  // split: no trigraph
    CHECK_FALSE(m::decode_header_value("=?base64?not base64!?="));
    CHECK_FALSE(m::decode_header_value("=?base64?dG9vbA?="));    // unpadded
    CHECK_FALSE(m::decode_header_value("=?base64?dG9vbB==?="));  // non-canonical bits
    CHECK_FALSE(m::decode_header_value("=?base64?/w==?="));      // byte 0xFF: not UTF-8
    CHECK_FALSE(m::decode_header_value("=?base64?7aCA?="));      // a UTF-16 surrogate
    CHECK_FALSE(m::decode_header_value("t\xc3\xb6\xc3\xb6l"));   // raw non-ASCII
    CHECK_FALSE(m::decode_header_value(std::string_view("a\0b", 3)));
    CHECK(m::decode_header_value("=?base64") == "=?base64");  // no sentinel: plain ASCII
}

TEST_CASE("modern: Streamable HTTP headers mirror the body", "[gateway][modern]") {
    Json params = envelope();
    params["name"] = "tool_search";
    const Json call = request("tools/call", params);
    m::ModernHeaders h{"2026-07-28", "tools/call", "tool_search"};
    CHECK_FALSE(m::check_headers(call, h));
    h.name = "=?base64?dG9vbF9zZWFyY2g=?=";
    CHECK_FALSE(m::check_headers(call, h));

    auto code = [&](const m::ModernHeaders& headers) {
        auto e = m::check_headers(call, headers);
        return e ? e->code : 0;
    };
    CHECK(code({std::nullopt, "tools/call", "tool_search"}) == m::kHeaderMismatch);
    CHECK(code({"2025-11-25", "tools/call", "tool_search"}) == m::kHeaderMismatch);
    CHECK(code({"2026-07-28", std::nullopt, "tool_search"}) == m::kHeaderMismatch);
    CHECK(code({"2026-07-28", "tools/list", "tool_search"}) == m::kHeaderMismatch);
    CHECK(code({"2026-07-28", "tools/call", std::nullopt}) == m::kHeaderMismatch);
    CHECK(code({"2026-07-28", "tools/call", "execute_tool"}) == m::kHeaderMismatch);
    CHECK(code({"2026-07-28", "tools/call", "=?base64?%%%%?="}) == m::kHeaderMismatch);
    CHECK(m::check_headers(call, {std::nullopt, "tools/call", "tool_search"})->http_status == 400);

    Json read_params = envelope();
    read_params["uri"] = "scout-gateway://fs/file:///a";
    const Json read = request("resources/read", read_params);
    CHECK_FALSE(
        m::check_headers(read, {"2026-07-28", "resources/read", "scout-gateway://fs/file:///a"}));
    CHECK(m::check_headers(read, {"2026-07-28", "resources/read", "other"}));
    // tools/list needs no Mcp-Name; a notification needs no Mcp-Method.
    CHECK_FALSE(
        m::check_headers(request("tools/list", envelope()), {"2026-07-28", "tools/list", {}}));
    const Json note{
        {"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", envelope()}};
    CHECK_FALSE(m::check_headers(note, {"2026-07-28", std::nullopt, std::nullopt}));
    CHECK_FALSE(m::check_headers(note, {std::nullopt, std::nullopt, std::nullopt}));
    CHECK(m::check_headers(note, {"2025-11-25", std::nullopt, std::nullopt}));
    const Json bare_note{{"jsonrpc", "2.0"},
                         {"method", "notifications/cancelled"},
                         {"params", {{"requestId", "listen:0"}}}};
    CHECK_FALSE(m::check_headers(bare_note, {"2026-07-28", std::nullopt, std::nullopt}));
}

TEST_CASE("modern: Mcp-Name values the gateway sends read back exactly", "[gateway][modern]") {
    CHECK(m::encode_header_value("tool_search") == "tool_search");
    CHECK(m::encode_header_value("file:///a b") == "file:///a b");
    CHECK(m::encode_header_value("t\xc3\xb6\xc3\xb6l") == "=?base64?dMO2w7Zs?=");
    CHECK(m::encode_header_value("tool") == "tool");
    CHECK(m::encode_header_value("") == "");
    // What a plain value cannot carry, or what would read as encoded, goes as base64.
    for (const std::string& value : {std::string(" padded "),
                                     std::string("tab\there"),
                                     std::string("=?base64?dG9vbA==?="),
                                     std::string("a\nb"),
                                     std::string("x"),
                                     std::string("xy"),
                                     std::string("\xe2\x82\xac 12"),
                                     std::string("t\xc3\xb6\xc3\xb6l")}) {
        CAPTURE(value);
        CHECK(m::decode_header_value(m::encode_header_value(value)) == value);
    }
    CHECK(m::encode_header_value("x\ty").starts_with("=?base64?"));
    CHECK(m::encode_header_value(" a").starts_with("=?base64?"));
}

TEST_CASE("modern: the headers of a request to a modern upstream", "[gateway][modern]") {
    Json params = envelope();
    params["name"] = "m\xc3\xa9t\xc3\xa9o";  // "météo"
    const Json call = request("tools/call", params);
    const m::ModernHeaders h = m::request_headers(call);
    CHECK(h.protocol_version == "2026-07-28");
    CHECK(h.method == "tools/call");
    CHECK(h.name == "=?base64?bcOpdMOpbw==?=");
    CHECK_FALSE(m::check_headers(call, h));  // what the listener would accept

    Json read_params = envelope();
    read_params["uri"] = "file:///notes.txt";
    const Json read = request("resources/read", read_params);
    CHECK(m::request_headers(read).name == "file:///notes.txt");
    CHECK_FALSE(m::check_headers(read, m::request_headers(read)));

    const m::ModernHeaders list = m::request_headers(request("tools/list", envelope()));
    CHECK(list.method == "tools/list");
    CHECK_FALSE(list.name);
    // A legacy request and a notification need none.
    const m::ModernHeaders legacy = m::request_headers(request("tools/list", Json::object()));
    CHECK_FALSE(legacy.protocol_version);
    CHECK_FALSE(legacy.method);
    const Json note{
        {"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", envelope()}};
    CHECK_FALSE(m::request_headers(note).method);
    CHECK_FALSE(m::request_headers(Json("not an object")).method);
}

TEST_CASE("modern: the upstream probe's verdicts", "[gateway][modern]") {
    const Json envelope_sent = m::client_envelope();
    CHECK(envelope_sent[m::kProtocolVersionKey] == "2026-07-28");
    CHECK(envelope_sent[m::kClientCapabilitiesKey].is_object());

    const Json discover{{"supportedVersions", {"2026-07-28"}},
                        {"capabilities", {{"tools", Json::object()}}},
                        {"resultType", "complete"},
                        {"_meta", {{m::kServerInfoKey, {{"name", "up"}, {"version", "1"}}}}}};
    CHECK(m::is_discover_result(discover));
    CHECK_FALSE(m::is_discover_result(
        Json{{"supportedVersions", {"2030-01-01"}}, {"capabilities", Json::object()}}));
    CHECK_FALSE(m::is_discover_result(Json{{"supportedVersions", "2026-07-28"}}));
    CHECK_FALSE(m::is_discover_result(Json::object()));
    const Json view = m::initialize_view(discover);
    CHECK(view["protocolVersion"] == "2026-07-28");
    CHECK(view["serverInfo"]["name"] == "up");
    CHECK(view["capabilities"].contains("tools"));

    // Legacy v1 servers answer -32601; it, and any other ordinary error, is not modern.
    CHECK_FALSE(m::is_modern_error(Json{{"code", -32601}, {"message", "Method not found"}}));
    CHECK_FALSE(m::is_modern_error(Json{{"code", -32600}}));
    CHECK_FALSE(m::is_modern_error(Json{{"code", -32602}}));
    CHECK_FALSE(m::is_modern_error(Json{{"code", "x"}}));
    CHECK_FALSE(m::is_modern_error(Json()));
    CHECK_FALSE(m::is_modern_error(
        Json{{"code", -32022}, {"data", {{"supported", {"2025-11-25", "2024-11-05"}}}}}));
    CHECK(m::is_modern_error(Json{{"code", -32022}, {"data", {{"supported", {"2027-01-01"}}}}}));
    CHECK(m::is_modern_error(Json{{"code", -32021}}));
}
