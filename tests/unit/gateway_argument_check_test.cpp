// gateway_argument_check_test.cpp: execute_tool's arguments checked against the tool's
// inputSchema: each keyword of the subset refuses what breaks it and names the field, what the
// checker does not understand never refuses a call, and hostile depth or size stay bounded.
#include <string>

#include <catch2/catch.hpp>

#include "argument_check.hpp"

using scout::gateway::ArgumentCheckLimits;
using scout::gateway::check_arguments;
using scout::gateway::Json;

namespace {

/// The error for `args` under `schema` ("" when accepted).
std::string problem(const char* schema, const char* args, ArgumentCheckLimits limits = {}) {
    return check_arguments(Json::parse(schema), Json::parse(args), limits).value_or("");
}

}  // namespace

TEST_CASE("arguments are checked against the keywords tool schemas use", "[gateway][schema]") {
    const char* record = R"({"type": "object",
        "properties": {"account": {"type": "string", "minLength": 2, "maxLength": 8},
                       "amount": {"type": "integer", "minimum": 0, "exclusiveMaximum": 100},
                       "ratio": {"type": "number", "multipleOf": 0.5},
                       "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
                       "mode": {"enum": ["fast", "safe"]},
                       "kind": {"const": "record"},
                       "owner": {"type": "object", "properties": {"id": {"type": ["string", "null"]}},
                                 "required": ["id"]}},
        "required": ["account"],
        "additionalProperties": false})";
    CHECK(problem(record, R"({"account": "ab"})").empty());
    CHECK(problem(record,
                  R"({"account": "abc", "amount": 3, "ratio": 1.5, "tags": ["x"], "mode": "safe",
                      "kind": "record", "owner": {"id": null}})")
              .empty());
    CHECK(problem(record, R"({"account": "ab", "amount": 3.0})").empty());  // integral float

    CHECK(problem(record, R"({})") == "arguments: missing required property \"account\"");
    CHECK(problem(record, R"({"account": 7})") ==
          "arguments.account: expected string, got an integer");
    CHECK(problem(record, R"({"account": "a"})") == "arguments.account: shorter than 2 characters");
    CHECK(problem(record, R"({"account": "ééééééééé"})") ==
          "arguments.account: longer than 8 characters");
    CHECK(problem(record, R"({"account": "éé"})").empty());  // characters, not bytes
    CHECK(problem(record, R"({"account": "ab", "amount": 1.5})") ==
          "arguments.amount: expected integer, got a number");
    CHECK(problem(record, R"({"account": "ab", "amount": -1})") ==
          "arguments.amount: must be at least 0");
    CHECK(problem(record, R"({"account": "ab", "amount": 100})") ==
          "arguments.amount: must be less than 100");
    CHECK(problem(record, R"({"account": "ab", "ratio": 0.7})") ==
          "arguments.ratio: must be a multiple of 0.5");
    CHECK(problem(record, R"({"account": "ab", "tags": ["x", 2]})") ==
          "arguments.tags[1]: expected string, got an integer");
    CHECK(problem(record, R"({"account": "ab", "tags": ["x", "y", "z"]})") ==
          "arguments.tags: more than 2 items");
    CHECK(problem(record, R"({"account": "ab", "mode": "slow"})") ==
          R"(arguments.mode: must be one of ["fast","safe"])");
    CHECK(problem(record, R"({"account": "ab", "kind": "other"})") ==
          R"(arguments.kind: must be "record")");
    CHECK(problem(record, R"({"account": "ab", "owner": {}})") ==
          "arguments.owner: missing required property \"id\"");
    CHECK(problem(record, R"({"account": "ab", "owner": {"id": 3}})") ==
          "arguments.owner.id: expected string or null, got an integer");
    CHECK(problem(record, R"({"account": "ab", "extra": 1})") ==
          "arguments: unknown property \"extra\"");
    CHECK(problem(record, R"({"account": "ab", "two words": 1})") ==
          "arguments: unknown property \"two words\"");
    CHECK(problem(record, R"([1])") == "arguments: expected object, got an array");
}

