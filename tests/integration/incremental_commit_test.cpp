// incremental_commit_test.cpp: a catalog edited and committed step by step answers every query
// exactly as a catalog built from scratch from the same final servers and tools (same hits, same
// scores), whatever the sequence of upserts, removals, status changes and commits.
#include <algorithm>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "scout/scout.hpp"

#include "support/sanitized.hpp"

namespace {

const std::vector<std::string> kWords = {
    "invoice", "ticket", "customer", "refund",   "payment", "report",  "user",   "account",
    "search",  "create", "delete",   "update",   "list",    "export",  "import", "schedule",
    "meeting", "email",  "calendar", "file",     "upload",  "archive", "merge",  "branch",
    "deploy",  "metric", "alert",    "incident", "query",   "table",   "index",  "cluster"};

class Model {
public:
    explicit Model(std::uint32_t seed) : rng_(seed) {}

    std::string word() { return kWords[pick(kWords.size())]; }

    /// A description of common words plus words used once, so replaced documents leave terms
    /// behind that no document uses any more.
    std::string description() {
        std::string text = word() + " " + word() + " " + word();
        for (int i = 0; i < 12; ++i) {
            text += " u" + std::to_string(unique_++);
        }
        return text;
    }

    scout::ToolSpec tool(const std::string& name) {
        return {name,
                "",
                description(),
                R"({"type":"object","properties":{")" + word() + R"(":{"type":"string"}}})",
                ""};
    }

    /// An environment label, or none.
    std::string environment() {
        static const std::vector<std::string> kEnvironments = {"", "prod", "dev"};
        return kEnvironments[pick(kEnvironments.size())];
    }

    scout::ServerSpec server(const std::string& name) {
        scout::ServerSpec s{name, word() + " " + word() + " service", "", environment(), {}, {}};
        const std::size_t tools = 1 + pick(6);
        for (std::size_t i = 0; i < tools; ++i) {
            s.tools.push_back(tool(word() + "_" + std::to_string(i)));
        }
        // Tool names may repeat: keep the last, as staging does.
        std::map<std::string, scout::ToolSpec> unique;
        for (scout::ToolSpec& t : s.tools) {
            unique[t.name] = std::move(t);
        }
        s.tools.clear();
        for (auto& [n, t] : unique) {
            s.tools.push_back(std::move(t));
        }
        return s;
    }

    std::size_t pick(std::size_t n) {
        return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_);
    }

private:
    std::mt19937 rng_;
    std::size_t unique_ = 0;
};

std::vector<scout::Hit> search(const scout::Catalog& catalog,
                               const std::string& query,
                               scout::Mode mode) {
    scout::SearchOptions opt;
    opt.mode = mode;
    opt.top_k = scout::SearchOptions::kMaxTopK;
    auto r = catalog.searcher().search(query, opt);
    REQUIRE(r.ok());
    return r->hits;
}

/// The same hits in the same order with bit-identical scores.
void require_same(const std::vector<scout::Hit>& got,
                  const std::vector<scout::Hit>& want,
                  const std::string& query) {
    INFO("query: " << query);
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        INFO("rank " << i << ": " << got[i].name << " vs " << want[i].name);
        CHECK(got[i].id == want[i].id);
        CHECK(got[i].name == want[i].name);
        CHECK(got[i].description == want[i].description);
        CHECK(got[i].input_schema == want[i].input_schema);
        CHECK(got[i].score == want[i].score);
        CHECK(got[i].bm25_score == want[i].bm25_score);
        CHECK(got[i].dense_score == want[i].dense_score);
        CHECK(got[i].bm25_rank == want[i].bm25_rank);
        CHECK(got[i].dense_rank == want[i].dense_rank);
    }
}

/// Builds a catalog from scratch from `servers` and compares it with `live` over queries of
/// every kind (one word, two words, a tool name, a word used once) in every mode.
void require_same_as_fresh(const scout::Catalog& live,
                           const std::map<std::string, scout::ServerSpec>& servers,
                           Model& model) {
    scout::CatalogSpec spec;
    for (const auto& [name, s] : servers) {
        spec.servers.push_back(s);
    }
    auto fresh = scout::Catalog::create({}, std::make_shared<scout::HashingEmbedder>(32));
    REQUIRE(fresh.ok());
    REQUIRE(fresh->upsert_servers(spec).ok());
    REQUIRE(fresh->commit().ok());
    REQUIRE(live.searcher().size() == fresh->searcher().size());

    std::vector<std::string> queries = {model.word(), model.word() + " " + model.word(), "u7"};
    if (!spec.servers.empty() && !spec.servers.front().tools.empty()) {
        queries.push_back(spec.servers.front().tools.front().name);
    }
    for (const std::string& q : queries) {
        for (scout::Mode mode : {scout::Mode::bm25, scout::Mode::dense, scout::Mode::hybrid}) {
            require_same(search(live, q, mode), search(*fresh, q, mode), q);
        }
    }
    // The servers' records: the ACTIVE servers by name, and a scope by environment lists and
    // searches the same tools.
    std::vector<std::string> active;
    for (const auto& [name, s] : servers) {
        if (s.status == scout::ServerStatus::active) {
            active.push_back(name);
        }
    }
    CHECK(live.searcher().server_names() == active);
    CHECK(fresh->searcher().server_names() == active);
    for (const char* environment : {"prod", "dev"}) {
        scout::SearchOptions scoped;
        scoped.environment = environment;
        scoped.top_k = scout::SearchOptions::kMaxTopK;
        INFO("environment " << environment);
        require_same(live.searcher().list_tools(scoped), fresh->searcher().list_tools(scoped), "");
        auto got = live.searcher().search(queries.front(), scoped);
        auto want = fresh->searcher().search(queries.front(), scoped);
        REQUIRE(got.ok());
        REQUIRE(want.ok());
        require_same(got->hits, want->hits, queries.front());
    }
}

}  // namespace

