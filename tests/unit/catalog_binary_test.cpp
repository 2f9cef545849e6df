// catalog_binary_test.cpp: the CATB section (src/persist/catalog_binary) gives back every text
// it was given, in place, and refuses every inconsistent layout and every text upsert refuses.
#include "persist/catalog_binary.hpp"

#include <cstring>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"

using scout::Errc;
using scout::ServerSpec;
using scout::ServerStatus;
using scout::ToolSpec;
using scout::detail::decode_catalog_binary;
using scout::detail::encode_catalog_binary;
using scout::detail::ServerImage;

namespace {

std::vector<ServerSpec> sample() {
    return {
        {"alpha",
         "first \"server\" \xC3\xA9",
         "storage",
         "prod",
         ServerStatus::active,
         {{"a_tool", "A", "reads", R"({"type":"object","properties":{"p":{"type":"string"}}})", ""},
          {"b_tool", "", "", "", R"({"readOnlyHint":true})"}}},
        {"beta", "", "", "", ServerStatus::degraded, {}},
        {"gamma", "third", "", "dev", ServerStatus::rejected, {{"only", "", "x", "{}", "{}"}}},
    };
}

std::string encode(const std::vector<ServerSpec>& servers) {
    std::vector<ServerImage> images;
    for (const ServerSpec& s : servers) {
        ServerImage image{&s, {}};
        for (const ToolSpec& t : s.tools) {
            image.tools.push_back(&t);
        }
        images.push_back(std::move(image));
    }
    return encode_catalog_binary(images);
}

scout::Result<scout::detail::CatalogView> decode(const std::string& bytes) {
    return decode_catalog_binary(
        std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
}

void refused(const std::vector<ServerSpec>& servers, const char* why) {
    INFO(why);
    auto r = decode(encode(servers));
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == Errc::corrupt);
    CHECK_FALSE(r.status().message().empty());
}

}  // namespace

TEST_CASE("CATB gives back every server and tool text in place", "[persistence][catalog]") {
    const std::vector<ServerSpec> servers = sample();
    const std::string bytes = encode(servers);
    auto view = decode(bytes);
    REQUIRE(view.ok());
    REQUIRE(view->servers.size() == 3);
    REQUIRE(view->tools.size() == 3);
    CHECK(view->indexed_tools() == 2);
    for (std::size_t s = 0; s < servers.size(); ++s) {
        const auto& v = view->servers[s];
        CHECK(v.name == servers[s].name);
        CHECK(v.description == servers[s].description);
        CHECK(v.category == servers[s].category);
        CHECK(v.environment == servers[s].environment);
        CHECK(v.status == servers[s].status);
        REQUIRE(v.end_tool - v.first_tool == servers[s].tools.size());
        const ServerSpec copy = scout::detail::server_spec(*view, v);
        for (std::size_t t = 0; t < servers[s].tools.size(); ++t) {
            const auto& tool = view->tools[v.first_tool + t];
            const ToolSpec& want = servers[s].tools[t];
            CHECK(tool.name == want.name);
            CHECK(tool.title == want.title);
            CHECK(tool.description == want.description);
            CHECK(tool.input_schema == want.input_schema);
            CHECK(tool.annotations == want.annotations);
            CHECK(copy.tools[t].input_schema == want.input_schema);
            // In place: the views point into the section's bytes.
            if (!tool.name.empty()) {
                CHECK(tool.name.data() >= bytes.data());
                CHECK(tool.name.data() < bytes.data() + bytes.size());
            }
        }
    }
    auto empty = decode(encode({}));
    REQUIRE(empty.ok());
    CHECK(empty->servers.empty());
}

TEST_CASE("CATB refuses every text that upsert refuses", "[persistence][catalog][corruption]") {
    auto s = sample();
    s[1].name = "alpha";
    refused(s, "a server name twice");
    s = sample();
    std::swap(s[0], s[2]);
    refused(s, "servers out of order");
    s = sample();
    std::swap(s[0].tools[0], s[0].tools[1]);
    refused(s, "tools out of order");
    s = sample();
    s[0].tools[1].name = s[0].tools[0].name;
    refused(s, "a tool name twice");
    s = sample();
    s[0].name = "";
    refused(s, "an empty server name");
    s = sample();
    s[0].tools[0].name = "bad\nname";
    refused(s, "a control character in a name");
    s = sample();
    s[2].description = "cut \xC3";
    refused(s, "invalid UTF-8");
    s = sample();
    s[0].tools[0].input_schema = "[1,2]";
    refused(s, "a schema that is not an object");
    s = sample();
    s[0].tools[0].input_schema = R"({"a":)";
    refused(s, "a schema that is not JSON");
    s = sample();
    s[0].tools[0].input_schema = "{\"a\":" + std::string(300, '[') + std::string(300, ']') + "}";
    refused(s, "a schema nested too deep");
    s = sample();
    s[0].tools[1].annotations = "{\"a\":1e400}";
    refused(s, "annotations the parser refuses (number overflow)");
    s = sample();
    s[0].tools[0].description = std::string(scout::kMaxDescriptionBytes + 1, 'x');
    refused(s, "a description over its limit");
}

TEST_CASE("CATB refuses an inconsistent layout", "[persistence][catalog][corruption]") {
    const std::string good = encode(sample());
    REQUIRE(decode(good).ok());
    for (std::size_t len = 0; len < good.size(); ++len) {
        INFO("truncated to " << len);
        auto r = decode(good.substr(0, len));
        REQUIRE_FALSE(r.ok());
        CHECK(r.status().code() == Errc::corrupt);
    }
    const auto patched = [&](std::size_t at, const void* value, std::size_t size) {
        std::string b = good;
        std::memcpy(b.data() + at, value, size);
        return b;
    };
    const std::uint64_t huge = std::uint64_t{1} << 60;
    CHECK_FALSE(decode(patched(0, &huge, 8)).ok());   // servers
    CHECK_FALSE(decode(patched(8, &huge, 8)).ok());   // tools
    CHECK_FALSE(decode(patched(16, &huge, 8)).ok());  // blob bytes
    const std::uint8_t status = 4;
    CHECK_FALSE(decode(patched(24, &status, 1)).ok());
    const std::uint8_t reserved = 1;
    CHECK_FALSE(decode(patched(25, &reserved, 1)).ok());
    const std::uint64_t too_many_tools = 3;
    CHECK_FALSE(decode(patched(24 + 8, &too_many_tools, 8)).ok());
    // The first text's end beyond the second's: offsets must not decrease.
    const std::size_t ends_at = 24 + 3 * 16;
    const std::uint64_t past = 1000;
    CHECK_FALSE(decode(patched(ends_at, &past, 8)).ok());
    std::string longer = good;
    longer.push_back('x');
    CHECK_FALSE(decode(longer).ok());
}
