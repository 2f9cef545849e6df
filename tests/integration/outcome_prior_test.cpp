// outcome_prior_test.cpp: learning from executions. Recorded outcomes re-rank only searches that
// ask for them and only within a capped boost; nothing recorded (or the option off) leaves every
// result exactly as it was; failures and adversarial outcomes cannot move an unrelated query;
// memory stays bounded; the prior survives save/open and concurrent searches (TSan in CI).
#include "outcomes/outcome_prior.hpp"

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"
#include "scout/catalog_loader.hpp"

#include "persist/outcome_codec.hpp"
#include "support/temp_dir.hpp"
#include "support/test_catalogs.hpp"

namespace {

using scout::Outcome;
using scout::testing::twin_catalog;

std::string source_file(const std::string& name) {
    const char* dir = std::getenv("SCOUT_SOURCE_DIR");
    return std::string(dir != nullptr ? dir : ".") + "/" + name;
}

scout::Catalog enterprise_catalog() {
    auto spec = scout::load_catalog_file(source_file("data/enterprise_catalog.json"));
    REQUIRE(spec.ok());
    auto catalog = scout::Catalog::create();
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_servers(spec.value()).ok());
    REQUIRE(catalog->commit().ok());
    return std::move(catalog.value());
}

std::vector<std::string> ranking(const scout::Catalog& catalog,
                                 const std::string& query,
                                 bool prior,
                                 std::size_t k = 10) {
    scout::SearchOptions options;
    options.top_k = k;
    options.outcome_prior = prior;
    auto r = catalog.searcher().search(query, options);
    REQUIRE(r.ok());
    std::vector<std::string> names;
    for (const scout::Hit& h : r->hits) {
        names.push_back(h.name + " " + std::to_string(h.score));
    }
    return names;
}

const std::vector<std::string> kQueries = {"create a pull request",
                                           "roll back the last deploy",
                                           "send a message to the on-call channel",
                                           "run a SQL query on the warehouse",
                                           "open an incident",
                                           "list the open tickets"};

}  // namespace

TEST_CASE("with nothing recorded, or the option off, results are exactly today's", "[outcomes]") {
    scout::Catalog catalog = enterprise_catalog();
    std::vector<std::vector<std::string>> before;
    for (const std::string& q : kQueries) {
        before.push_back(ranking(catalog, q, false));
        CHECK(ranking(catalog, q, true) == before.back());
    }
    // Outcomes recorded, but searches do not ask for the prior.
    for (std::size_t i = 0; i < kQueries.size(); ++i) {
        auto hits = catalog.searcher().search(kQueries[i], {.top_k = 5});
        REQUIRE(hits.ok());
        const scout::Hit& last = hits->hits.back();
        for (int n = 0; n < 20; ++n) {
            REQUIRE(catalog.record_outcome(kQueries[i], {last.server, last.tool}, Outcome::success)
                        .ok());
        }
    }
    for (std::size_t i = 0; i < kQueries.size(); ++i) {
        CHECK(ranking(catalog, kQueries[i], false) == before[i]);
    }
}

TEST_CASE("successes lift a tool the query fits as well as another", "[outcomes]") {
    auto catalog = scout::Catalog::create();
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_servers(twin_catalog()).ok());
    REQUIRE(catalog->commit().ok());
    const std::string query = "post to the channel";
    const std::vector<std::string> before = ranking(*catalog, query, true, 2);
    REQUIRE(before.size() == 2);
    auto second = catalog->searcher().search(query, {.top_k = 2});
    REQUIRE(second.ok());
    const scout::Hit runner_up = second->hits[1];
    REQUIRE(catalog
                ->record_outcome("post it to the channel please",
                                 {runner_up.server, runner_up.tool},
                                 Outcome::success)
                .ok());
    auto after = catalog->searcher().search(query, {.top_k = 2, .outcome_prior = true});
    REQUIRE(after.ok());
    CHECK(after->hits.front().tool == runner_up.tool);
    // The boost is capped: at most kMaxOutcomeBoost of the top score.
    const double top = static_cast<double>(second->hits[0].score);
    CHECK(static_cast<double>(after->hits.front().score) <=
          top * (1 + scout::SearchOptions::kMaxOutcomeBoost) + 1e-6);
    // Off: unchanged.
    CHECK(ranking(*catalog, query, false, 2) == before);

    // Failures take the endorsement back.
    for (int n = 0; n < 3; ++n) {
        REQUIRE(catalog
                    ->record_outcome("post it to the channel",
                                     {runner_up.server, runner_up.tool},
                                     Outcome::failure)
                    .ok());
    }
    CHECK(ranking(*catalog, query, true, 2) == before);
}

