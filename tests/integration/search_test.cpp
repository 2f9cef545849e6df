// search_test.cpp: Catalog + Searcher end to end on a small hand-made catalog.
#include <catch2/catch.hpp>

#include "scout/catalog.hpp"

#include "support/test_catalogs.hpp"

using namespace scout;

namespace {

Catalog make(std::shared_ptr<Embedder> embedder = std::make_shared<HashingEmbedder>(128)) {
    auto catalog = Catalog::create({}, std::move(embedder));
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_servers(testing::small_catalog()).ok());
    auto info = catalog->commit();
    REQUIRE(info.ok());
    return std::move(catalog.value());
}

/// The BM25 hits of `query` over `spec` indexed with `options`.
std::vector<Hit> bm25_hits(const CatalogSpec& spec,
                           const CatalogOptions& options,
                           std::string_view query) {
    auto catalog = Catalog::create(options);
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_servers(spec).ok());
    REQUIRE(catalog->commit().ok());
    auto r = catalog->searcher().search(query, {.mode = Mode::bm25});
    REQUIRE(r.ok());
    return r->hits;
}

SearchResult search(const Catalog& c, std::string_view q, SearchOptions o = {}) {
    auto r = c.searcher().search(q, o);
    REQUIRE(r.ok());
    return std::move(r.value());
}

}  // namespace

TEST_CASE("hybrid search returns complete hits, best first", "[search]") {
    const Catalog c = make();
    // Plain RRF (the paper's fusion), so the fused score has a closed form.
    SearchOptions rrf;
    rrf.fusion = FusionOptions{.method = FusionMethod::rrf};
    const SearchResult r = search(c, "open a new pull request", rrf);
    CHECK(r.mode == Mode::hybrid);
    CHECK_FALSE(r.degraded);
    CHECK(r.generation == 1);
    REQUIRE(r.hits.size() == 5);
    const Hit& top = r.hits[0];
    CHECK(top.name == "github_create_pull_request");
    CHECK(top.server == "github");
    CHECK(top.tool == "create_pull_request");
    CHECK(top.description == "Open a new pull request from a branch.");
    CHECK(top.input_schema.find("\"required\":[\"repo\",\"head\"]") != std::string::npos);
    CHECK(top.annotations == R"({"readOnlyHint":false})");
    CHECK(top.bm25_rank == 1);
    CHECK(top.dense_rank >= 1);
    CHECK(top.score == Approx(1.0 / 61 + 1.0 / (60 + top.dense_rank)));
    for (std::size_t i = 1; i < r.hits.size(); ++i) {
        CHECK(r.hits[i - 1].score >= r.hits[i].score);
    }
}

TEST_CASE("top_k defaults to 5 and is clamped to [1, 20]", "[search]") {
    const Catalog c = make();
    CHECK(search(c, "list").hits.size() == 5);
    CHECK(search(c, "list", {.top_k = 0}).hits.size() == 1);
    CHECK(search(c, "list", {.top_k = 1000}).hits.size() <= SearchOptions::kMaxTopK);
    CHECK(search(c, "list", {.top_k = 1000, .mode = Mode::dense}).hits.size() ==
          9);  // every active tool
}

TEST_CASE("single-branch modes report only their branch", "[search]") {
    const Catalog c = make();
    const SearchResult bm25 = search(c, "merge pull request", {.mode = Mode::bm25});
    CHECK(bm25.mode == Mode::bm25);
    REQUIRE_FALSE(bm25.hits.empty());
    CHECK(bm25.hits[0].tool == "merge_pull_request");
    for (const Hit& h : bm25.hits) {
        CHECK(h.dense_rank == 0);
        CHECK(h.score == h.bm25_score);
    }
    const SearchResult dense = search(c, "merge pull request", {.mode = Mode::dense});
    CHECK(dense.mode == Mode::dense);
    for (const Hit& h : dense.hits) {
        CHECK(h.bm25_rank == 0);
        CHECK(h.dense_score <= 1.0f + 1e-5f);
    }
}

TEST_CASE("inactive servers are not searchable, status changes need a commit", "[search]") {
    Catalog c = make();
    CHECK(search(c, "support ticket", {.mode = Mode::bm25}).hits.empty());
    REQUIRE(c.set_server_status("legacy", ServerStatus::active).ok());
    CHECK(search(c, "support ticket", {.mode = Mode::bm25}).hits.empty());  // staged only
    REQUIRE(c.commit().ok());
    const SearchResult r = search(c, "support ticket", {.mode = Mode::bm25});
    REQUIRE_FALSE(r.hits.empty());
    CHECK(r.hits[0].server == "legacy");
    REQUIRE(c.set_server_status("github", ServerStatus::degraded).ok());
    REQUIRE(c.commit().ok());
    for (const Hit& h : search(c, "pull request", {.top_k = 20}).hits) {
        CHECK(h.server != "github");
    }
}

