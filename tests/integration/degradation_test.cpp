// degradation_test.cpp: an embedder that fails in any way leaves BM25 answering, flagged.
#include <atomic>
#include <stdexcept>
#include <thread>

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"

#include "support/test_catalogs.hpp"

using namespace scout;

namespace {

enum class Failure { none, status, exception, wrong_dim, slow, nan };

/// Works while indexing, then fails queries in the configured way.
class FlakyEmbedder final : public Embedder {
public:
    std::atomic<Failure> failure{Failure::none};
    std::string model_id() const override { return "flaky"; }
    std::size_t dim() const override { return 64; }
    Result<std::vector<float>> embed(std::span<const std::string> texts) override {
        switch (failure.load()) {
            case Failure::status:
                return Status{Errc::unavailable, "service down"};
            case Failure::exception:
                throw std::runtime_error("connection reset");
            case Failure::wrong_dim:
                return std::vector<float>(texts.size() * 3, 1.0f);
            case Failure::nan:
                return std::vector<float>(texts.size() * 64, std::nanf(""));
            case Failure::slow:
                std::this_thread::sleep_for(std::chrono::milliseconds(300));
                break;
            case Failure::none:
                break;
        }
        return inner_.embed(texts);
    }

private:
    HashingEmbedder inner_{64};
};

}  // namespace

TEST_CASE("every kind of embedder failure degrades to BM25", "[degradation]") {
    auto embedder = std::make_shared<FlakyEmbedder>();
    auto c = Catalog::create({}, embedder);
    REQUIRE(c.ok());
    REQUIRE(c->upsert_servers(testing::small_catalog()).ok());
    auto info = c->commit();
    REQUIRE(info.ok());
    CHECK(info->dense_ready);
    const Searcher s = c->searcher();
    auto bm25 = s.search("send a chat message", {.mode = Mode::bm25});
    REQUIRE(bm25.ok());

    for (Failure f :
         {Failure::status, Failure::exception, Failure::wrong_dim, Failure::nan, Failure::slow}) {
        embedder->failure = f;
        for (Mode mode : {Mode::hybrid, Mode::dense}) {
            INFO("failure " << static_cast<int>(f) << " mode " << mode_name(mode));
            auto r = s.search("send a chat message",
                              {.mode = mode, .embed_timeout = std::chrono::milliseconds(50)});
            REQUIRE(r.ok());
            CHECK(r->degraded);
            CHECK_FALSE(r->degraded_reason.empty());
            CHECK(r->mode == Mode::bm25);
            REQUIRE(r->hits.size() == bm25->hits.size());
            for (std::size_t i = 0; i < r->hits.size(); ++i) {
                CHECK(r->hits[i].id == bm25->hits[i].id);
            }
        }
    }
    embedder->failure = Failure::none;
    auto healthy = s.search("send a chat message");
    REQUIRE(healthy.ok());
    CHECK_FALSE(healthy->degraded);
    CHECK(healthy->mode == Mode::hybrid);
}

TEST_CASE("an embedder that fails while indexing leaves a BM25-only snapshot", "[degradation]") {
    auto embedder = std::make_shared<FlakyEmbedder>();
    embedder->failure = Failure::exception;
    auto c = Catalog::create({}, embedder);
    REQUIRE(c.ok());
    REQUIRE(c->upsert_servers(testing::small_catalog()).ok());
    auto info = c->commit();
    REQUIRE(info.ok());
    CHECK_FALSE(info->dense_ready);
    CHECK(info->dense_error.find("connection reset") != std::string::npos);
    auto r = c->searcher().search("pull request");
    REQUIRE(r.ok());
    CHECK(r->degraded);
    CHECK_FALSE(r->hits.empty());
    // Recovery: the next commit embeds again.
    embedder->failure = Failure::none;
    info = c->commit();
    REQUIRE(info.ok());
    CHECK(info->dense_ready);
    CHECK_FALSE(c->searcher().search("pull request")->degraded);
}

TEST_CASE("no embedder: hybrid answers with BM25 and says why", "[degradation]") {
    auto c = Catalog::create();
    REQUIRE(c.ok());
    REQUIRE(c->upsert_servers(testing::small_catalog()).ok());
    REQUIRE(c->commit().ok());
    auto r = c->searcher().search("pull request");
    REQUIRE(r.ok());
    CHECK(r->degraded);
    CHECK(r->degraded_reason == "no embedder configured");
    CHECK(r->hits[0].server == "github");
}

TEST_CASE("a host-supplied query vector is checked", "[degradation]") {
    auto c = Catalog::create({}, std::make_shared<HashingEmbedder>(64));
    REQUIRE(c.ok());
    REQUIRE(c->upsert_servers(testing::small_catalog()).ok());
    REQUIRE(c->commit().ok());
    const Searcher s = c->searcher();
    std::vector<float> wrong(10, 1.0f);
    CHECK(s.search("q", wrong).status().code() == Errc::dimension_mismatch);
    std::vector<float> zero(64, 0.0f);
    CHECK(s.search("q", zero).status().code() == Errc::invalid_argument);
    auto v = HashingEmbedder(64).embed(std::vector<std::string>{"send a chat message"});
    REQUIRE(v.ok());
    auto r = s.search("send a chat message", v.value());
    REQUIRE(r.ok());
    CHECK_FALSE(r->degraded);
    CHECK(r->mode == Mode::hybrid);
}
