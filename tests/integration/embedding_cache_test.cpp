// embedding_cache_test.cpp: the catalog's document-vector cache: an unchanged catalog embeds
// nothing on re-commit, and a changed tool is the only one re-embedded.
#include <catch2/catch.hpp>

#include "scout/catalog.hpp"
#include "scout/embedder.hpp"

#include "support/counting_embedder.hpp"
#include "support/temp_dir.hpp"

using scout::Catalog;
using scout::ServerSpec;
using scout::ToolSpec;

namespace {

ServerSpec server(const std::string& name, int tools) {
    ServerSpec s;
    s.name = name;
    s.description = "server " + name;
    for (int i = 0; i < tools; ++i) {
        s.tools.push_back(
            ToolSpec{"tool_" + std::to_string(i), "", "does thing " + std::to_string(i), "", ""});
    }
    return s;
}

}  // namespace

TEST_CASE("re-committing embeds only what changed", "[embed]") {
    auto embedder = std::make_shared<scout::test::CountingEmbedder>();
    auto created = Catalog::create({}, embedder);
    REQUIRE(created.ok());
    Catalog catalog = std::move(created.value());
    REQUIRE(catalog.upsert_server(server("alpha", 5)).ok());
    REQUIRE(catalog.upsert_server(server("beta", 3)).ok());
    auto first = catalog.commit();
    REQUIRE(first.ok());
    CHECK(first->embedded == 8);
    CHECK(first->dense_ready);

    embedder->reset();
    auto again = catalog.commit();
    REQUIRE(again.ok());
    CHECK(again->embedded == 0);
    CHECK(embedder->seen().empty());

    // Re-upserting identical content is not a change either.
    REQUIRE(catalog.upsert_server(server("beta", 3)).ok());
    CHECK(catalog.commit()->embedded == 0);

    REQUIRE(
        catalog.upsert_tool("alpha", ToolSpec{"tool_2", "", "does something new", "", ""}).ok());
    auto changed = catalog.commit();
    REQUIRE(changed.ok());
    CHECK(changed->embedded == 1);
    REQUIRE(embedder->seen().size() == 1);
    CHECK(embedder->seen()[0].find("does something new") != std::string::npos);
    CHECK(changed->dense_ready);
}

TEST_CASE("a catalog-fitted static embedder re-embeds only changed tools", "[embed]") {
    scout::test::TempDir dir;
    const std::string vectors = dir.write("v.txt",
                                          "does 1 0 0\nthing 0 1 0\nsomething 0 0 1\nnew 1 1 0\n"
                                          "server 0 1 1\ntool 1 0 1\n");
    auto loaded = scout::StaticEmbedder::load(vectors);
    REQUIRE(loaded.ok());
    auto created = Catalog::create({}, loaded.value());
    REQUIRE(created.ok());
    Catalog catalog = std::move(created.value());
    REQUIRE(catalog.upsert_server(server("alpha", 10)).ok());
    REQUIRE(catalog.upsert_server(server("beta", 10)).ok());
    auto first = catalog.commit();
    REQUIRE(first.ok());
    CHECK(first->embedded == 20);
    CHECK(catalog.commit()->embedded == 0);

    REQUIRE(
        catalog.upsert_tool("alpha", ToolSpec{"tool_2", "", "does something new", "", ""}).ok());
    CHECK(catalog.commit()->embedded == 1);

    // Doubling the catalog moves the statistics: everything is re-embedded with new weights.
    REQUIRE(catalog.upsert_server(server("gamma", 20)).ok());
    CHECK(catalog.commit()->embedded == 40);
}
