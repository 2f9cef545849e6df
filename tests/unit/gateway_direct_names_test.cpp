// gateway_direct_names_test.cpp: the wording of refused bare names (candidates listed, bounded)
// and the matching of a concrete URI against a backend's resource templates.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "direct_names.hpp"

using namespace scout::gateway;

TEST_CASE("an ambiguous bare name lists its candidates, at most ten", "[gateway]") {
    CHECK(ambiguous_name_message("tool", "echo", {"alpha/echo", "beta/echo"}) ==
          "Ambiguous tool 'echo': offered by 2 servers (alpha/echo, beta/echo); name one with its "
          "server prefix");
    std::vector<std::string> many;
    for (int i = 0; i < 25; ++i) {
        std::string name = std::to_string(i);
        name.insert(0, 1, 's');
        name.append("/echo");
        many.push_back(std::move(name));
    }
    const std::string text = candidates_text(many);
    CHECK(text.find("s9/echo") != std::string::npos);
    CHECK(text.find("s10/echo") == std::string::npos);
    CHECK(text.substr(text.size() - 12) == " and 15 more");
    CHECK(candidates_text({}).empty());
    // A client's name is clipped, not echoed whole.
    CHECK(ambiguous_name_message("prompt", std::string(100000, 'x'), {"a/x"}).size() < 2000);
}

TEST_CASE("a concrete URI matches the resource template it expands", "[gateway]") {
    CHECK(uri_template_matches("test://template/{id}/data", "test://template/123/data"));
    CHECK(uri_template_matches("file:///{path}", "file:///a/b/c.txt"));
    CHECK(uri_template_matches("db://{table}/{row}", "db://users/7"));
    CHECK(uri_template_matches("static://fixed", "static://fixed"));
    CHECK_FALSE(uri_template_matches("test://template/{id}/data", "test://template//data"));
    CHECK_FALSE(uri_template_matches("test://template/{id}/data", "test://template/123/other"));
    CHECK_FALSE(uri_template_matches("test://template/{id}/data", "test://template/123/data/x"));
    CHECK_FALSE(uri_template_matches("test://template/{id}", "test://template/"));
    CHECK_FALSE(uri_template_matches("test://{a}{b}", "test://xy"));  // nothing separates them
    CHECK_FALSE(uri_template_matches("test://{unclosed", "test://x"));
    CHECK_FALSE(uri_template_matches("static://fixed", "static://fixed2"));
    CHECK_FALSE(uri_template_matches("", "x"));
}
