// gateway_parts_test.cpp: the gateway's JSON-RPC classification and its config parser.
#include <catch2/catch.hpp>

#include "config.hpp"
#include "json_rpc.hpp"

using namespace scout::gateway;

TEST_CASE("JSON-RPC lines are classified", "[gateway]") {
    CHECK(classify("{oops").kind == MessageKind::parse_error);
    CHECK(classify("").kind == MessageKind::parse_error);
    CHECK(classify("\"\xff\"").kind == MessageKind::parse_error);
    CHECK(classify("[]").kind == MessageKind::invalid);
    CHECK(classify("42").kind == MessageKind::invalid);
    Message no_version = classify(R"({"id":3,"method":"ping"})");
    CHECK(no_version.kind == MessageKind::invalid);
    CHECK(no_version.id == 3);
    CHECK(classify(R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})").kind == MessageKind::invalid);
    CHECK(classify(R"({"jsonrpc":"2.0","id":1,"method":7})").kind == MessageKind::invalid);
    CHECK(classify(R"({"jsonrpc":"2.0","id":1,"method":"x","params":"s"})").kind == MessageKind::invalid);
    Message req = classify(R"({"jsonrpc":"2.0","id":"a","method":"tools/list"})");
    CHECK(req.kind == MessageKind::request);
    CHECK(req.method == "tools/list");
    CHECK(req.id == "a");
    CHECK(classify(R"({"jsonrpc":"2.0","method":"notifications/initialized"})").kind ==
          MessageKind::notification);
    CHECK(classify(R"({"jsonrpc":"2.0","id":4,"result":{}})").kind == MessageKind::response);
    CHECK(classify(R"({"jsonrpc":"2.0","id":4,"error":{"code":1,"message":"m"}})").kind ==
          MessageKind::response);
    CHECK(make_error(nullptr, kParseError, "x") ==
          Json::parse(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}})"));
    CHECK(to_line(make_result(1, Json::object())).find('\n') == std::string::npos);
}

TEST_CASE("the Claude Desktop config format is parsed and checked", "[gateway]") {
    auto ok = parse_config(R"({"mcpServers": {
        "a": {"command": "node", "args": ["x.js", "--flag"], "env": {"K": "v"}, "environment": "prod"},
        "b": {"command": "uvx"},
        "c": {"command": "off", "disabled": true}}})");
    REQUIRE(ok.ok());
    REQUIRE(ok->size() == 2);
    CHECK(ok->at(0).name == "a");
    CHECK(ok->at(0).args == std::vector<std::string>{"x.js", "--flag"});
    CHECK(ok->at(0).env.at("K") == "v");
    CHECK(ok->at(0).environment == "prod");
    CHECK(ok->at(1).args.empty());
    for (const char* bad : {"", "[]", R"({"servers":{}})", R"({"mcpServers":[]})",
                            R"({"mcpServers":{"a":{}}})", R"({"mcpServers":{"a":{"command":""}}})",
                            R"({"mcpServers":{"a":{"url":"http://x"}}})",
                            R"({"mcpServers":{"a":{"command":"x","args":"y"}}})",
                            R"({"mcpServers":{"a":{"command":"x","args":[1]}}})",
                            R"({"mcpServers":{"a":{"command":"x","env":{"K":1}}}})",
                            R"({"mcpServers":{"a":{"command":"x","env":{"A=B":"1"}}}})",
                            R"({"mcpServers":{"":{"command":"x"}}})"}) {
        INFO(bad);
        auto r = parse_config(bad);
        CHECK_FALSE(r.ok());
        CHECK(r.status().code() == scout::Errc::invalid_argument);
    }
    CHECK(parse_config(R"({"mcpServers":{"a":{"command":"x","args":[1]}}})").status().message().find(
              "mcpServers.a") != std::string::npos);
    CHECK_FALSE(load_config("/nonexistent/servers.json").ok());
}
