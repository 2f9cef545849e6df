// lexicon_test.cpp: phrase matching on stems and the expansions a query receives.
#include "search/lexicon.hpp"

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"

#include "analysis/word_pairs.hpp"

using scout::detail::Lexicon;
using Phrases = std::vector<std::string>;

TEST_CASE("phrases of a matched group are added, the query's own are not", "[lexicon]") {
    const Lexicon lex({"pull request|pr|merge request", "kubernetes|k8s"});
    CHECK(lex.group_count() == 2);
    CHECK(lex.expansions("open a PR") == Phrases{"pull request", "merge request"});
    CHECK(lex.expansions("list open pull requests") == Phrases{"pr", "merge request"});
    CHECK(lex.expansions("restart the k8s deployment") == Phrases{"kubernetes"});
    CHECK(lex.expansions("PR for kubernetes") == Phrases{"pull request", "merge request", "k8s"});
    CHECK(lex.expansions("nothing relevant").empty());
    CHECK(lex.expansions("").empty());
}

TEST_CASE("a multi-word phrase matches only as a whole, in order", "[lexicon]") {
    const Lexicon lex({"direct message|dm"});
    CHECK(lex.expansions("send a direct message").size() == 1);
    CHECK(lex.expansions("message direct").empty());
    CHECK(lex.expansions("direct").empty());
}

TEST_CASE("the built-in lexicon knows common tool language", "[lexicon]") {
    const Lexicon& lex = scout::detail::default_lexicon();
    CHECK(lex.group_count() > 50);
    const Phrases pr = lex.expansions("open a PR");
    CHECK(std::find(pr.begin(), pr.end(), "pull request") != pr.end());
    const Phrases ping = lex.expansions("ping the team");
    CHECK(std::find(ping.begin(), ping.end(), "send message") != ping.end());
    const Phrases repo = lex.expansions("clone the repo");
    CHECK(std::find(repo.begin(), repo.end(), "repository") != repo.end());
    const Phrases stats = lex.expansions("DAG stats");
    CHECK(std::find(stats.begin(), stats.end(), "statistics") != stats.end());
    const Phrases info = lex.expansions("retrieve API key information");
    CHECK(std::find(info.begin(), info.end(), "info") != info.end());
}

TEST_CASE("hostile input is harmless", "[lexicon]") {
    const Lexicon lex({"", "|||", "a||b"});
    CHECK(lex.expansions("a").size() == 1);
    CHECK(lex.expansions(std::string(100000, 'x')).empty());
    CHECK(lex.expansions("\xFF\xFE pr").empty());
}

TEST_CASE("expansions from a query's plain words equal those from its text", "[lexicon]") {
    // A search hands the lexicon the words it has already cut (plain_words) unless one of them
    // is long enough to have been cut short.
    const Lexicon& lex = scout::detail::default_lexicon();
    for (const char* text : {"open a PR",
                             "list open pull requests",
                             "restart the k8s deployment",
                             "getPullRequest for MyRepo",
                             "send a DM to the team",
                             "",
                             "the of",
                             "delete_branch kebab-case v2 PRs"}) {
        CHECK(lex.expansions_of_words(scout::detail::plain_words(text)) == lex.expansions(text));
    }
}

TEST_CASE("the lexicon expands a query when action and pairs are off", "[lexicon]") {
    // The plain words are cut for the lexicon too, not only when the action or the pairs ask.
    scout::CatalogOptions options;
    options.expansion.action_weight = 0.0f;
    options.expansion.action_boost = 0.0f;
    options.expansion.pair_weight = 0.0f;
    options.expansion.compound_weight = 0.0f;
    auto catalog = scout::Catalog::create(options, nullptr);
    REQUIRE(catalog);
    scout::ServerSpec server;
    server.name = "code";
    server.description = "source hosting";
    scout::ToolSpec merge;
    merge.name = "open_merge";
    merge.description = "Opens a pull request";
    scout::ToolSpec files;
    files.name = "list_files";
    files.description = "Lists files";
    server.tools = {merge, files};
    scout::CatalogSpec spec;
    spec.servers.push_back(server);
    REQUIRE(catalog->upsert_servers(spec).ok());
    REQUIRE(catalog->commit());
    scout::SearchOptions so;
    so.mode = scout::Mode::bm25;
    const auto result = catalog->searcher().search("PR", so);
    REQUIRE(result);
    REQUIRE_FALSE(result->hits.empty());
    CHECK(result->hits[0].tool == "open_merge");
}
