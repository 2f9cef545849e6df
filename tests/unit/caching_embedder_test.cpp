// caching_embedder_test.cpp: the query-embedding LRU: hits, eviction order, failures never
// cached, concurrent use.
#include <thread>

#include <catch2/catch.hpp>

#include "scout/embedder.hpp"

#include "support/counting_embedder.hpp"

using scout::CachingEmbedder;
using scout::test::CountingEmbedder;

namespace {

std::vector<float> one(scout::Embedder& e, const std::string& text) {
    const std::string texts[1] = {text};
    auto out = e.embed(texts);
    REQUIRE(out.ok());
    return out.value();
}

}  // namespace

TEST_CASE("caching embedder answers repeated texts from the cache", "[embed]") {
    auto inner = std::make_shared<CountingEmbedder>();
    CachingEmbedder cache(inner, 8);
    CHECK(cache.model_id() == inner->model_id());
    CHECK(cache.dim() == inner->dim());
    const auto first = one(cache, "list open tickets");
    const auto second = one(cache, "list open tickets");
    CHECK(first == second);
    CHECK(inner->seen().size() == 1);
    CHECK(cache.hits() == 1);
    CHECK(cache.misses() == 1);

    // A batch mixing hits and misses sends only the misses, and keeps the order.
    const std::vector<std::string> batch = {"a", "list open tickets", "b"};
    auto out = cache.embed(batch);
    REQUIRE(out.ok());
    CHECK(inner->seen().size() == 3);
    CHECK(std::vector<float>(out->begin() + 8, out->begin() + 16) == first);
    CHECK(std::vector<float>(out->begin(), out->begin() + 8) == one(*inner, "a"));
}

TEST_CASE("caching embedder evicts the least recently used text", "[embed]") {
    auto inner = std::make_shared<CountingEmbedder>();
    CachingEmbedder cache(inner, 2);
    (void)one(cache, "a");
    (void)one(cache, "b");
    (void)one(cache, "a");  // a is now the most recent
    (void)one(cache, "c");  // evicts b
    CHECK(cache.size() == 2);
    inner->reset();
    (void)one(cache, "a");
    CHECK(inner->seen().empty());
    (void)one(cache, "b");
    CHECK(inner->seen() == std::vector<std::string>{"b"});
}

TEST_CASE("caching embedder never caches failures and can be disabled", "[embed]") {
    auto inner = std::make_shared<CountingEmbedder>();
    CachingEmbedder cache(inner, 4);
    inner->fail = true;
    const std::string texts[1] = {"q"};
    CHECK_FALSE(cache.embed(texts).ok());
    CHECK(cache.size() == 0);
    inner->fail = false;
    CHECK(cache.embed(texts).ok());
    CHECK(cache.size() == 1);

    CachingEmbedder off(inner, 0);
    (void)one(off, "q");
    (void)one(off, "q");
    CHECK(off.size() == 0);
    CHECK(off.hits() == 0);
}

TEST_CASE("caching embedder: concurrency of hits and misses stays consistent",
          "[embed][concurrency]") {
    auto inner = std::make_shared<CountingEmbedder>();
    CachingEmbedder cache(inner, 16);
    std::vector<std::thread> threads;
    std::atomic<int> wrong{0};
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 300; ++i) {
                const std::string text = "query " + std::to_string((i * 7 + t) % 40);
                const std::string texts[1] = {text};
                auto got = cache.embed(texts);
                auto want = inner->embed(texts);
                if (!got.ok() || got.value() != want.value()) {
                    ++wrong;
                }
            }
        });
    }
    for (auto& t : threads) {
        t.join();
    }
    CHECK(wrong == 0);
    CHECK(cache.size() <= 16);
    CHECK(cache.hits() + cache.misses() == 1200);
}

TEST_CASE("caching embedder reads the corpus when the embedder it wraps does", "[embed]") {
    // The hashing embedder ignores fit(); the default Embedder (CountingEmbedder) may read it.
    CHECK_FALSE(scout::HashingEmbedder(8).reads_corpus());
    CHECK_FALSE(CachingEmbedder(std::make_shared<scout::HashingEmbedder>(8)).reads_corpus());
    CHECK(CachingEmbedder(std::make_shared<CountingEmbedder>()).reads_corpus());
}
