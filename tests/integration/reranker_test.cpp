// reranker_test.cpp: the learned re-ranker. Its weights file survives save and open and is
// refused, with a message that says why, when truncated, of another version or for other
// features; a model of zero weights leaves the fused order as it was; a feature's weight moves
// the candidate that has the feature.
#include "scout/reranker.hpp"

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"

#include "capi/json_bridge.hpp"
#include "support/temp_dir.hpp"
#include "support/test_catalogs.hpp"

namespace {

using scout::Reranker;
using scout::RerankFeature;

constexpr auto idx(RerankFeature f) {
    return static_cast<std::size_t>(f);
}

Reranker sample_model() {
    Reranker m;
    for (std::size_t i = 0; i < scout::kRerankFeatureCount; ++i) {
        m.weights[i] = (static_cast<double>(i) - 5.0) / 3.0 + 1e-9 * static_cast<double>(i);
    }
    m.bias = -0.1;
    m.depth = 7;
    return m;
}

scout::Catalog catalog_of(const scout::CatalogSpec& spec) {
    auto catalog = scout::Catalog::create();
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_servers(spec).ok());
    REQUIRE(catalog->commit().ok());
    return std::move(catalog.value());
}

std::vector<std::string> names_of(const scout::SearchResult& r) {
    std::vector<std::string> names;
    for (const scout::Hit& h : r.hits) {
        names.push_back(h.name);
    }
    return names;
}

/// Eight tools that all say "ledger", in descriptions of growing length: BM25 ranks them all,
/// in order.
scout::CatalogSpec ledger_catalog() {
    scout::CatalogSpec spec;
    spec.servers.push_back({"books", "Bookkeeping.", "", "", scout::ServerStatus::active, {}});
    std::string padding;
    for (int i = 0; i < 8; ++i) {
        spec.servers[0].tools.push_back(
            {"tool_" + std::to_string(i), "", "Reads the ledger." + padding, "", ""});
        padding += " Also notes item " + std::to_string(i) + " of the ledger.";
    }
    return spec;
}

}  // namespace

TEST_CASE("reranker weights survive save and open bit for bit", "[rerank]") {
    scout::test::TempDir dir;
    const Reranker model = sample_model();
    REQUIRE(model.save(dir.file("model.txt")).ok());
    auto opened = Reranker::open(dir.file("model.txt"));
    REQUIRE(opened.ok());
    CHECK(opened.value() == model);
    CHECK(opened->serialize() == model.serialize());
}

TEST_CASE("a truncated reranker file is refused", "[rerank]") {
    const std::string text = sample_model().serialize();
    // Every cut short of the last line end loses a line or part of one; only that final "\n"
    // is optional.
    for (std::size_t n = 0; n + 1 < text.size(); ++n) {
        auto parsed = Reranker::parse(text.substr(0, n));
        INFO("cut at byte " << n << " of " << text.size());
        REQUIRE_FALSE(parsed.ok());
        CHECK_FALSE(parsed.status().message().empty());
    }
    auto truncated = Reranker::parse(text.substr(0, text.find("bias")));
    REQUIRE_FALSE(truncated.ok());
    CHECK(truncated.status().message().find("truncated") != std::string::npos);
    CHECK(Reranker::parse(text.substr(0, text.size() - 1)).ok());
}

TEST_CASE("a reranker file of other features or another version is refused", "[rerank]") {
    const std::string text = sample_model().serialize();
    auto replaced = [&text](const std::string& from, const std::string& to) {
        std::string t = text;
        t.replace(t.find(from), from.size(), to);
        return Reranker::parse(t);
    };
    const std::string count = "features " + std::to_string(scout::kRerankFeatureCount);
    auto more = replaced(count, "features " + std::to_string(scout::kRerankFeatureCount + 1));
    REQUIRE_FALSE(more.ok());
    CHECK(more.status().message().find(std::to_string(scout::kRerankFeatureCount + 1) +
                                       " features") != std::string::npos);
    // Fewer features than listed: the bias line is met where a feature was expected.
    auto fewer = replaced(count, "features " + std::to_string(scout::kRerankFeatureCount - 1));
    REQUIRE_FALSE(fewer.ok());
    CHECK(fewer.status().message().find("bias") != std::string::npos);
    CHECK_FALSE(replaced(count, "features 0").ok());
    CHECK_FALSE(replaced(count, "features x").ok());

    auto renamed = replaced("cover_name", "cover_title");
    REQUIRE_FALSE(renamed.ok());
    CHECK(renamed.status().message().find("cover_name") != std::string::npos);

    auto newer = replaced("scout-reranker 1", "scout-reranker 2");
    REQUIRE_FALSE(newer.ok());
    CHECK(newer.status().code() == scout::Errc::version_unsupported);

    CHECK_FALSE(Reranker::parse("not a model\n").ok());
    CHECK_FALSE(replaced("bias -0.1", "bias nan").ok());
    CHECK_FALSE(replaced("bias -0.1", "bias 1e999").ok());
    CHECK_FALSE(Reranker::parse(text + "extra\n").ok());
    for (const char* depth : {"depth 0", "depth x", "depth 10001", "depth -1", "depth 7 7"}) {
        INFO(depth);
        auto bad = replaced("depth 7", depth);
        REQUIRE_FALSE(bad.ok());
        CHECK(bad.status().message().find("depth") != std::string::npos);
    }
    // Without its depth line the model re-orders every candidate.
    auto all = replaced("depth 7\n", "");
    REQUIRE(all.ok());
    CHECK(all->depth == 0);
    CHECK(all->serialize().find("depth") == std::string::npos);

    scout::test::TempDir dir;
    auto missing = Reranker::open(dir.file("absent.txt"));
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.status().code() == scout::Errc::not_found);
}

