// lexicon_test.cpp: phrase matching on stems and the expansions a query receives.
#include "search/lexicon.hpp"

#include <catch2/catch.hpp>

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
