// hardening_test.cpp: the library against hostile or careless input: bounded reads, targets that
// are not files, over-deep schemas, control characters and over-limit values in names, a hung
// embedder, an embedding service that answers too wide a vector, an API key bound for a remote
// plain-http host, and enhanced names that never move to another server's tool.
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <mutex>

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"
#include "scout/catalog_loader.hpp"
#include "scout/embedder.hpp"
#include "scout/http/http_embedder.hpp"

#include "built_components.hpp"

#if SCOUT_WITH_HTTP
#include "http/embeddings_response.hpp"
#endif
#include "support/temp_dir.hpp"
#include "util/file_io.hpp"

using namespace scout;

namespace {

ServerSpec server(const std::string& name, std::vector<std::string> tools) {
    ServerSpec s;
    s.name = name;
    s.description = name + " server";
    for (const std::string& t : tools) {
        s.tools.push_back(ToolSpec{t, "", "does " + t, "", ""});
    }
    return s;
}

/// Answers at once until hang() is called; then every call blocks until release().
class HangingEmbedder final : public Embedder {
public:
    [[nodiscard]] std::string model_id() const override { return "hanging"; }
    [[nodiscard]] std::size_t dim() const override { return 8; }
    Result<std::vector<float>> embed(std::span<const std::string> texts) override {
        std::unique_lock lock(mu_);
        ++inside_;
        most_inside_ = std::max(most_inside_, inside_);
        released_cv_.wait(lock, [this] { return !hanging_; });
        --inside_;
        return std::vector<float>(texts.size() * dim(), 1.0F);
    }
    void hang() {
        std::lock_guard lock(mu_);
        hanging_ = true;
    }
    void release() {
        std::lock_guard lock(mu_);
        hanging_ = false;
        released_cv_.notify_all();
    }
    std::size_t most_inside() {
        std::lock_guard lock(mu_);
        return most_inside_;
    }

private:
    std::mutex mu_;
    std::condition_variable released_cv_;
    bool hanging_ = false;
    std::size_t inside_ = 0;
    std::size_t most_inside_ = 0;
};

}  // namespace

