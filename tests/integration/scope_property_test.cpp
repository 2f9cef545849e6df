// scope_property_test.cpp: randomized property: no hit is ever outside the caller's scope, and a
// scoped BM25 or dense search equals the best of the per-server searches (exact top-k).
#include <set>

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"

#include "support/sanitized.hpp"
#include "support/test_catalogs.hpp"

using namespace scout;

namespace {

/// Exact scoped top-k from single-server searches: the top k of a union is within the union of
/// each part's top k.
std::vector<std::pair<float, ToolId>> brute_force(const Searcher& s,
                                                  const std::string& q,
                                                  const std::vector<std::string>& servers,
                                                  std::size_t k,
                                                  Mode mode) {
    std::vector<std::pair<float, ToolId>> all;
    for (const std::string& server : servers) {
        auto r =
            s.search(q, {.top_k = k, .mode = mode, .servers = std::vector<std::string>{server}});
        REQUIRE(r.ok());
        for (const Hit& h : r->hits) {
            all.emplace_back(h.score, h.id);
        }
    }
    std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
        return a.first > b.first || (a.first == b.first && a.second < b.second);
    });
    if (all.size() > k) {
        all.resize(k);
    }
    return all;
}

}  // namespace

TEST_CASE("scoped search never leaves the scope and equals brute force", "[scope][property]") {
    auto catalog = Catalog::create({}, std::make_shared<HashingEmbedder>(64));
    REQUIRE(catalog.ok());
    const CatalogSpec spec = testing::random_catalog(30, 25, 42);
    REQUIRE(catalog->upsert_servers(spec).ok());
    REQUIRE(catalog->commit().ok());
    const Searcher s = catalog->searcher();

    std::mt19937 rng(2024);
    std::uniform_int_distribution<std::size_t> pick(0, spec.servers.size() - 1);
    std::uniform_int_distribution<std::size_t> scope_size(0, 8);
    std::uniform_int_distribution<std::size_t> top_k(1, 20);
    std::uniform_int_distribution<int> mode_pick(0, 2);
    const int rounds = scout::test::kSanitized ? 400 : 1000;  // a sanitizer: several times slower
    for (int round = 0; round < rounds; ++round) {
        std::vector<std::string> servers;
        for (std::size_t i = scope_size(rng); i > 0; --i) {
            servers.push_back(spec.servers[pick(rng)].name);
        }
        std::sort(servers.begin(), servers.end());
        servers.erase(std::unique(servers.begin(), servers.end()), servers.end());
        const std::set<std::string> allowed(servers.begin(), servers.end());
        const std::string q = testing::random_query(rng);
        const std::size_t k = top_k(rng);
        const Mode mode = static_cast<Mode>(mode_pick(rng));
        INFO("round " << round << " query '" << q << "' k " << k << " mode " << mode_name(mode));
        auto r = s.search(q, {.top_k = k, .mode = mode, .servers = servers});
        REQUIRE(r.ok());
        CHECK(r->hits.size() <= k);
        for (const Hit& h : r->hits) {
            REQUIRE(allowed.count(h.server) == 1);
        }
        if (mode != Mode::hybrid) {
            const auto expected = brute_force(s, q, servers, k, mode);
            REQUIRE(r->hits.size() == expected.size());
            for (std::size_t i = 0; i < expected.size(); ++i) {
                CHECK(r->hits[i].id == expected[i].second);
                CHECK(r->hits[i].score == expected[i].first);
            }
        }
    }
}

TEST_CASE("environment filters combine with server scopes", "[scope]") {
    auto catalog = Catalog::create({}, std::make_shared<HashingEmbedder>(64));
    REQUIRE(catalog.ok());
    const CatalogSpec spec = testing::random_catalog(10, 10, 5);
    REQUIRE(catalog->upsert_servers(spec).ok());
    REQUIRE(catalog->commit().ok());
    std::set<std::string> prod;
    for (const auto& server : spec.servers) {
        if (server.environment == "prod") {
            prod.insert(server.name);
        }
    }
    const Searcher s = catalog->searcher();
    auto r = s.search("create user", {.top_k = 20, .environment = std::string("prod")});
    REQUIRE(r.ok());
    for (const Hit& h : r->hits) {
        CHECK(prod.count(h.server) == 1);
    }
    std::vector<std::string> both{spec.servers[0].name, spec.servers[1].name};
    auto r2 =
        s.search("create user", {.top_k = 20, .servers = both, .environment = std::string("prod")});
    REQUIRE(r2.ok());
    for (const Hit& h : r2->hits) {
        CHECK(prod.count(h.server) == 1);
        CHECK((h.server == both[0] || h.server == both[1]));
    }
}