TEST_CASE("scope and environment restrict results inside retrieval", "[search]") {
    const Catalog c = make();
    const SearchResult prod = search(c, "run sql query", {.environment = std::string("prod")});
    REQUIRE_FALSE(prod.hits.empty());
    for (const Hit& h : prod.hits) {
        CHECK(h.server == "warehouse-prod");
    }
    const SearchResult mine =
        search(c, "pull request", {.servers = std::vector<std::string>{"teams", "no-such-server"}});
    REQUIRE_FALSE(mine.hits.empty());
    for (const Hit& h : mine.hits) {
        CHECK(h.server == "teams");
    }
    CHECK(search(c, "pull request", {.servers = std::vector<std::string>{}}).hits.empty());
}

TEST_CASE("a searcher keeps its generation across commits", "[search]") {
    Catalog c = make();
    const Searcher before = c.searcher();
    REQUIRE(c.remove_server("github").ok());
    REQUIRE(c.commit().ok());
    const Searcher after = c.searcher();
    CHECK(before.generation() == 1);
    CHECK(after.generation() == 2);
    auto old_hits = before.search("pull request", {.mode = Mode::bm25});
    REQUIRE(old_hits.ok());
    REQUIRE_FALSE(old_hits->hits.empty());
    CHECK(old_hits->hits[0].server == "github");
    auto new_hits = after.search("pull request", {.mode = Mode::bm25});
    REQUIRE(new_hits.ok());
    for (const Hit& h : new_hits->hits) {
        CHECK(h.server != "github");
    }
}

TEST_CASE("resolve, find and list_tools", "[search]") {
    const Catalog c = make();
    const Searcher s = c.searcher();
    CHECK(s.size() == 9);
    auto key = s.resolve("warehouse-dev_run_query");
    REQUIRE(key.has_value());
    CHECK(key->server == "warehouse-dev");
    CHECK(key->tool == "run_query");
    CHECK_FALSE(s.resolve("legacy_create_ticket").has_value());  // inactive
    auto hit = s.find("teams", "send_message");
    REQUIRE(hit.has_value());
    CHECK(hit->name == "teams_send_message");
    CHECK_FALSE(s.find("teams", "nope").has_value());
    CHECK_FALSE(s.find("nope", "send_message").has_value());
    CHECK(s.list_tools().size() == 9);
    CHECK(s.list_tools({.environment = std::string("dev")}).size() == 2);
}

TEST_CASE("bad queries and bad catalog input get clear errors", "[search]") {
    Catalog c = make();
    const Searcher s = c.searcher();
    for (const std::string& q :
         {std::string(), std::string("bad\xFF"), std::string(Searcher::kMaxQueryBytes + 1, 'a')}) {
        auto r = s.search(q);
        REQUIRE_FALSE(r.ok());
        CHECK(r.status().code() == Errc::invalid_argument);
    }
    CHECK(c.upsert_server({"", "", "", "", ServerStatus::active, {}}).code() ==
          Errc::invalid_argument);
    CHECK(c.upsert_server({"bad\xC3", "", "", "", ServerStatus::active, {}}).code() ==
          Errc::invalid_argument);
    ServerSpec dup{
        "dup", "", "", "", ServerStatus::active, {{"t", "", "", "", ""}, {"t", "", "", "", ""}}};
    CHECK(c.upsert_server(dup).message().find("duplicate tool name") != std::string::npos);
    ServerSpec schema{"s", "", "", "", ServerStatus::active, {{"t", "", "", "[1]", ""}}};
    CHECK(c.upsert_server(schema).code() == Errc::invalid_argument);
    ServerSpec huge{"s",
                    "",
                    "",
                    "",
                    ServerStatus::active,
                    {{"t", "", std::string(kMaxDescriptionBytes + 1, 'x'), "", ""}}};
    CHECK(c.upsert_server(huge).message().find("over the limit") != std::string::npos);
    CHECK(c.upsert_tool("no-such", {"t", "", "", "", ""}).code() == Errc::not_found);
    CHECK(c.remove_tool("github", "nope").code() == Errc::not_found);
    CHECK(c.remove_server("nope").code() == Errc::not_found);
    // Nothing above changed the staged state.
    REQUIRE(c.commit().ok());
    CHECK(c.searcher().size() == 9);
}

