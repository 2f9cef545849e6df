// bm25_query_test.cpp: the query's terms, cut from one tokenization (search/bm25_query.cpp),
// against the terms the same text gets as a document field, for many texts and option
// combinations; the ids looked up as the terms are made against the terms looked up afterwards;
// and the search over looked-up ids against the search over strings.
#include "search/bm25_query.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "scout/catalog_loader.hpp"

#include "analysis/analyzer.hpp"
#include "analysis/term.hpp"
#include "analysis/word_pairs.hpp"
#include "snapshot/snapshot_builder.hpp"

using namespace scout;
using namespace scout::detail;

namespace {

std::shared_ptr<const Snapshot> snapshot_of(const CatalogSpec& spec,
                                            const CatalogOptions& options) {
    auto staged = std::make_shared<StagedCatalog>();
    for (const ServerSpec& server : spec.servers) {
        auto entry = std::make_shared<StagedServer>();
        for (const ToolSpec& tool : server.tools) {
            entry->tools.emplace(tool.name, std::make_shared<const StagedTool>(tool));
        }
        entry->meta = server;
        entry->meta.tools.clear();
        staged->emplace(server.name, std::move(entry));
    }
    EmbeddingCache cache;
    return build_snapshot(staged, options, nullptr, cache, 1).snapshot;
}

/// The catalog of data/ plus tools whose names glue words together, so that compounds join and
/// split.
CatalogSpec test_catalog() {
    const char* root = std::getenv("SCOUT_SOURCE_DIR");
    REQUIRE(root != nullptr);
    auto spec = load_catalog_file(std::filesystem::path(root) / "data/enterprise_catalog.json");
    REQUIRE(spec.ok());
    CatalogSpec out = *spec;
    out.servers.push_back({"azure",
                           "Cloud services: keyvault, cosmosdb and webhooks.",
                           "",
                           "",
                           ServerStatus::active,
                           {{"keyvault_secret_get", "", "Read a secret from a key vault.", "", ""},
                            {"cosmos_db_list", "", "List the Cosmos DB accounts.", "", ""},
                            {"filesystem_read", "", "Read a file system path.", "", ""},
                            {"web_hook_create", "", "Create a webhook for a repo.", "", ""},
                            {"MySQLQuery", "", "Run a query on MySQL or GitHub data.", "", ""}}});
    return out;
}

std::vector<std::string> test_queries() {
    std::vector<std::string> queries = {
        "",
        "   ",
        "the of and please",
        "open a PR",
        "list open pull requests on GitHub",
        "restart the k8s deployment",
        "getPullRequest for MyRepo in MySQL",
        "keyvault secrets",
        "key vault secrets and cosmosdb accounts",
        "cosmos db filesystem web hook webhooks",
        "remove the file",
        "show me the keys in vault v",
        "what servers are down?",
        "ÉtatCivil naïve café 東京タワー 서울",
        "invalid \xff\xfe bytes \xc3 and digits 2024 v1.2.3 x86_64",
        std::string(61, 'p') + " " + std::string(63, 'q') + "s request " + std::string(70, 'r') +
            "ing pull requests",
        std::string(45, 'k') + " " + std::string(20, 'a') + std::string(21, 'b'),
        "DM Priya on Slack that her review is ready",
        "HTTPServer getV2Items snake_case_name kebab-case dotted.name",
        "send a message, ping the team; notify on-call",
    };
    const char* root = std::getenv("SCOUT_SOURCE_DIR");
    REQUIRE(root != nullptr);
    std::ifstream in(std::filesystem::path(root) / "data/queries-49.json");
    const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // The queries' texts, without a JSON parser: every "query": "..." value.
    const std::string key = "\"query\": \"";
    for (std::size_t at = json.find(key); at != std::string::npos; at = json.find(key, at)) {
        at += key.size();
        const std::size_t end = json.find('"', at);
        queries.push_back(json.substr(at, end - at));
    }
    REQUIRE(queries.size() > 60);
    return queries;
}

/// Options that change how a query is cut or which signals run.
std::vector<CatalogOptions> option_sets() {
    std::vector<CatalogOptions> sets(1);
    const auto with = [&](auto change) {
        CatalogOptions o;
        change(o);
        sets.push_back(o);
    };
    with([](CatalogOptions& o) { o.analyzer.keep_surface = false; });
    with([](CatalogOptions& o) { o.analyzer.stem = false; });
    with([](CatalogOptions& o) { o.analyzer.split_identifiers = false; });
    with([](CatalogOptions& o) { o.analyzer.keep_joined_case = false; });
    with([](CatalogOptions& o) { o.analyzer.remove_stop_words = false; });
    with([](CatalogOptions& o) { o.analyzer.max_token_bytes = 5; });
    with([](CatalogOptions& o) {
        o.analyzer.keep_surface = false;
        o.analyzer.max_token_bytes = 6;
    });
    with([](CatalogOptions& o) { o.expansion.lexicon = false; });
    with([](CatalogOptions& o) { o.expansion.pair_weight = 0.0f; });
    with([](CatalogOptions& o) { o.expansion.compound_weight = 0.0f; });
    with([](CatalogOptions& o) {
        o.expansion.action_weight = 0.0f;
        o.expansion.action_boost = 0.0f;
    });
    with([](CatalogOptions& o) {
        o.expansion.weight = 0.7f;
        o.expansion.pair_weight = 0.3f;
        o.expansion.compound_weight = 0.9f;
    });
    return sets;
}

}  // namespace