TEST_CASE("a reranker file of the first features only reads, the rest weighing 0", "[rerank]") {
    // A file trained before the per-field, late-interaction and margin features were added
    // lists the first 14.
    const Reranker model = sample_model();
    std::string text = "scout-reranker 1\nfeatures 14\n";
    for (std::size_t i = 0; i < 14; ++i) {
        const auto f = static_cast<RerankFeature>(i);
        text += std::string(scout::rerank_feature_name(f)) + " " +
                std::to_string(model.weights[i]) + "\n";
    }
    auto parsed = Reranker::parse(text + "bias 0.5\nend\n");
    REQUIRE(parsed.ok());
    for (std::size_t i = 0; i < scout::kRerankFeatureCount; ++i) {
        INFO(scout::rerank_feature_name(static_cast<RerankFeature>(i)));
        CHECK(parsed->weights[i] == (i < 14 ? std::stod(std::to_string(model.weights[i])) : 0.0));
    }
    CHECK(parsed->bias == 0.5);
    CHECK_FALSE(Reranker::parse(text + "bias 0.5\n").ok());  // no "end": truncated
}

TEST_CASE("a reranker of zero weights keeps the fused order", "[rerank]") {
    const scout::Catalog catalog = catalog_of(scout::testing::small_catalog());
    scout::SearchOptions plain;
    plain.top_k = 5;
    scout::SearchOptions reranked = plain;
    reranked.reranker = std::make_shared<const Reranker>();
    for (const char* query : {"open a pull request",
                              "send a chat message to the team",
                              "list the pull requests",
                              "merge"}) {
        auto a = catalog.searcher().search(query, plain);
        auto b = catalog.searcher().search(query, reranked);
        REQUIRE(a.ok());
        REQUIRE(b.ok());
        INFO(query);
        CHECK(names_of(a.value()) == names_of(b.value()));
    }
}

TEST_CASE("a reranker with a depth re-orders only the first candidates", "[rerank]") {
    const scout::Catalog catalog = catalog_of(ledger_catalog());
    const char* query = "ledger";
    scout::SearchOptions plain;
    plain.top_k = 6;
    plain.exact_name_first = false;
    auto fused = catalog.searcher().search(query, plain);
    REQUIRE(fused.ok());
    const std::vector<std::string> order = names_of(fused.value());
    REQUIRE(order.size() == 6);

    // BM25's reciprocal rank weighed negatively turns the candidates BM25 ranked upside down.
    Reranker reverse;
    reverse.weights[idx(RerankFeature::bm25_reciprocal_rank)] = -10.0;
    scout::SearchOptions reranked = plain;
    reverse.depth = 2;
    reranked.reranker = std::make_shared<const Reranker>(reverse);
    auto two = catalog.searcher().search(query, reranked);
    REQUIRE(two.ok());
    const std::vector<std::string> first_two = names_of(two.value());
    REQUIRE(first_two.size() == order.size());
    CHECK(first_two[0] == order[1]);
    CHECK(first_two[1] == order[0]);
    CHECK(std::equal(order.begin() + 2, order.end(), first_two.begin() + 2));
    for (std::size_t i = 1; i < two->hits.size(); ++i) {
        CHECK(two->hits[i].score <= two->hits[i - 1].score);
    }

    reverse.depth = 0;
    reranked.reranker = std::make_shared<const Reranker>(reverse);
    auto every = catalog.searcher().search(query, reranked);
    REQUIRE(every.ok());
    // Re-ordering every fused candidate brings ones from past the first six into view.
    CHECK(names_of(every.value()) != first_two);
    CHECK(every->hits[0].name != order[0]);
}