TEST_CASE("an empty catalog says so", "[search]") {
    auto c = Catalog::create();
    REQUIRE(c.ok());
    auto r = c->searcher().search("anything");
    REQUIRE(r.ok());
    CHECK(r->catalog_empty);
    CHECK(r->hits.empty());
    REQUIRE(c->commit().ok());
    CHECK(c->searcher().search("anything")->catalog_empty);
    auto def = Searcher().search("x");
    REQUIRE(def.ok());
    CHECK(def->catalog_empty);
}

TEST_CASE("upsert_tool replaces one tool and the change is visible after commit", "[search]") {
    Catalog c = make();
    REQUIRE(c.upsert_tool("teams", {"send_message", "", "Post a chat note with a zebra.", "", ""})
                .ok());
    REQUIRE(c.commit().ok());
    auto r = c.searcher().search("zebra", {.mode = Mode::bm25});
    REQUIRE(r.ok());
    REQUIRE(r->hits.size() == 1);
    CHECK(r->hits[0].name == "teams_send_message");
    REQUIRE(c.remove_tool("teams", "send_message").ok());
    REQUIRE(c.commit().ok());
    CHECK(c.searcher().search("zebra", {.mode = Mode::bm25})->hits.empty());
}

TEST_CASE("a query that names a tool exactly gets it first", "[search]") {
    const Catalog c = make();
    auto by_enhanced = c.searcher().search("teams_list_channels");
    REQUIRE(by_enhanced.ok());
    CHECK(by_enhanced->hits[0].name == "teams_list_channels");
    // A plain name shared by two servers puts both first; a scope keeps only its own.
    auto shared = c.searcher().search(" `list_tables` ", {.top_k = 3});
    REQUIRE(shared.ok());
    REQUIRE(shared->hits.size() == 3);
    CHECK(shared->hits[0].tool == "list_tables");
    CHECK(shared->hits[1].tool == "list_tables");
    CHECK(shared->hits[0].server != shared->hits[1].server);
    auto scoped =
        c.searcher().search("list_tables", {.servers = std::vector<std::string>{"github"}});
    REQUIRE(scoped.ok());
    for (const Hit& h : scoped->hits) {
        CHECK(h.server == "github");
    }
    // Without the short-circuit, a plain name shared by servers ranks by score only: the
    // second hit is then not forced to be the other list_tables.
    auto off = c.searcher().search("list_tables",
                                   {.top_k = 20, .mode = Mode::bm25, .exact_name_first = false});
    REQUIRE(off.ok());
    CHECK(off->hits.size() > 2);
    auto top1 = c.searcher().search("merge_pull_request", {.top_k = 1});
    REQUIRE(top1->hits.size() == 1);
    CHECK(top1->hits[0].tool == "merge_pull_request");
}

TEST_CASE("exact_name_first overturns the ranking, and only it does", "[search]") {
    // "get" is a tool's whole name, but the other tool says "get" more often and ranks first
    // by score; only the short-circuit puts the named tool first, even when it is outside the
    // ranked list (a scope filter hides nothing here; top_k 1 cuts everything else).
    CatalogSpec spec;
    spec.servers.push_back(
        {"pages",
         "Web pages.",
         "",
         "",
         ServerStatus::active,
         {{"get",
           "",
           "One stored document by its numeric identifier from the archive, with its "
           "revision history, owners, labels, attachments, comments and retention policy.",
           "",
           ""},
          {"get_page", "", "Get a page: get the page, get its links, get its text.", "", ""}}});
    auto catalog = Catalog::create();
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_servers(spec).ok());
    REQUIRE(catalog->commit().ok());
    const Searcher s = catalog->searcher();
    auto off = s.search("get", {.top_k = 1, .mode = Mode::bm25, .exact_name_first = false});
    REQUIRE(off.ok());
    REQUIRE(off->hits.size() == 1);
    CHECK(off->hits[0].tool == "get_page");
    auto on = s.search("get", {.top_k = 1, .mode = Mode::bm25});
    REQUIRE(on.ok());
    REQUIRE(on->hits.size() == 1);
    CHECK(on->hits[0].tool == "get");
    CHECK(on->hits[0].input_schema == R"({"type":"object"})");  // materialized in full
    auto enhanced = s.search("pages_get", {.top_k = 2, .mode = Mode::bm25});
    REQUIRE(enhanced.ok());
    REQUIRE_FALSE(enhanced->hits.empty());
    CHECK(enhanced->hits[0].name == "pages_get");
}