TEST_CASE("1,000 failing or adversarial outcomes on one tool do not move an unrelated query",
          "[outcomes]") {
    scout::Catalog catalog = enterprise_catalog();
    const std::string unrelated = "roll back the last deploy";
    const std::vector<std::string> before = ranking(catalog, unrelated, true);
    auto hits = catalog.searcher().search(unrelated, {.top_k = 10});
    REQUIRE(hits.ok());
    REQUIRE(hits->hits.size() >= 3);
    const scout::ToolKey top{hits->hits[0].server, hits->hits[0].tool};
    const scout::ToolKey low{hits->hits.back().server, hits->hits.back().tool};

    SECTION("failures on its top tool, even for the same query") {
        for (int n = 0; n < 1000; ++n) {
            const std::string& q =
                n % 2 == 0 ? unrelated : kQueries[static_cast<std::size_t>(n) % 6];
            REQUIRE(catalog.record_outcome(q, top, Outcome::failure).ok());
        }
    }
    SECTION("adversarial successes on a low tool for queries about something else") {
        for (int n = 0; n < 1000; ++n) {
            const std::string q = "create a pull request " + std::to_string(n) + " merge branch";
            REQUIRE(catalog.record_outcome(q, low, Outcome::success).ok());
        }
    }
    CHECK(ranking(catalog, unrelated, true) == before);
}

TEST_CASE("record_outcome rejects bad input", "[outcomes]") {
    auto catalog = scout::Catalog::create();
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_servers(twin_catalog()).ok());
    REQUIRE(catalog->commit().ok());
    CHECK(catalog->record_outcome("", {"chat", "post_note"}, Outcome::success).code() ==
          scout::Errc::invalid_argument);
    CHECK(catalog->record_outcome("\xff\xfe", {"chat", "post_note"}, Outcome::success).code() ==
          scout::Errc::invalid_argument);
    CHECK(catalog->record_outcome(std::string(20000, 'a'), {"chat", "post_note"}, Outcome::success)
              .code() == scout::Errc::invalid_argument);
    CHECK(catalog->record_outcome("post", {"chat", "nope"}, Outcome::success).code() ==
          scout::Errc::not_found);
    CHECK(catalog->record_outcome("post", {"nope", "post_note"}, Outcome::success).code() ==
          scout::Errc::not_found);
    CHECK(catalog->record_outcome("post", {"chat", "post_note"}, static_cast<Outcome>(7)).code() ==
          scout::Errc::invalid_argument);
}

TEST_CASE("the prior is bounded and decays", "[outcomes]") {
    scout::detail::OutcomePrior prior;
    const auto& lim = scout::detail::OutcomePrior::limits();
    for (std::size_t n = 0; n < lim.max_terms + 3000; ++n) {
        const std::vector<std::string> terms = {std::string("w").append(std::to_string(n)),
                                                "shared"};
        prior.record(
            terms, std::string("s\nt").append(std::to_string(n % (lim.max_tools + 500))), true);
    }
    CHECK(prior.tools().size() <= lim.max_tools);
    CHECK(prior.terms().size() <= lim.max_terms);
    for (const auto& [term, tools] : prior.terms()) {
        CHECK(tools.size() <= lim.max_tools_per_term);
    }

    scout::detail::OutcomePrior fresh;
    const std::vector<std::string> terms = {"deploy"};
    fresh.record(terms, "ci\nrollback", true);
    const double early = fresh.endorsement(terms, "ci\nrollback");
    CHECK(early > 0);
    CHECK(early < 1);
    const std::vector<std::string> other = {"unrelated"};
    for (int n = 0; n < 4000; ++n) {  // two half-lives of other outcomes
        fresh.record(other, "ci\nother", true);
    }
    CHECK(fresh.endorsement(terms, "ci\nrollback") < early);
    CHECK(fresh.endorsement(other, "ci\nrollback") == 0);
}

