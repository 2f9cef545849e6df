// mcp_json_limits_test.cpp: the depth-bounded JSON parsing scout::mcp offers hosts
// (scout/mcp/json_limits.hpp), through its public names.
#include <catch2/catch.hpp>

#include "scout/mcp/json_limits.hpp"

using scout::mcp::has_pruned;
using scout::mcp::kMaxJsonDepth;
using scout::mcp::parse_json;
using scout::mcp::parse_json_pruned;
using scout::mcp::too_deep_message;

namespace {

std::string nested_arrays(std::size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
}

}  // namespace

TEST_CASE("mcp::parse_json gives nlohmann's values within the limit", "[mcp][json_limits]") {
    const char* text = R"({"jsonrpc":"2.0","id":7,"params":{"a":[1,2.5,null,"s\u00e9"]}})";
    auto parsed = parse_json(text);
    REQUIRE(parsed.ok());
    CHECK(*parsed == nlohmann::json::parse(text));
    CHECK(parse_json(nested_arrays(kMaxJsonDepth)).ok());
}

TEST_CASE("mcp::parse_json refuses nesting past the limit and malformed text",
          "[mcp][json_limits]") {
    auto deep = parse_json(nested_arrays(kMaxJsonDepth + 1));
    REQUIRE_FALSE(deep.ok());
    CHECK(deep.status().code() == scout::Errc::invalid_argument);
    CHECK(deep.status().message() == too_deep_message());
    CHECK(too_deep_message(3) == "JSON nested deeper than 3 levels");
    CHECK_FALSE(parse_json(nested_arrays(1000000)).ok());  // refused, not a stack overflow
    CHECK_FALSE(parse_json(R"({"a":{"b":[1]}})", 2).ok());
    auto malformed = parse_json("{\"a\":");
    REQUIRE_FALSE(malformed.ok());
    CHECK(malformed.status().message().rfind("malformed JSON", 0) == 0);
}

TEST_CASE("mcp::parse_json_pruned keeps the shallow parts and marks the deep ones",
          "[mcp][json_limits]") {
    const std::string text = R"({"id":1,"result":{"tools":[{"name":"ok"},{"name":"deep","s":)" +
                             nested_arrays(5000) + "}]}}";
    auto pruned = parse_json_pruned(text, 6);
    REQUIRE(pruned.ok());
    CHECK(pruned->pruned == 1);
    CHECK(pruned->value["id"] == 1);
    CHECK(pruned->value["result"]["tools"][0]["name"] == "ok");
    CHECK_FALSE(has_pruned(pruned->value["result"]["tools"][0]));
    CHECK(has_pruned(pruned->value["result"]["tools"][1]));
    CHECK(has_pruned(pruned->value));
    auto clean = parse_json_pruned(R"({"a":[[1]]})");
    REQUIRE(clean.ok());
    CHECK(clean->pruned == 0);
    CHECK_FALSE(has_pruned(clean->value));
}