TEST_CASE("lexicon expansion bridges abbreviations in the BM25 branch", "[search]") {
    const Catalog with = make(nullptr);
    auto r = with.searcher().search("raise a PR", {.mode = Mode::bm25});
    REQUIRE(r.ok());
    REQUIRE_FALSE(r->hits.empty());
    CHECK(r->hits[0].server == "github");
    CatalogOptions off;
    off.expansion.lexicon = false;
    auto without = Catalog::create(off);
    REQUIRE(without.ok());
    REQUIRE(without->upsert_servers(testing::small_catalog()).ok());
    REQUIRE(without->commit().ok());
    auto none = without->searcher().search("raise a PR", {.mode = Mode::bm25});
    REQUIRE(none.ok());
    CHECK(none->hits.empty());
}

TEST_CASE("the query's action separates sibling tools that share every other word", "[search]") {
    CatalogSpec spec;
    spec.servers.push_back({"ci",
                            "Continuous integration builds.",
                            "engineering",
                            "",
                            ServerStatus::active,
                            {{"list_artifacts", "", "List the build artifacts of a build.", "", ""},
                             {"get_artifact", "", "Get one build artifact of a build.", "", ""},
                             {"delete_artifact", "", "Delete a build artifact.", "", ""},
                             {"update_artifact", "", "Update a build artifact.", "", ""}}});
    const auto top = [&](const CatalogOptions& options, std::string_view query) {
        const std::vector<Hit> hits = bm25_hits(spec, options, query);
        REQUIRE_FALSE(hits.empty());
        return hits[0].tool;
    };
    const CatalogOptions with;
    CatalogOptions without;
    without.expansion.action_weight = 0.0f;
    // Plural "artifacts" matches the list tool's words best; the action term outweighs it.
    CHECK(top(without, "remove build artifacts") == "list_artifacts");
    CHECK(top(with, "remove build artifacts") == "delete_artifact");
    CHECK(top(with, "erase the build artifacts") == "delete_artifact");
    CHECK(top(with, "show me the build artifacts") == "list_artifacts");
    CHECK(top(with, "modify build artifacts") == "update_artifact");
}

TEST_CASE("the action boost settles near-ties between siblings, not clear differences",
          "[search]") {
    CatalogSpec spec;
    spec.servers.push_back(
        {"vault",
         "Key vault.",
         "",
         "",
         ServerStatus::active,
         {{"vault_key_get", "", "Shows a key of the vault with its keys", "", ""},
          {"vault_key_list", "", "List all keys of a vault.", "", ""},
          {"vault_secret_get", "", "Get one secret of a vault.", "", ""}}});
    const auto ranked = [&](float boost, std::string_view query) {
        CatalogOptions options;
        options.expansion.action_weight = 0.0f;  // the boost alone
        options.expansion.action_boost = boost;
        options.bm25.weights.word_pairs = 0.0f;
        options.expansion.pair_weight = 0.0f;
        std::vector<Hit> hits = bm25_hits(spec, options, query);
        REQUIRE(hits.size() == 3);
        return hits;
    };
    // A read query ("details" names no plural object): the get tool was 3% behind its sibling.
    const auto plain = ranked(0.0f, "show details of the vault keys");
    const auto boosted = ranked(0.05f, "show details of the vault keys");
    CHECK(plain[0].tool == "vault_key_list");
    CHECK(boosted[0].tool == "vault_key_get");
    CHECK(boosted[1].tool == "vault_key_list");
    // Scores of the read tools are scaled by exactly 1 + boost, the others are unchanged.
    for (const Hit& b : boosted) {
        const auto p = std::find_if(
            plain.begin(), plain.end(), [&](const Hit& h) { return h.tool == b.tool; });
        REQUIRE(p != plain.end());
        const bool read = b.tool.ends_with("_get");
        CHECK(b.score == Approx(p->score * (read ? 1.05f : 1.0f)));
    }
    // A clear difference is not overturned: a list query keeps the list tool first without the
    // boost and with it, and the secret tool, which matches "vault" alone, stays last.
    for (float boost : {0.0f, 0.05f}) {
        const auto list = ranked(boost, "list the keys of the vault");
        CHECK(list[0].tool == "vault_key_list");
        CHECK(list[2].tool == "vault_secret_get");
    }
}
