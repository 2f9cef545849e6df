// enhanced_name_test.cpp: LLM-safe server-qualified names, collisions, truncation, resolution.
#include "document/enhanced_name.hpp"

#include <regex>
#include <set>

#include <catch2/catch.hpp>

using scout::ToolKey;
using scout::detail::EnhancedNames;

namespace {
bool valid(const std::string& name) {
    static const std::regex re("^[A-Za-z0-9_-]{1,64}$");
    return std::regex_match(name, re);
}
}  // namespace

TEST_CASE("plain names are server_tool and resolve back", "[names]") {
    const std::vector<ToolKey> keys{{"github", "create_pull_request"}, {"teams", "send_message"}};
    const EnhancedNames names(keys);
    CHECK(names.name(0) == "github_create_pull_request");
    CHECK(names.name(1) == "teams_send_message");
    CHECK(names.resolve("teams_send_message") == std::optional<std::size_t>(1));
    CHECK_FALSE(names.resolve("teams_missing").has_value());
    CHECK_FALSE(names.resolve("").has_value());
}

TEST_CASE("characters outside the allowed set are sanitized", "[names]") {
    const EnhancedNames names(std::vector<ToolKey>{{"My Server.v2", "get/item"}});
    CHECK(names.name(0) == "My_Server_v2_get_item");
    CHECK(valid(names.name(0)));
    CHECK(scout::detail::sanitize_name_part("a b.c/d") == "a_b_c_d");
}

TEST_CASE("colliding names get distinct hashed names, the longest server keeps the plain one",
          "[names]") {
    // Both would be "a_b_c".
    const std::vector<ToolKey> keys{{"a", "b_c"}, {"a_b", "c"}, {"a.b", "c"}};
    const EnhancedNames names(keys);
    // "a_b" and "a.b" are equally long, and "a.b" < "a_b" by byte order, so "a.b" claims it.
    CHECK(names.name(2) == "a_b_c");
    std::set<std::string> unique;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        CHECK(valid(names.name(i)));
        unique.insert(names.name(i));
        CHECK(names.resolve(names.name(i)) == std::optional<std::size_t>(i));
    }
    CHECK(unique.size() == keys.size());
}

TEST_CASE("names are independent of input order", "[names]") {
    std::vector<ToolKey> keys{{"a", "b_c"}, {"a_b", "c"}, {"x", "y"}, {"a-b", "c"}};
    const EnhancedNames first(keys);
    std::reverse(keys.begin(), keys.end());
    const EnhancedNames second(keys);
    for (std::size_t i = 0; i < keys.size(); ++i) {
        CHECK(second.name(i) == first.name(keys.size() - 1 - i));
    }
}

TEST_CASE("long names are truncated with a hash and never collide", "[names]") {
    const std::string server(70, 's');
    std::vector<ToolKey> keys;
    for (int i = 0; i < 200; ++i) {
        keys.push_back({server, std::string(40, 't') + std::to_string(i)});
    }
    const EnhancedNames names(keys);
    std::set<std::string> unique;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        INFO(names.name(i));
        CHECK(valid(names.name(i)));
        CHECK(names.name(i).size() <= scout::detail::kMaxEnhancedName);
        unique.insert(names.name(i));
        CHECK(names.resolve(names.name(i)) == std::optional<std::size_t>(i));
    }
    CHECK(unique.size() == keys.size());
}

TEST_CASE("unknown names resolve by longest server prefix", "[names]") {
    const std::vector<ToolKey> keys{
        {"git", "hub_list"}, {"git_hub", "list"}, {"my server", "do it"}};
    const EnhancedNames names(keys);
    // A hand-written name with the unsanitized tool part still resolves.
    CHECK(names.resolve("my_server_do it") == std::optional<std::size_t>(2));
    CHECK(names.resolve("git_hub_list") == std::optional<std::size_t>(1));
    CHECK_FALSE(names.resolve("nothing_here").has_value());
}
