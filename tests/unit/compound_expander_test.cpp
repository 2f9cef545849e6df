// compound_expander_test.cpp: joining and splitting query words against a vocabulary, and the
// effect through Catalog + Searcher.
#include "search/compound_expander.hpp"

#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"

using scout::detail::compound_expansions;
using Words = std::vector<std::string>;

namespace {

Words expand(const Words& query, const std::set<std::string>& vocabulary) {
    return compound_expansions(query,
                               [&](const std::string& w) { return vocabulary.count(w) != 0; });
}

}  // namespace

TEST_CASE("adjacent query words that form a catalog word add it", "[compounds]") {
    const std::set<std::string> vocab{"keyvault", "key", "vault", "filesystem"};
    CHECK(expand({"key", "vault", "secrets"}, vocab) == Words{"keyvault"});
    CHECK(expand({"file", "system", "read"}, vocab) == Words{"filesystem"});
    CHECK(expand({"vault", "key"}, vocab).empty());  // order matters
    CHECK(expand({"keyvault"}, vocab).empty());      // already a query word
}

TEST_CASE("a query word the catalog lacks adds its most balanced known halves", "[compounds]") {
    const std::set<std::string> vocab{"cosmos", "db", "co", "smosdb", "web", "hook", "we", "bhook"};
    CHECK(expand({"cosmosdb", "accounts"}, vocab) == Words{"cosmos db"});
    CHECK(expand({"webhook"}, vocab) == Words{"web hook"});
    CHECK(expand({"unknownword"}, vocab).empty());
    // Known words are never split.
    CHECK(expand({"cosmos"}, {"cosmos", "cos", "mos"}).empty());
}

TEST_CASE("odd words are left alone", "[compounds]") {
    const std::set<std::string> vocab{"a", "b", "ab", "x2", "y"};
    CHECK(expand({}, vocab).empty());
    CHECK(expand({"a"}, vocab).empty());
    CHECK(expand({"x2", "y"}, vocab).empty());  // only letter words are joined
    const std::string huge(100000, 'a');
    CHECK(expand({huge, huge}, vocab).empty());
    CHECK(expand({"ab", "ab", "ab"}, {"abab"}) == Words{"abab"});  // each phrase once
}

TEST_CASE("compound expansion reaches a tool named with a glued word", "[compounds][search]") {
    scout::CatalogSpec spec;
    spec.servers.push_back(
        {"azure",
         "Cloud services.",
         "",
         "",
         scout::ServerStatus::active,
         {{"keyvault_secret_get", "", "Read a secret.", "", ""},
          {"storage_secret_rotate", "", "Rotate the storage secret of an account.", "", ""}}});
    const auto top = [&](float weight) {
        scout::CatalogOptions options;
        options.expansion.compound_weight = weight;
        options.expansion.action_weight = 0.0f;
        auto catalog = scout::Catalog::create(options);
        REQUIRE(catalog.ok());
        REQUIRE(catalog->upsert_servers(spec).ok());
        REQUIRE(catalog->commit().ok());
        auto r = catalog->searcher().search("secret in the key vault account",
                                            {.mode = scout::Mode::bm25});
        REQUIRE(r.ok());
        REQUIRE_FALSE(r->hits.empty());
        return r->hits[0].tool;
    };
    CHECK(top(0.0f) == "storage_secret_rotate");
    CHECK(top(1.0f) == "keyvault_secret_get");
}

TEST_CASE("a glued query word splits into halves the catalog knows only by their stems",
          "[compounds][search]") {
    // With stems alone in the index, "webhooks" is no catalog term, "web" and "hook" (the stem of
    // "hooks") are; "hooksthe" ends in a stop word, which the analyzer drops, so it is not split.
    scout::CatalogSpec spec;
    spec.servers.push_back({"ci",
                            "Build pipelines.",
                            "",
                            "",
                            scout::ServerStatus::active,
                            {{"register", "", "Register web hooks for a repository.", "", ""},
                             {"pipeline_run", "", "Run a pipeline.", "", ""}}});
    scout::CatalogOptions options;
    options.analyzer.keep_surface = false;  // stems only: a word is known by its stem
    options.expansion.action_weight = 0.0f;
    options.expansion.lexicon = false;
    auto catalog = scout::Catalog::create(options);
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_servers(spec).ok());
    REQUIRE(catalog->commit().ok());
    const auto hits = [&](const std::string& query) {
        auto r = catalog->searcher().search(query, {.mode = scout::Mode::bm25});
        REQUIRE(r.ok());
        return r->hits.size();
    };
    CHECK(hits("webhooks") == 1);
    CHECK(hits("hooksthe") == 0);
    CHECK(hits("pipelinethe") == 0);
}