TEST_CASE("file reads are capped, checked before and while reading", "[hardening]") {
    test::TempDir dir;
    const std::string small = dir.write("small.txt", std::string(100, 'x'));
    CHECK(detail::read_text_file(small, 100).ok());
    auto over = detail::read_text_file(small, 99);
    REQUIRE_FALSE(over.ok());
    CHECK_THAT(over.status().message(), Catch::Contains("larger than the limit of 99 bytes"));
    // A sparse file over the catalog limit is refused without reading (or allocating) it.
    const std::string sparse = dir.file("sparse.json");
    dir.write("sparse.json", "");
    std::filesystem::resize_file(sparse, kMaxCatalogFileBytes + 1);
    auto big = load_catalog_file(sparse);
    REQUIRE_FALSE(big.ok());
    CHECK_THAT(big.status().message(), Catch::Contains("larger than the limit"));
    // Not regular files: refused at once (a FIFO would block, /dev/zero never ends).
    CHECK_FALSE(load_catalog_file("/dev/zero").ok());
    const std::string fifo = dir.file("fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    auto from_fifo = load_catalog_file(fifo);
    REQUIRE_FALSE(from_fifo.ok());
    CHECK_THAT(from_fifo.status().message(), Catch::Contains("not a regular file"));
}

TEST_CASE("save never replaces something that is not a regular file", "[hardening]") {
    test::TempDir dir;
    auto catalog = Catalog::create();
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_server(server("files", {"read_file"})).ok());
    REQUIRE(catalog->commit().ok());
    const std::string fifo = dir.file("fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const Status s = catalog->save(fifo);
    CHECK_FALSE(s.ok());
    CHECK_THAT(s.message(), Catch::Contains("not a regular file"));
    CHECK(std::filesystem::is_fifo(fifo));
    std::filesystem::create_directory(dir.file("sub"));
    CHECK_FALSE(catalog->save(dir.file("sub")).ok());
    CHECK(std::filesystem::is_directory(dir.file("sub")));
    // A regular file, or nothing, is replaced as before.
    CHECK(catalog->save(dir.file("index")).ok());
    CHECK(catalog->save(dir.file("index")).ok());
}

TEST_CASE("a schema nested deeper than the JSON limit is refused at upsert", "[hardening]") {
    auto catalog = Catalog::create();
    REQUIRE(catalog.ok());
    ServerSpec s = server("deep", {});
    const std::size_t depth = 300;
    s.tools.push_back(ToolSpec{
        "t", "", "deep", R"({"a":)" + std::string(depth, '[') + std::string(depth, ']') + "}", ""});
    const Status status = catalog->upsert_server(s);
    REQUIRE_FALSE(status.ok());
    CHECK_THAT(status.message(), Catch::Contains("nested deeper than"));
}

TEST_CASE("control characters in names are refused, and quoted escaped", "[hardening]") {
    auto catalog = Catalog::create();
    REQUIRE(catalog.ok());
    const Status bad_server = catalog->upsert_server(server("evil\x1b[2J", {"t"}));
    REQUIRE_FALSE(bad_server.ok());
    CHECK_THAT(bad_server.message(), Catch::Contains("control character"));
    CHECK_THAT(bad_server.message(), Catch::Contains("\\x1b"));
    CHECK(bad_server.message().find('\x1b') == std::string::npos);
    CHECK_FALSE(catalog->upsert_server(server("s", {"tab\tname"})).ok());
    ServerSpec env = server("s", {"t"});
    env.environment = "prod\n";
    CHECK_FALSE(catalog->upsert_server(env).ok());
    // Descriptions keep their line breaks.
    ServerSpec fine = server("s", {"t"});
    fine.description = "line one\nline two";
    CHECK(catalog->upsert_server(fine).ok());
}

TEST_CASE("an over-long name is reported without echoing it", "[hardening]") {
    auto catalog = Catalog::create();
    REQUIRE(catalog.ok());
    const std::string huge(10U << 20U, 'n');
    const Status tool = catalog->upsert_server(server("s", {huge}));
    REQUIRE_FALSE(tool.ok());
    CHECK_THAT(tool.message(), Catch::Contains("over the limit"));
    CHECK(tool.message().size() < 500);
    const Status srv = catalog->upsert_server(server(huge, {"t"}));
    REQUIRE_FALSE(srv.ok());
    CHECK(srv.message().size() < 500);
    CatalogSpec twice;
    twice.servers = {server(huge, {"t"}), server(huge, {"t"})};
    const Status dup = catalog->upsert_servers(twice);
    REQUIRE_FALSE(dup.ok());
    CHECK(dup.message().size() < 500);
    CHECK(catalog->remove_server(huge).message().size() < 500);
}

TEST_CASE("a hung embedder holds a few helper threads, not one per search (concurrency)",
          "[hardening][concurrency]") {
    auto embedder = std::make_shared<HangingEmbedder>();
    auto catalog = Catalog::create({}, embedder);
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_server(server("files", {"read_file", "write_file"})).ok());
    REQUIRE(catalog->commit().ok());
    embedder->hang();
    SearchOptions options;
    options.embed_timeout = std::chrono::milliseconds(5);
    const Searcher searcher = catalog->searcher();
    for (int i = 0; i < 40; ++i) {
        auto r = searcher.search("read a file " + std::to_string(i), options);
        REQUIRE(r.ok());
        CHECK(r->degraded);
        CHECK(r->mode == Mode::bm25);
        CHECK_FALSE(r->hits.empty());
    }
    // A thread per search would have 40 calls stuck in the embedder by now.
    CHECK(embedder->most_inside() <= 4);
    embedder->release();
    // Once the embedder answers again, timed searches run dense again.
    options.embed_timeout = std::chrono::milliseconds(10000);
    auto healthy = searcher.search("read a file", options);
    REQUIRE(healthy.ok());
    CHECK_FALSE(healthy->degraded);
}

// The HTTP embedder's cases, when this build has scout::http.
#if SCOUT_WITH_HTTP
TEST_CASE("the HTTP embedder refuses an over-wide probe vector", "[hardening]") {
    const auto body = [](std::size_t dim) {
        std::string out = R"({"data":[{"index":0,"embedding":[)";
        for (std::size_t i = 0; i < dim; ++i) {
            out += i == 0 ? "0.5" : ",0.5";
        }
        return out + "]}]}";
    };
    std::size_t dim = 0;
    auto wide = detail::parse_embeddings_response(body(200000), 1, dim);
    REQUIRE_FALSE(wide.ok());
    CHECK_THAT(wide.status().message(), Catch::Contains("over the limit"));
    CHECK(dim == 0);
    auto fine = detail::parse_embeddings_response(body(384), 1, dim);
    REQUIRE(fine.ok());
    CHECK(dim == 384);
    // A malformed body is quoted clipped and escaped.
    std::size_t any = 0;
    auto garbage = detail::parse_embeddings_response(std::string(100000, '\x1b'), 1, any);
    REQUIRE_FALSE(garbage.ok());
    CHECK(garbage.status().message().size() < 1200);
    CHECK(garbage.status().message().find('\x1b') == std::string::npos);
    // A deeply nested body is an error, not a stack overflow.
    auto deep = detail::parse_embeddings_response(std::string(500000, '['), 1, any);
    CHECK_FALSE(deep.ok());
}

