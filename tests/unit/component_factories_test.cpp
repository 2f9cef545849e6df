// component_factories_test.cpp: the core's door to the embedders of scout::http and
// scout::transformer. Until a program registers a component, asking for its embedder (through
// the C++ API or the C ABI's settings) fails with invalid_argument naming the component; once
// registered, the request reaches the component, or, in a build that left the component out,
// its stand-in, which says why.
#include <string>

#include <catch2/catch.hpp>

#include "scout/embedder.hpp"
#include "scout/http/http_embedder.hpp"
#include "scout/scout.h"
#include "scout/transformer/transformer_embedder.hpp"

#include "built_components.hpp"

namespace {

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

/// Stands in for a component: a hashing embedder whose size says which options it saw.
scout::Result<std::shared_ptr<scout::Embedder>> fake_http(scout::HttpEmbedderOptions options) {
    return std::shared_ptr<scout::Embedder>(
        std::make_shared<scout::HashingEmbedder>(options.dimensions));
}

scout::Result<std::shared_ptr<scout::Embedder>> fake_transformer(
    const std::string& dir, scout::TransformerEmbedderOptions options) {
    return std::shared_ptr<scout::Embedder>(
        std::make_shared<scout::HashingEmbedder>(dir.size() + options.max_length));
}

/// The url as a std::string: GCC 12 at -O2 reports a false -Wrestrict on assigning a literal
/// to a member string.
scout::HttpEmbedderOptions http_options(const std::string& url, std::size_t dimensions) {
    scout::HttpEmbedderOptions options;
    options.base_url = url;
    options.model = std::string(1, 'm');
    options.dimensions = dimensions;
    return options;
}

scout_status create_catalog(const std::string& embedder) {
    scout_catalog* catalog = nullptr;
    const scout_status status =
        scout_catalog_create(("{\"embedder\": " + embedder + "}").c_str(), &catalog);
    scout_catalog_free(catalog);
    return status;
}

}  // namespace

TEST_CASE("an embedder of an unregistered component names the component it needs", "[components]") {
    scout::set_http_embedder_factory(nullptr);
    scout::set_transformer_embedder_factory(nullptr);

    auto made = scout::make_http_embedder(http_options("http://127.0.0.1:9/v1", 8));
    REQUIRE_FALSE(made.ok());
    CHECK(made.status().code() == scout::Errc::invalid_argument);
    CHECK(contains(made.status().message(), "scout::http"));
    CHECK(contains(made.status().message(), "register_http_embedder"));

    auto loaded = scout::make_transformer_embedder("some/model");
    REQUIRE_FALSE(loaded.ok());
    CHECK(loaded.status().code() == scout::Errc::invalid_argument);
    CHECK(contains(loaded.status().message(), "scout::transformer"));

    // The C ABI's settings come through the same door.
    CHECK(create_catalog(R"("transformer:some/model")") == SCOUT_INVALID_ARGUMENT);
    CHECK(contains(scout_last_error(), "scout::transformer"));
    CHECK(create_catalog(R"({"kind": "http", "url": "http://127.0.0.1:9/v1", "model": "m", )"
                         R"("dimensions": 8})") == SCOUT_INVALID_ARGUMENT);
    CHECK(contains(scout_last_error(), "scout::http"));
}

TEST_CASE("a registered factory receives the settings", "[components]") {
    scout::set_http_embedder_factory(&fake_http);
    scout::set_transformer_embedder_factory(&fake_transformer);

    auto made = scout::make_http_embedder(http_options("", 24));
    REQUIRE(made.ok());
    CHECK(made.value()->dim() == 24);

    scout::TransformerEmbedderOptions options;
    options.max_length = 10;
    auto loaded = scout::make_transformer_embedder("four", options);
    REQUIRE(loaded.ok());
    CHECK(loaded.value()->dim() == 14);

    CHECK(create_catalog(R"({"kind": "http", "url": "http://127.0.0.1:9/v1", "model": "m", )"
                         R"("dimensions": 8})") == SCOUT_OK);

    scout::set_http_embedder_factory(nullptr);
    scout::set_transformer_embedder_factory(nullptr);
}

TEST_CASE("the components' registration installs their own embedders", "[components]") {
    scout::register_http_embedder();
    scout::register_transformer_embedder();

    // The component's own checks answer now: a URL scheme libcurl is not asked to serve. A
    // build without the component answers with the reason instead (src/http/left_out_http.cpp).
    auto made = scout::make_http_embedder(http_options("ftp://127.0.0.1/v1", 8));
    REQUIRE_FALSE(made.ok());
    CHECK(made.status().code() == scout::Errc::invalid_argument);
#if SCOUT_WITH_HTTP
    CHECK_FALSE(contains(made.status().message(), "scout::http"));
#else
    CHECK(made.status().message() == SCOUT_HTTP_LEFT_OUT);
#endif

    auto loaded = scout::make_transformer_embedder("/nonexistent/model");
    REQUIRE_FALSE(loaded.ok());
#if SCOUT_WITH_TRANSFORMER
    CHECK_FALSE(contains(loaded.status().message(), "scout::transformer"));
#else
    CHECK(loaded.status().code() == scout::Errc::invalid_argument);
    CHECK(loaded.status().message() == SCOUT_TRANSFORMER_LEFT_OUT);
#endif

    scout::set_http_embedder_factory(nullptr);
    scout::set_transformer_embedder_factory(nullptr);
}
