// live_update_test.cpp: server lifecycle (only ACTIVE servers are searchable; recovery
// re-ingests) and commit reuse (unchanged tools are neither re-rendered nor re-embedded).
#include <atomic>
#include <memory>

#include <catch2/catch.hpp>

#include "scout/scout.hpp"

namespace {

/// Wraps the hashing embedder and counts the document texts it is asked to embed.
class CountingEmbedder final : public scout::Embedder {
public:
    std::string model_id() const override { return inner_.model_id(); }
    std::size_t dim() const override { return inner_.dim(); }
    scout::Result<std::vector<float>> embed(std::span<const std::string> texts) override {
        texts_.fetch_add(texts.size());
        return inner_.embed(texts);
    }
    std::size_t texts() const { return texts_.load(); }

private:
    scout::HashingEmbedder inner_{32};
    std::atomic<std::size_t> texts_{0};
};

scout::ServerSpec server(const std::string& name, int tools, const std::string& word) {
    scout::ServerSpec s{name, name + " service", "", "", scout::ServerStatus::active, {}};
    for (int i = 0; i < tools; ++i) {
        s.tools.push_back({word + "_op_" + std::to_string(i),
                           "",
                           "performs " + word + " operation " + std::to_string(i),
                           R"({"type":"object","properties":{"id":{"type":"string"}}})",
                           ""});
    }
    return s;
}

std::size_t hits_from(const scout::Catalog& catalog,
                      const std::string& query,
                      const std::string& srv) {
    scout::SearchOptions opt;
    opt.top_k = 20;
    auto r = catalog.searcher().search(query, opt);
    REQUIRE(r.ok());
    std::size_t n = 0;
    for (const auto& h : r->hits) {
        n += h.server == srv ? 1U : 0U;
    }
    return n;
}

}  // namespace

TEST_CASE("only ACTIVE servers are indexed, recovery re-ingests", "[live][lifecycle]") {
    auto embedder = std::make_shared<CountingEmbedder>();
    auto catalog = scout::Catalog::create({}, embedder);
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_server(server("billing", 4, "invoice")).ok());
    REQUIRE(catalog->upsert_server(server("tickets", 3, "ticket")).ok());
    auto info = catalog->commit();
    REQUIRE(info.ok());
    REQUIRE(info->tools == 7);
    REQUIRE(hits_from(*catalog, "ticket operation", "tickets") == 3);

    for (auto status : {scout::ServerStatus::degraded,
                        scout::ServerStatus::inactive,
                        scout::ServerStatus::rejected}) {
        INFO(scout::server_status_name(status));
        REQUIRE(catalog->set_server_status("tickets", status).ok());
        // Staged only: readers still see the server until the commit.
        CHECK(hits_from(*catalog, "ticket operation", "tickets") == 3);
        info = catalog->commit();
        REQUIRE(info.ok());
        CHECK(info->tools == 4);
        CHECK(info->servers == 1);
        CHECK(hits_from(*catalog, "ticket operation", "tickets") == 0);
        const scout::Searcher s = catalog->searcher();
        CHECK_FALSE(s.find("tickets", "ticket_op_0"));
        CHECK_FALSE(s.resolve("tickets_ticket_op_0"));
        CHECK(s.list_tools().size() == 4);
        scout::SearchOptions scoped;
        scoped.servers = std::vector<std::string>{"tickets"};
        auto r = s.search("ticket", scoped);
        REQUIRE(r.ok());
        CHECK(r->hits.empty());
        CHECK(hits_from(*catalog, "invoice operation", "billing") == 4);

        const std::size_t before = embedder->texts();
        REQUIRE(catalog->set_server_status("tickets", scout::ServerStatus::active).ok());
        info = catalog->commit();
        REQUIRE(info.ok());
        // The recovered server's documents are indexed again (its vectors were dropped with it).
        CHECK(embedder->texts() - before == 3);
        CHECK(info->embedded == 3);
        CHECK(info->tools == 7);
        CHECK(hits_from(*catalog, "ticket operation", "tickets") == 3);
        CHECK(catalog->searcher().find("tickets", "ticket_op_2"));
    }
    CHECK(catalog->set_server_status("nope", scout::ServerStatus::active).code() ==
          scout::Errc::not_found);
}

TEST_CASE("commit reuses unchanged documents and embeddings", "[live][reuse]") {
    auto embedder = std::make_shared<CountingEmbedder>();
    auto catalog = scout::Catalog::create({}, embedder);
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_server(server("billing", 10, "invoice")).ok());
    REQUIRE(catalog->upsert_server(server("tickets", 6, "ticket")).ok());
    auto info = catalog->commit();
    REQUIRE(info.ok());
    CHECK(info->embedded == 16);
    CHECK(info->rendered == 16);
    CHECK(embedder->texts() == 16);

    SECTION("a commit without changes embeds and renders nothing and shares the dense index") {
        info = catalog->commit();
        REQUIRE(info.ok());
        CHECK(info->embedded == 0);
        CHECK(info->rendered == 0);
        CHECK(info->dense_reused);
        CHECK(embedder->texts() == 16);
        CHECK(catalog->searcher().generation() == 2);
    }
    SECTION("re-upserting identical tools embeds nothing") {
        REQUIRE(catalog->upsert_server(server("billing", 10, "invoice")).ok());
        info = catalog->commit();
        REQUIRE(info.ok());
        CHECK(info->embedded == 0);
        CHECK(info->dense_reused);
    }
    SECTION("one changed tool embeds one document") {
        REQUIRE(
            catalog->upsert_tool("billing", {"invoice_op_3", "", "refund a paid invoice", "", ""})
                .ok());
        info = catalog->commit();
        REQUIRE(info.ok());
        CHECK(info->embedded == 1);
        CHECK(info->rendered == 1);
        CHECK_FALSE(info->dense_reused);
        CHECK(embedder->texts() == 17);
        auto r = catalog->searcher().search("refund paid invoice");
        REQUIRE(r.ok());
        REQUIRE_FALSE(r->hits.empty());
        CHECK(r->hits[0].tool == "invoice_op_3");
    }
    SECTION("a new tool embeds one document; a removal embeds none") {
        REQUIRE(
            catalog->upsert_tool("tickets", {"ticket_merge", "", "merge duplicate tickets", "", ""})
                .ok());
        info = catalog->commit();
        REQUIRE(info.ok());
        CHECK(info->embedded == 1);
        CHECK(info->tools == 17);
        REQUIRE(catalog->remove_tool("tickets", "ticket_op_0").ok());
        info = catalog->commit();
        REQUIRE(info.ok());
        CHECK(info->embedded == 0);
        CHECK(info->rendered == 0);
        CHECK_FALSE(info->dense_reused);  // one row fewer: a new store over the cached vectors
        CHECK(info->tools == 16);
    }
    SECTION("a changed server description re-renders and re-embeds that server's tools only") {
        scout::ServerSpec s = server("tickets", 6, "ticket");
        s.description = "help desk for customer support tickets";
        REQUIRE(catalog->upsert_server(s).ok());
        info = catalog->commit();
        REQUIRE(info.ok());
        CHECK(info->rendered == 6);
        CHECK(info->embedded == 6);
    }
}