TEST_CASE("a searcher keeps the prior it was made with while outcomes go on", "[outcomes]") {
    auto catalog = scout::Catalog::create();
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_servers(twin_catalog()).ok());
    REQUIRE(catalog->commit().ok());
    const std::string query = "post to the channel";
    REQUIRE(catalog->record_outcome(query, {"chat", "post_memo"}, Outcome::success).ok());
    const scout::Searcher pinned = catalog->searcher();
    const scout::SearchOptions options{.top_k = 2, .outcome_prior = true};
    auto scores = [&](const scout::Searcher& searcher) {
        auto r = searcher.search(query, options);
        REQUIRE(r.ok());
        std::vector<std::string> out;
        for (const scout::Hit& h : r->hits) {
            out.push_back(h.tool + std::string(" ").append(std::to_string(h.score)));
        }
        return out;
    };
    const std::vector<std::string> before = scores(pinned);
    for (int n = 0; n < 500; ++n) {
        const std::string words = std::string("post note channel w").append(std::to_string(n));
        REQUIRE(catalog->record_outcome(query, {"chat", "post_memo"}, Outcome::failure).ok());
        REQUIRE(catalog->record_outcome(words, {"chat", "post_note"}, Outcome::success).ok());
    }
    CHECK(scores(pinned) == before);
    CHECK(scores(catalog->searcher()) != before);
}

TEST_CASE("a copy of the prior is unchanged by records into a later copy", "[outcomes]") {
    scout::detail::OutcomePrior first;
    for (int n = 0; n < 200; ++n) {
        const std::vector<std::string> terms = {std::string("w").append(std::to_string(n % 40)),
                                                "deploy"};
        first.record(terms, std::string("s\nt").append(std::to_string(n % 25)), n % 4 != 0);
    }
    const scout::detail::OutcomePrior kept = first;
    const auto tools = kept.tools();
    const auto terms = kept.terms();
    const std::vector<std::string> query = {"deploy", "w3"};
    const double endorsed = kept.endorsement(query, "s\nt3");
    REQUIRE(endorsed > 0);

    // Past both caps, so records change and evict entries of pieces the copies share.
    const auto& lim = scout::detail::OutcomePrior::limits();
    scout::detail::OutcomePrior later = first;
    for (std::size_t n = 0; n < lim.max_terms + 2000; ++n) {
        const std::vector<std::string> more = {
            std::string("x").append(std::to_string(n)), "w3", "deploy"};
        later.record(more,
                     std::string("s\nt").append(std::to_string(n % (lim.max_tools + 300))),
                     n % 2 == 0);
    }
    CHECK(later.endorsement(query, "s\nt3") != endorsed);
    CHECK(kept.tools() == tools);
    CHECK(kept.terms() == terms);
    CHECK(kept.endorsement(query, "s\nt3") == endorsed);
    CHECK(first.tools() == tools);
    CHECK(first.terms() == terms);
}

TEST_CASE("the bounds hold after every record at the caps, the heaviest entries stay",
          "[outcomes]") {
    scout::detail::OutcomePrior prior;
    const auto& lim = scout::detail::OutcomePrior::limits();
    const std::vector<std::string> kept = {"rollback", "deploy"};
    bool bounded = true;
    for (std::size_t n = 0; n < 3 * lim.max_terms; ++n) {
        if (n % 50 == 0) {
            prior.record(kept, "ci\nrollback", true);
        }
        const std::vector<std::string> terms = {std::string("a").append(std::to_string(n)),
                                                std::string("b").append(std::to_string(n))};
        prior.record(
            terms, std::string("s\nt").append(std::to_string(n % (2 * lim.max_tools))), true);
        bounded =
            bounded && prior.tool_count() <= lim.max_tools && prior.term_count() <= lim.max_terms;
    }
    CHECK(bounded);
    const auto tools = prior.tools();
    const auto terms = prior.terms();
    CHECK(tools.size() == prior.tool_count());
    CHECK(terms.size() == prior.term_count());
    CHECK(tools.size() > lim.max_tools / 2);
    CHECK(terms.size() > lim.max_terms / 2);
    for (const auto& [term, of_term] : terms) {
        CHECK(of_term.size() <= lim.max_tools_per_term);
    }
    CHECK(tools.contains("ci\nrollback"));
    CHECK(terms.contains("rollback"));
    CHECK(prior.endorsement(kept, "ci\nrollback") > 0);
}