TEST_CASE("an API key bound for a remote plain-http host is flagged", "[hardening]") {
    ::unsetenv("SCOUT_EMBEDDER_API_KEY");
    ::unsetenv("OPENAI_API_KEY");
    HttpEmbedderOptions o;
    o.model = "m";
    o.base_url = "http://10.1.2.3:8080/v1";
    CHECK_FALSE(HttpEmbedder::sends_key_in_cleartext(o));  // no key at all
    o.api_key = "secret";
    CHECK(HttpEmbedder::sends_key_in_cleartext(o));
    o.base_url = "http://embeddings.example.com/v1";
    CHECK(HttpEmbedder::sends_key_in_cleartext(o));
    for (const char* local :
         {"http://127.0.0.1:8080", "http://localhost:11434/v1", "http://127.8.0.1"}) {
        o.base_url = local;
        CHECK_FALSE(HttpEmbedder::sends_key_in_cleartext(o));
    }
    o.api_key.clear();
    ::setenv("OPENAI_API_KEY", "from-env", 1);
    o.base_url = "http://10.1.2.3:8080/v1";
    CHECK(HttpEmbedder::sends_key_in_cleartext(o));
    ::unsetenv("OPENAI_API_KEY");
}
#endif

TEST_CASE("an enhanced name never moves to another server's tool", "[hardening]") {
    auto catalog = Catalog::create();
    REQUIRE(catalog.ok());
    // "a_b_secret" could be a_b/secret or a/b_secret: the longer server name keeps it.
    REQUIRE(catalog->upsert_server(server("a", {"b_secret"})).ok());
    REQUIRE(catalog->upsert_server(server("a_b", {"secret"})).ok());
    REQUIRE(catalog->commit().ok());
    const auto before = catalog->searcher().resolve("a_b_secret");
    REQUIRE(before.has_value());
    CHECK(before->server == "a_b");
    const auto other = catalog->searcher().find("a", "b_secret");
    REQUIRE(other.has_value());
    const std::string other_name = other->name;
    CHECK(other_name != "a_b_secret");

    // a_b crashes: its name must not start naming a/b_secret, and a/b_secret keeps its name.
    REQUIRE(catalog->set_server_status("a_b", ServerStatus::degraded).ok());
    REQUIRE(catalog->commit().ok());
    CHECK_FALSE(catalog->searcher().resolve("a_b_secret").has_value());
    const auto after = catalog->searcher().find("a", "b_secret");
    REQUIRE(after.has_value());
    CHECK(after->name == other_name);
    CHECK(catalog->searcher().resolve(other_name)->server == "a");

    // Back to ACTIVE: the same names as before.
    REQUIRE(catalog->set_server_status("a_b", ServerStatus::active).ok());
    REQUIRE(catalog->commit().ok());
    CHECK(catalog->searcher().resolve("a_b_secret")->server == "a_b");
}

namespace {

/// Knows the catalog's words but not the query's: documents get a vector, queries a zero one.
class NoQueryWordsEmbedder final : public Embedder {
public:
    [[nodiscard]] std::string model_id() const override { return "no-query-words"; }
    [[nodiscard]] std::size_t dim() const override { return 4; }
    Result<std::vector<float>> embed(std::span<const std::string> texts) override {
        std::vector<float> out;
        for (const std::string& t : texts) {
            const bool known =
                t.rfind("QUERY", 0) != 0 && std::any_of(t.begin(), t.end(), [](char c) {
                    return std::isalnum(static_cast<unsigned char>(c)) != 0;
                });
            const float v = known ? 1.0F : 0.0F;
            out.insert(out.end(), {v, v, v, v});
        }
        return out;
    }
};

}  // namespace

TEST_CASE("a query the model knows no word of is answered by BM25, not degraded", "[hardening]") {
    auto catalog = Catalog::create({}, std::make_shared<NoQueryWordsEmbedder>());
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_server(server("files", {"read_file", "write_file"})).ok());
    REQUIRE(catalog->commit().ok());
    auto r = catalog->searcher().search("QUERY read file");
    REQUIRE(r.ok());
    CHECK_FALSE(r->degraded);
    CHECK(r->degraded_reason.empty());
    CHECK(r->mode == Mode::bm25);
    CHECK_THAT(r->notice, Catch::Contains("knows none of the query's words"));
    REQUIRE_FALSE(r->hits.empty());
    CHECK(r->hits[0].tool == "read_file");
    // Nothing searchable at all.
    auto punct = catalog->searcher().search("?!...");
    REQUIRE(punct.ok());
    CHECK(punct->hits.empty());
    CHECK(punct->notice == "the query holds no searchable words");
    // A healthy query has no notice.
    auto fine = catalog->searcher().search("read file");
    REQUIRE(fine.ok());
    CHECK(fine->notice.empty());
    CHECK(fine->mode == Mode::hybrid);
}