TEST_CASE("combinators, extras and boolean schemas", "[gateway][schema]") {
    const char* one_of = R"({"type": "object", "properties": {"v": {"oneOf": [
        {"type": "integer"}, {"type": "number", "minimum": 10}]}}})";
    CHECK(problem(one_of, R"({"v": 3})").empty());
    CHECK(problem(one_of, R"({"v": 10.5})").empty());
    CHECK(problem(one_of, R"({"v": 12})").find("not exactly one") != std::string::npos);
    CHECK(problem(one_of, R"({"v": "x"})").find("matches none of the oneOf") != std::string::npos);
    const char* any_of = R"({"anyOf": [{"required": ["a"]}, {"required": ["b"]}]})";
    CHECK(problem(any_of, R"({"b": 1})").empty());
    CHECK(problem(any_of, R"({"c": 1})").find("anyOf") != std::string::npos);
    CHECK(problem(R"({"allOf": [{"required": ["a"]}, {"required": ["b"]}]})", R"({"a": 1})") ==
          "arguments: missing required property \"b\"");
    CHECK(problem(R"({"not": {"required": ["a"]}})", R"({"a": 1})") ==
          "arguments: matches a schema it must not match");
    CHECK(problem(R"({"additionalProperties": {"type": "integer"}})", R"({"x": 1, "y": "z"})") ==
          "arguments.y: expected integer, got a string");
    CHECK(problem(R"({"properties": {"x": false}})", R"({"x": 1})") == "arguments.x: not allowed");
    CHECK(problem(R"({"type": "array", "prefixItems": [{"type": "string"}], "items": false})",
                  R"(["a", 2])") == "arguments[1]: not allowed");
}

TEST_CASE("what the checker does not understand never refuses a call", "[gateway][schema]") {
    CHECK(problem(R"({"type": "object", "properties": {"x": {"$ref": "#/defs/x"}}})",
                  R"({"x": {"anything": true}})")
              .empty());
    CHECK(problem(R"({"properties": {"x": {"type": "string", "pattern": "^[0-9]+$",
                                            "format": "date"}}})",
                  R"({"x": "abc"})")
              .empty());
    CHECK(problem(R"({"type": "strange"})", R"({"x": 1})").empty());
    CHECK(problem(R"({"patternProperties": {"^x": {}}, "additionalProperties": false})",
                  R"({"x1": 1, "y": 2})")
              .empty());
    CHECK(problem(R"({"type": "object", "minLength": "three", "minimum": []})", R"({})").empty());
    CHECK(!check_arguments(Json(), Json::object()).has_value());      // no schema
    CHECK(!check_arguments(Json(true), Json::object()).has_value());  // a boolean schema at the top
    CHECK(!check_arguments(Json("text"), Json::object()).has_value());
}

TEST_CASE("counts beyond what a size holds bound nothing and never overflow", "[gateway][schema]") {
    // 2^64 and larger parse as floating point; converting them to a size is undefined
    // unless saturated first.
    CHECK(problem(R"({"properties": {"a": {"type": "string", "minLength": 18446744073709551616}}})",
                  R"({"a": "x"})")
              .find("shorter than 18446744073709551615 characters") != std::string::npos);
    CHECK(
        problem(R"({"properties": {"a": {"type": "string", "maxLength": 1e300}}})", R"({"a": "x"})")
            .empty());
    CHECK(problem(R"({"properties": {"a": {"type": "array", "maxItems": 18446744073709551615}}})",
                  R"({"a": [1, 2]})")
              .empty());
    CHECK(problem(R"({"properties": {"a": {"type": "array", "minItems": 1e19}}})", R"({"a": [1]})")
              .find("fewer than 10000000000000000000") != std::string::npos);
    CHECK(problem(R"({"properties": {"a": {"type": "object", "maxProperties": -1e300}}})",
                  R"({"a": {"k": 1}})")
              .empty());
}

TEST_CASE("hostile depth and size are bounded", "[gateway][schema]") {
    // A schema nesting arrays as deep as the arguments: the depth limit stops the walk.
    std::string schema = R"({"type": "array", "items": )";
    std::string deep_schema;
    for (int i = 0; i < 60; ++i) {
        deep_schema += R"({"type": "array", "items": )";
    }
    deep_schema += "{}";
    deep_schema += std::string(60, '}');
    std::string deep_args = std::string(60, '[') + std::string(60, ']');
    ArgumentCheckLimits limits;
    limits.max_depth = 32;
    CHECK(problem(deep_schema.c_str(), deep_args.c_str(), limits).find("nested deeper than 32") !=
          std::string::npos);
    // Many alternatives over many items: the step budget ends the check with a clear error.
    Json alternatives = Json::array();
    for (int i = 0; i < 64; ++i) {
        alternatives.push_back({{"type", "string"}, {"minLength", i}});
    }
    Json wide = {{"type", "array"}, {"items", {{"anyOf", alternatives}}}};
    Json many = Json::array();
    for (int i = 0; i < 5000; ++i) {
        many.push_back(std::string(70, 'x'));
    }
    ArgumentCheckLimits budget;
    budget.max_steps = 10'000;
    const auto e = check_arguments(wide, many, budget);
    REQUIRE(e.has_value());
    CHECK(e->find("too large to check") != std::string::npos);
    // A long odd key is clipped in the message rather than echoed whole.
    const std::string key(100000, 'k');
    const auto unknown =
        check_arguments(Json::parse(R"({"additionalProperties": false})"), Json{{key, 1}});
    REQUIRE(unknown.has_value());
    CHECK(unknown->size() < 200);
}