TEST_CASE("the prior survives save and open, a damaged OUTC section is corrupt", "[outcomes]") {
    scout::test::TempDir dir;
    auto catalog = scout::Catalog::create();
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_servers(twin_catalog()).ok());
    REQUIRE(catalog->commit().ok());
    const std::string query = "post to the channel";
    auto second = catalog->searcher().search(query, {.top_k = 2});
    REQUIRE(second.ok());
    const scout::ToolKey runner_up{second->hits[1].server, second->hits[1].tool};
    REQUIRE(catalog->record_outcome(query, runner_up, Outcome::success).ok());
    const std::vector<std::string> learned = ranking(*catalog, query, true, 3);
    REQUIRE(catalog->save(dir.file("a.scoutidx")).ok());
    auto opened = scout::Catalog::open(dir.file("a.scoutidx"));
    REQUIRE(opened.ok());
    CHECK(ranking(*opened, query, true, 3) == learned);
    auto info = scout::inspect_index_file(dir.file("a.scoutidx"));
    REQUIRE(info.ok());
    CHECK(info->format_minor == scout::kIndexFormatMinor);

    scout::detail::OutcomePrior prior;
    const std::vector<std::string> terms = {"post", "channel"};
    prior.record(terms, "chat\npost_memo", true);
    prior.record(terms, "chat\npost_note", false);
    const std::string bytes = scout::detail::encode_outcomes(prior);
    auto span_of = [](const std::string& s) {
        return std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(s.data()),
                                             s.size());
    };
    auto back = scout::detail::decode_outcomes(span_of(bytes));
    REQUIRE(back.ok());
    CHECK(back->endorsement(terms, "chat\npost_memo") ==
          prior.endorsement(terms, "chat\npost_memo"));
    CHECK(scout::detail::encode_outcomes(back.value()) == bytes);
    for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
        CHECK(scout::detail::decode_outcomes(span_of(bytes.substr(0, cut))).status().code() ==
              scout::Errc::corrupt);
    }
    std::string longer = bytes;
    longer.push_back('x');
    CHECK(scout::detail::decode_outcomes(span_of(longer)).status().code() == scout::Errc::corrupt);
    std::string future = bytes;
    future[0] = 0;  // the prior's tick now precedes its entries'
    CHECK(scout::detail::decode_outcomes(span_of(future)).status().code() == scout::Errc::corrupt);
    // One encoding per prior: keys out of order, or repeated, are corrupt rather than re-sorted.
    auto renamed = [&](std::string_view from, std::string_view to) {
        std::string s = bytes;
        for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + 1)) {
            s.replace(at, from.size(), to);
        }
        return s;
    };
    const std::string unordered = renamed("post_memo", "post_zzzz");
    REQUIRE(unordered != bytes);
    CHECK(scout::detail::decode_outcomes(span_of(unordered)).status().code() ==
          scout::Errc::corrupt);
    const std::string repeated = renamed("post_note", "post_memo");
    CHECK(scout::detail::decode_outcomes(span_of(repeated)).status().code() ==
          scout::Errc::corrupt);
}

TEST_CASE("outcomes recorded while searches and commits run", "[outcomes][concurrency]") {
    auto catalog = scout::Catalog::create();
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_servers(scout::testing::small_catalog()).ok());
    REQUIRE(catalog->commit().ok());
    std::atomic<bool> stop{false};
    std::atomic<int> searches{0};
    std::vector<std::thread> readers;
    for (int t = 0; t < 2; ++t) {
        readers.emplace_back([&] {
            while (!stop.load()) {
                auto r = catalog->searcher().search("send a message",
                                                    {.top_k = 3, .outcome_prior = true});
                if (r.ok() && !r->hits.empty()) {
                    searches.fetch_add(1);
                }
            }
        });
    }
    std::thread committer([&] {
        for (int n = 0; n < 20; ++n) {
            (void)catalog->commit();
        }
    });
    for (int n = 0; n < 300; ++n) {
        const Outcome o = n % 3 == 0 ? Outcome::failure : Outcome::success;
        REQUIRE(catalog->record_outcome("send a chat message", {"teams", "send_message"}, o).ok());
    }
    committer.join();
    while (searches.load() < 50) {
        std::this_thread::yield();
    }
    stop = true;
    for (std::thread& t : readers) {
        t.join();
    }
    auto r = catalog->searcher().search("send a message", {.top_k = 3, .outcome_prior = true});
    REQUIRE(r.ok());
    CHECK(r->hits.front().tool == "send_message");
}