TEST_CASE("training rows of a depth are the features a model of that depth reads", "[rerank]") {
    const scout::Catalog catalog = catalog_of(ledger_catalog());
    const char* query = "ledger item";
    scout::SearchOptions dump;
    dump.top_k = 5;
    dump.exact_name_first = false;
    dump.rerank_candidates = true;
    auto every = catalog.searcher().search(query, dump);
    REQUIRE(every.ok());
    REQUIRE(every->candidates.size() == 8);
    dump.rerank_candidates_depth = 4;
    auto four = catalog.searcher().search(query, dump);
    REQUIRE(four.ok());
    REQUIRE(four->candidates.size() == 4);
    // The same first candidates, but features relative to the best of the four differ.
    bool any_differs = false;
    for (std::size_t i = 0; i < 4; ++i) {
        CHECK(four->candidates[i].key.tool == every->candidates[i].key.tool);
        any_differs = any_differs || four->candidates[i].features != every->candidates[i].features;
    }
    CHECK(any_differs);

    // A model of depth 4 orders the first four as its training rows score them. The model is
    // one whose order of the four differs when their features are computed over all eight, so
    // that features over the wrong candidates would show.
    const auto order_by = [](const Reranker& m, const std::vector<scout::RerankCandidate>& rows) {
        std::vector<std::pair<double, std::string>> scored;
        for (std::size_t i = 0; i < 4; ++i) {
            std::array<float, scout::kRerankFeatureCount> row{};
            std::copy(rows[i].features.begin(), rows[i].features.end(), row.begin());
            scored.emplace_back(m.score(row), rows[i].key.tool);
        }
        std::stable_sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) {
            return x.first > y.first;
        });
        std::vector<std::string> names;
        for (const auto& [score, name] : scored) {
            names.push_back(name);
        }
        return names;
    };
    Reranker model;
    model.depth = 4;
    bool sensitive = false;
    for (int a = 1; a <= 8 && !sensitive; ++a) {
        for (int b = -8; b <= 0 && !sensitive; ++b) {
            model.weights[idx(RerankFeature::bm25_description)] = a;
            model.weights[idx(RerankFeature::bm25_relative)] = b;
            sensitive = order_by(model, four->candidates) != order_by(model, every->candidates);
        }
    }
    REQUIRE(sensitive);
    const std::vector<std::string> expected = order_by(model, four->candidates);
    scout::SearchOptions options;
    options.top_k = 5;
    options.exact_name_first = false;
    options.reranker = std::make_shared<const Reranker>(model);
    auto reranked = catalog.searcher().search(query, options);
    REQUIRE(reranked.ok());
    REQUIRE(reranked->hits.size() == 5);
    for (std::size_t i = 0; i < 4; ++i) {
        INFO(i);
        CHECK(reranked->hits[i].tool == expected[i]);
    }
    CHECK(reranked->hits[4].tool == every->candidates[4].key.tool);
}

TEST_CASE("a tool whose name the query holds is raised by the name feature", "[rerank]") {
    scout::CatalogSpec spec;
    // Many words of the query are in the mailer's description; the tool named by the query has a
    // terse one, so the fused order puts the mailer first.
    spec.servers.push_back(
        {"mail",
         "Electronic mail.",
         "",
         "",
         scout::ServerStatus::active,
         {{"send_email", "", "Deliver it.", "", ""},
          {"compose_message",
           "",
           "Please write a short email to the team now, an email message to send to the team.",
           "",
           ""}}});
    const scout::Catalog catalog = catalog_of(spec);
    const std::string query = "please send email to the team now";

    scout::SearchOptions options;
    options.rerank_candidates = true;
    options.exact_name_first = false;
    auto fused = catalog.searcher().search(query, options);
    REQUIRE(fused.ok());
    REQUIRE(fused->hits.size() == 2);
    REQUIRE(fused->hits[0].tool == "compose_message");
    REQUIRE(fused->candidates.size() == 2);
    for (const scout::RerankCandidate& c : fused->candidates) {
        REQUIRE(c.features.size() == scout::kRerankFeatureCount);
        const float named = c.features[idx(RerankFeature::name_in_query)];
        CHECK(named == (c.key.tool == "send_email" ? 1.0f : 0.0f));
    }

    Reranker names_only;
    names_only.weights[idx(RerankFeature::name_in_query)] = 4.0;
    options.reranker = std::make_shared<const Reranker>(names_only);
    auto reranked = catalog.searcher().search(query, options);
    REQUIRE(reranked.ok());
    REQUIRE(reranked->hits.size() == 2);
    CHECK(reranked->hits[0].tool == "send_email");
    CHECK(reranked->hits[0].score > reranked->hits[1].score);
}

TEST_CASE("the search options JSON names a reranker file by path", "[rerank]") {
    using scout::detail::search_request_from_json;
    scout::test::TempDir dir;
    const Reranker model = sample_model();
    REQUIRE(model.save(dir.file("model.txt")).ok());
    const std::string path = dir.file("model.txt");

    auto named = search_request_from_json(R"({"rerank": ")" + path + R"("})", scout::Mode::hybrid);
    REQUIRE(named.ok());
    REQUIRE(named->options.reranker != nullptr);
    CHECK(*named->options.reranker == model);

    auto none = search_request_from_json(R"({"rerank": null})", scout::Mode::hybrid);
    REQUIRE(none.ok());
    CHECK(none->options.reranker == nullptr);

    auto wrong_type = search_request_from_json(R"({"rerank": 3})", scout::Mode::hybrid);
    REQUIRE_FALSE(wrong_type.ok());
    CHECK(wrong_type.status().message().find("'rerank'") != std::string::npos);

    auto missing = search_request_from_json(R"({"rerank": ")" + dir.file("absent.txt") + R"("})",
                                            scout::Mode::hybrid);
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.status().code() == scout::Errc::not_found);
}