TEST_CASE("a text's terms as a query equal its terms as a document field", "[bm25_query]") {
    // Documents are analyzed field by field (Analyzer::analyze) and get the pairs of their name
    // and description (append_word_pairs), as DocumentCache::render does; a query is cut once
    // for all its signals. Both go through the term pipeline, and must agree: a query that
    // repeats a tool's words must meet that tool's terms.
    const CatalogSpec spec = test_catalog();
    std::vector<std::string> texts = test_queries();
    for (const ServerSpec& server : spec.servers) {
        for (const ToolSpec& tool : server.tools) {
            texts.push_back(tool.name);
            texts.push_back(tool.description);
        }
    }
    std::size_t compared = 0;
    std::size_t with_pairs = 0;
    for (CatalogOptions options : option_sets()) {
        // Only the signals documents have too: the query's own words and its pairs.
        options.expansion.lexicon = false;
        options.expansion.compound_weight = 0.0f;
        options.expansion.action_weight = 0.0f;
        options.expansion.action_boost = 0.0f;
        const bool pairs = options.expansion.pair_weight > 0.0f;
        const auto snap = snapshot_of(spec, options);
        REQUIRE(snap);
        for (const std::string& text : texts) {
            INFO("text: " << text);
            std::vector<std::string> document = snap->analyzer.analyze(text);
            if (pairs) {
                append_word_pairs(text, document);
            }
            std::vector<std::string> query;
            for (const QueryTerm& t : bm25_query(*snap, text, ToolAction::none)) {
                query.push_back(t.term);
            }
            CHECK(query == document);
            with_pairs += static_cast<std::size_t>(
                std::any_of(query.begin(), query.end(), [](const std::string& t) {
                    return term_kind(t) == TermKind::pair;
                }));
            ++compared;
        }
    }
    CHECK(compared == option_sets().size() * texts.size());
    CHECK(with_pairs > 0);
}

TEST_CASE("a query's looked-up ids are its known terms, in order", "[bm25_query]") {
    const CatalogSpec spec = test_catalog();
    const std::vector<std::string> queries = test_queries();
    std::size_t expanded = 0;
    for (const CatalogOptions& options : option_sets()) {
        const auto snap = snapshot_of(spec, options);
        REQUIRE(snap);
        for (const std::string& query : queries) {
            for (const ToolAction action : {action_of_query(query), ToolAction::none}) {
                INFO("query: " << query);
                const std::vector<QueryTerm> terms = bm25_query(*snap, query, action);
                expanded += static_cast<std::size_t>(
                    std::any_of(terms.begin(), terms.end(), [](const QueryTerm& t) {
                        return t.weight != 1.0f;
                    }));
                std::vector<WeightedTermId> known;
                for (const QueryTerm& t : terms) {
                    if (const auto id = snap->bm25.term_id(t.term)) {
                        known.push_back({*id, t.weight});
                    }
                }
                std::vector<WeightedTermId> ids;
                bm25_query_ids(*snap, query, action, ids);
                CHECK(ids == known);
            }
        }
    }
    CHECK(expanded > 0);
}

TEST_CASE("the action of a query's words as views equals that of its plain words", "[bm25_query]") {
    for (const std::string& query : test_queries()) {
        const std::vector<std::string> plain = plain_words(query);
        const std::vector<std::string_view> views(plain.begin(), plain.end());
        CHECK(action_of_words(std::span<const std::string_view>(views)) == action_of_query(query));
    }
}

TEST_CASE("a search over looked-up ids equals the search over the terms", "[bm25_query]") {
    const auto snap = snapshot_of(test_catalog(), CatalogOptions{});
    for (const std::string& query : test_queries()) {
        const ToolAction action = action_of_query(query);
        std::vector<WeightedTermId> ids;
        bm25_query_ids(*snap, query, action, ids);
        const std::vector<QueryTerm> terms = bm25_query(*snap, query, action);
        for (const std::size_t k : {1U, 5U, 30U}) {
            std::vector<ScoredDoc> by_ids;
            std::vector<ScoredDoc> by_terms;
            snap->bm25.search(std::span<const WeightedTermId>(ids), k, nullptr, by_ids);
            snap->bm25.search(std::span<const QueryTerm>(terms), k, nullptr, by_terms);
            REQUIRE(by_ids.size() == by_terms.size());
            for (std::size_t i = 0; i < by_ids.size(); ++i) {
                CHECK(by_ids[i].id == by_terms[i].id);
                CHECK(by_ids[i].score == by_terms[i].score);
            }
        }
    }
}

TEST_CASE("the action boost re-sorts stably, as std::stable_sort does", "[bm25_query]") {
    const auto snap = snapshot_of(test_catalog(), CatalogOptions{});
    const std::size_t n = snap->tools.size();
    std::mt19937 rng(17);
    std::uniform_int_distribution<int> few(1, 6);
    for (int round = 0; round < 200; ++round) {
        std::vector<ScoredDoc> docs;
        for (std::size_t i = 0; i < 30 && i < n; ++i) {
            docs.push_back({static_cast<ToolId>((i * 7 + static_cast<std::size_t>(round)) % n),
                            static_cast<float>(few(rng))});
        }
        std::sort(docs.begin(), docs.end(), RankOrder{});
        for (const ToolAction action : {ToolAction::read, ToolAction::list, ToolAction::create}) {
            std::vector<ScoredDoc> expected = docs;
            for (ScoredDoc& d : expected) {
                if (snap->tools[d.id].action == action) {
                    d.score *= 1.0f + snap->options.expansion.action_boost;
                }
            }
            std::stable_sort(
                expected.begin(), expected.end(), [](const ScoredDoc& x, const ScoredDoc& y) {
                    return x.score > y.score;
                });
            std::vector<ScoredDoc> got = docs;
            boost_action(*snap, action, got);
            REQUIRE(got.size() == expected.size());
            for (std::size_t i = 0; i < got.size(); ++i) {
                CHECK(got[i].id == expected[i].id);
                CHECK(got[i].score == expected[i].score);
            }
        }
    }
}