TEST_CASE("incremental commits search exactly like a catalog built from scratch",
          "[live][catalog][incremental]") {
    const std::uint32_t seed = GENERATE(1U, 2U, 3U);
    INFO("seed " << seed);
    Model model(seed);
    auto catalog = scout::Catalog::create({}, std::make_shared<scout::HashingEmbedder>(32));
    REQUIRE(catalog.ok());
    std::map<std::string, scout::ServerSpec> servers;  // what the catalog should hold
    for (int i = 0; i < 6; ++i) {
        scout::ServerSpec s = model.server("srv" + std::to_string(i));
        REQUIRE(catalog->upsert_server(s).ok());
        servers[s.name] = s;
    }
    REQUIRE(catalog->commit().ok());
    require_same_as_fresh(*catalog, servers, model);

    // Half the steps under a sanitizer, whose commits and fresh builds run several times slower.
    const int steps = scout::test::kSanitized ? 200 : 400;
    for (int step = 0; step < steps; ++step) {
        auto it =
            std::next(servers.begin(), static_cast<std::ptrdiff_t>(model.pick(servers.size())));
        scout::ServerSpec& s = it->second;
        switch (model.pick(9)) {
            case 0:
            case 1:
            case 2: {  // change an existing tool's contents
                if (s.tools.empty()) {
                    break;
                }
                scout::ToolSpec& t = s.tools[model.pick(s.tools.size())];
                t = model.tool(t.name);
                REQUIRE(catalog->upsert_tool(s.name, t).ok());
                break;
            }
            case 3: {  // add a tool (or replace one of the same name)
                scout::ToolSpec t = model.tool(model.word() + "_new" + std::to_string(step % 5));
                REQUIRE(catalog->upsert_tool(s.name, t).ok());
                auto same = std::find_if(s.tools.begin(), s.tools.end(), [&](const auto& x) {
                    return x.name == t.name;
                });
                if (same != s.tools.end()) {
                    *same = t;
                } else {
                    s.tools.insert(std::upper_bound(s.tools.begin(),
                                                    s.tools.end(),
                                                    t,
                                                    [](const auto& a, const auto& b) {
                                                        return a.name < b.name;
                                                    }),
                                   t);
                }
                break;
            }
            case 4: {  // remove a tool
                if (s.tools.empty()) {
                    break;
                }
                const std::size_t k = model.pick(s.tools.size());
                REQUIRE(catalog->remove_tool(s.name, s.tools[k].name).ok());
                s.tools.erase(s.tools.begin() + static_cast<std::ptrdiff_t>(k));
                break;
            }
            case 5: {  // a server leaves or comes back
                s.status = s.status == scout::ServerStatus::active ? scout::ServerStatus::inactive
                                                                   : scout::ServerStatus::active;
                REQUIRE(catalog->set_server_status(s.name, s.status).ok());
                break;
            }
            case 6: {  // replace a whole server, or add one
                scout::ServerSpec fresh = model.server("srv" + std::to_string(model.pick(9)));
                REQUIRE(catalog->upsert_server(fresh).ok());
                servers[fresh.name] = fresh;
                break;
            }
            case 7: {  // the same server and tools described anew (its ToolIds stay)
                s.description = model.word() + " " + model.word() + " service";
                s.category = model.word();
                s.environment = model.environment();
                REQUIRE(catalog->upsert_server(s).ok());
                break;
            }
            default: {  // remove a server, keeping a few
                if (servers.size() > 3) {
                    REQUIRE(catalog->remove_server(s.name).ok());
                    servers.erase(it);
                }
                break;
            }
        }
        if (model.pick(3) == 0) {
            REQUIRE(catalog->commit().ok());
            if (model.pick(4) == 0) {
                REQUIRE(catalog->commit().ok());  // nothing staged
            }
            require_same_as_fresh(*catalog, servers, model);
        }
    }
    REQUIRE(catalog->commit().ok());
    require_same_as_fresh(*catalog, servers, model);
}
