// synthetic_catalog_test.cpp: the seeded catalog generator is deterministic, hits its totals
// exactly, marks what it made, and produces a catalog that loads and indexes.
#include "eval/synthetic_catalog.hpp"

#include <cstdlib>
#include <set>

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"
#include "scout/catalog_loader.hpp"

namespace {

const scout::CatalogSpec& base_catalog() {
    static const scout::CatalogSpec spec = [] {
        const char* dir = std::getenv("SCOUT_SOURCE_DIR");
        auto loaded = scout::load_catalog_file(std::string(dir != nullptr ? dir : ".") +
                                               "/data/enterprise_catalog.json");
        REQUIRE(loaded.ok());
        return loaded.value();
    }();
    return spec;
}

std::size_t tool_count(const scout::CatalogSpec& spec) {
    std::size_t n = 0;
    for (const auto& s : spec.servers)
        n += s.tools.size();
    return n;
}

}  // namespace

TEST_CASE("synthetic catalog reaches its totals and marks generated servers", "[synthetic]") {
    const auto& base = base_catalog();
    auto grown = scout::eval::synthesize_catalog(base, {42, 220, 2200});
    REQUIRE(grown.ok());
    CHECK(grown->servers.size() == 220);
    CHECK(tool_count(grown.value()) == 2200);
    std::set<std::string> server_names;
    for (std::size_t i = 0; i < grown->servers.size(); ++i) {
        const auto& s = grown->servers[i];
        CHECK(server_names.insert(s.name).second);
        const bool marked = s.description.rfind(std::string(scout::eval::kSyntheticMarker), 0) == 0;
        CHECK(marked == (i >= base.servers.size()));
        REQUIRE_FALSE(s.tools.empty());
        std::set<std::string> tool_names;
        for (const auto& t : s.tools)
            CHECK(tool_names.insert(t.name).second);
    }
    // The base catalog is kept unchanged, so its labelled queries stay answerable.
    for (std::size_t i = 0; i < base.servers.size(); ++i) {
        CHECK(grown->servers[i].name == base.servers[i].name);
        CHECK(grown->servers[i].tools.size() == base.servers[i].tools.size());
    }
}

TEST_CASE("synthetic catalog is deterministic per seed", "[synthetic]") {
    const auto& base = base_catalog();
    const auto a = scout::eval::catalog_to_json(
        scout::eval::synthesize_catalog(base, {7, 150, 1500}).value(), "s");
    const auto b = scout::eval::catalog_to_json(
        scout::eval::synthesize_catalog(base, {7, 150, 1500}).value(), "s");
    const auto c = scout::eval::catalog_to_json(
        scout::eval::synthesize_catalog(base, {8, 150, 1500}).value(), "s");
    CHECK(a == b);
    CHECK(a != c);
}

TEST_CASE("synthetic catalog round-trips through the loader and indexes", "[synthetic]") {
    auto grown = scout::eval::synthesize_catalog(base_catalog(), {42, 220, 2200});
    REQUIRE(grown.ok());
    const std::string text = scout::eval::catalog_to_json(grown.value(), "synthetic test");
    auto parsed = scout::parse_catalog_json(text);
    REQUIRE(parsed.ok());
    CHECK(parsed->servers.size() == 220);
    CHECK(tool_count(parsed.value()) == 2200);
    auto catalog = scout::Catalog::create({}, nullptr);
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_servers(parsed.value()).ok());
    auto info = catalog->commit();
    REQUIRE(info.ok());
    CHECK(info->tools == 2200);
    auto result = catalog->searcher().search("refund a customer payment", scout::SearchOptions{});
    REQUIRE(result.ok());
    CHECK(result->hits.size() == 5);
}

TEST_CASE("synthetic catalog rejects impossible totals", "[synthetic]") {
    const auto& base = base_catalog();
    CHECK(scout::eval::synthesize_catalog(base, {1, 10, 2200}).status().code() ==
          scout::Errc::invalid_argument);
    CHECK(scout::eval::synthesize_catalog(base, {1, 220, 100}).status().code() ==
          scout::Errc::invalid_argument);
    CHECK(scout::eval::synthesize_catalog(base, {1, 1000, 700}).status().code() ==
          scout::Errc::invalid_argument);
    CHECK(scout::eval::synthesize_catalog({}, {1, 10, 10}).status().code() ==
          scout::Errc::invalid_argument);
    auto same = scout::eval::synthesize_catalog(base, {1, base.servers.size(), tool_count(base)});
    REQUIRE(same.ok());
    CHECK(same->servers.size() == base.servers.size());
}
