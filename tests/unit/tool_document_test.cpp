// tool_document_test.cpp: the paper's document template from MCP tools, including odd schemas.
#include "document/tool_document.hpp"

#include <catch2/catch.hpp>

using scout::ServerSpec;
using scout::ToolSpec;

namespace {
ServerSpec github() {
    ServerSpec s;
    s.name = "github-enterprise";
    s.description = "Source hosting: repositories, pull requests, reviews.";
    s.category = "engineering";
    s.environment = "prod";
    return s;
}
}  // namespace

TEST_CASE("document renders every field of the template", "[document]") {
    ToolSpec tool{"create_pull_request",
                  "Open PR",
                  "Opens a pull request.",
                  R"({"type":"object","properties":{
                      "repo":{"type":"string","description":"owner/name"},
                      "draft":{"type":"boolean"},
                      "state":{"type":"string","enum":["open","closed"]}},
                     "required":["repo"]})",
                  ""};
    auto doc = scout::detail::make_tool_document(github(), tool);
    REQUIRE(doc.ok());
    CHECK(doc->chunk_id == "github-enterprise_create_pull_request");
    CHECK(doc->name == "create pull request (Open PR)");
    CHECK(doc->server == "github enterprise [engineering] environment: prod");
    CHECK(doc->parameters ==
          "- draft (boolean, optional)\n"
          "- repo (string, required): owner/name\n"
          "- state (string, optional, one of: open, closed)\n");
    const std::string text = doc->text();
    CHECK(text.find("Tool: create pull request") == 0);
    CHECK(text.find("Server: Source hosting") != std::string::npos);
    CHECK(text.find("Description: Opens a pull request.") != std::string::npos);
    CHECK(text.find("Parameters:\n- draft") != std::string::npos);
}

TEST_CASE("nested, union-typed and array parameters are rendered", "[document]") {
    ToolSpec tool{"t",
                  "",
                  "",
                  R"({"type":"object","properties":{
        "filter":{"type":"object","properties":{"since":{"type":["string","null"]}}},
        "ids":{"type":"array","items":{"type":"integer"}},
        "value":{"anyOf":[{"type":"number"},{"type":"string"}]},
        "flag":true}})",
                  ""};
    auto doc = scout::detail::make_tool_document(github(), tool);
    REQUIRE(doc.ok());
    CHECK(doc->parameters.find("- filter (object, optional)") != std::string::npos);
    CHECK(doc->parameters.find("- filter.since (string, optional)") != std::string::npos);
    CHECK(doc->parameters.find("- ids (array of integer, optional)") != std::string::npos);
    CHECK(doc->parameters.find("- value (number or string, optional)") != std::string::npos);
    CHECK(doc->parameters.find("- flag (optional)") != std::string::npos);
}

TEST_CASE("schemas that are not objects are rejected with the tool's name", "[document]") {
    for (const char* schema : {"[1,2]", "\"text\"", "{not json", "42"}) {
        ToolSpec tool{"weird", "", "", schema, ""};
        auto doc = scout::detail::make_tool_document(github(), tool);
        REQUIRE_FALSE(doc.ok());
        CHECK(doc.status().code() == scout::Errc::invalid_argument);
        CHECK(doc.status().message().find("weird") != std::string::npos);
    }
}

TEST_CASE("schemas without properties, or with odd required lists, still render", "[document]") {
    for (const char* schema : {R"({})",
                               R"({"type":"object"})",
                               R"({"properties":[]})",
                               R"({"properties":{"a":{"type":"string"}},"required":"a"})",
                               R"({"properties":{"a":{"enum":[1,null,{"x":2}]}}})"}) {
        ToolSpec tool{"ok", "", "", schema, ""};
        CHECK(scout::detail::make_tool_document(github(), tool).ok());
    }
}

TEST_CASE("very wide and deep schemas are cut, not rejected", "[document]") {
    std::string props;
    for (int i = 0; i < 500; ++i) {
        if (i > 0) {
            props += ',';
        }
        props.append("\"p").append(std::to_string(i)).append("\":{\"type\":\"string\"}");
    }
    std::string deep = R"({"type":"object"})";
    for (int i = 0; i < 50; ++i) {
        deep = R"({"type":"object","properties":{"n":)" + deep + "}}";
    }
    for (const std::string& schema : {R"({"type":"object","properties":{)" + props + "}}", deep}) {
        ToolSpec tool{"big", "", "", schema, ""};
        auto doc = scout::detail::make_tool_document(github(), tool);
        REQUIRE(doc.ok());
        CHECK(doc->parameters.size() < 10000);
    }
}
