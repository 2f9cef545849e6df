// registry_base_test.cpp: base + feed start-up against a real PostgreSQL of each case's own:
// a replica that opens a published base and replays the log from its sequence serves exactly
// what a fresh build serves (a public dataset's every query), embeds nothing, a stale builder
// cannot publish, a damaged or missing base (or one whose BM25 weights disagree with its
// postings) is refused for a read from sequence 0, and a version 1 registry migrates to the
// base tables.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "scout/catalog.hpp"
#include "scout/catalog_loader.hpp"
#include "scout/registry/registry.hpp"

#include "persist/container.hpp"
#include "registry/base_file.hpp"
#include "registry/pg_connection.hpp"
#include "registry/schema.hpp"
#include "support/counting_embedder.hpp"
#include "support/fixture_skip.hpp"
#include "support/pg_server.hpp"
#include "support/registry_fixture.hpp"  // START_SERVER, with this file's connect_to
#include "support/test_catalogs.hpp"
#include "util/file_io.hpp"

namespace {

using scout::CatalogSpec;
using scout::Errc;
using scout::test::CountingEmbedder;
using scout::test::PgServer;
namespace reg = scout::registry;
namespace fs = std::filesystem;

constexpr std::size_t kDim = 16;

reg::ConnectOptions connect_to(const PgServer& server) {
    return {.url = server.url(),
            .password_file = {},
            .connect_timeout = std::chrono::milliseconds(5000),
            .statement_timeout = std::chrono::milliseconds(5000)};
}

fs::path datasets_dir() {
    if (const char* env = std::getenv("SCOUT_DATASETS"); env != nullptr && *env != '\0') {
        return env;
    }
    return fs::path(SCOUT_TEST_SOURCE_DIR) / ".." / "shared" / "datasets";
}

std::vector<std::string> dataset_queries(const fs::path& file) {
    std::ifstream in(file);
    const auto json = nlohmann::json::parse(in);
    std::vector<std::string> out;
    for (const auto& q : json.at("queries")) {
        out.push_back(q.at("query").get<std::string>());
    }
    return out;
}

/// Every query's hits, in order, as "query -> name" lines.
std::vector<std::string> hits_of(const scout::Searcher& searcher,
                                 const std::vector<std::string>& queries) {
    std::vector<std::string> out;
    for (const std::string& q : queries) {
        auto result = searcher.search(q, {.top_k = 10});
        REQUIRE(result.ok());
        for (const scout::Hit& hit : result->hits) {
            out.push_back(q + " -> " + hit.name);
        }
    }
    return out;
}

std::vector<std::string> fresh_hits(const CatalogSpec& spec,
                                    const std::vector<std::string>& queries) {
    auto catalog = scout::Catalog::create({}, std::make_shared<CountingEmbedder>(kDim));
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_servers(spec).ok());
    REQUIRE(catalog->commit().ok());
    return hits_of(catalog->searcher(), queries);
}

std::unique_ptr<reg::Replica> replica_from(const PgServer& server,
                                           const fs::path& base_dir,
                                           std::shared_ptr<scout::Embedder> embedder) {
    reg::ReplicaOptions options;
    options.connect = connect_to(server);
    options.base_directory = base_dir;
    auto replica = reg::Replica::create(options, std::move(embedder));
    REQUIRE(replica.ok());
    return std::move(replica.value());
}

std::unique_ptr<reg::BaseBuilder> builder_of(const PgServer& server, const fs::path& dir) {
    reg::BuilderOptions options;
    options.replica.connect = connect_to(server);
    options.directory = dir;
    auto builder = reg::BaseBuilder::start(options, std::make_shared<CountingEmbedder>(kDim));
    REQUIRE(builder.ok());
    return std::move(builder.value());
}

/// Texts a replica's embedder was asked for that are not queries: documents.
std::size_t documents_embedded(const CountingEmbedder& embedder,
                               const std::vector<std::string>& queries) {
    std::size_t n = 0;
    for (const std::string& text : embedder.seen()) {
        n += std::find(queries.begin(), queries.end(), text) == queries.end() ? 1U : 0U;
    }
    return n;
}

}  // namespace

TEST_CASE("registry base: base plus the log serves what a fresh build serves, embedding nothing",
          "[registry]") {
    const fs::path dataset = datasets_dir() / "azure_mcp";
    if (!fs::exists(dataset / "catalog.json")) {
        SCOUT_SKIP_WITHOUT_FIXTURE("public dataset not found: " + dataset.string());
    }
    auto full = scout::load_catalog_file(dataset / "catalog.json");
    REQUIRE(full.ok());
    const auto queries = dataset_queries(dataset / "queries.json");
    REQUIRE(queries.size() >= 100);
    START_SERVER(server);
    const fs::path dir = server->dir().file("bases");
    auto writer = std::make_shared<CountingEmbedder>(kDim);

    // Generation g: two thirds of the servers.
    CatalogSpec first;
    const std::size_t split = full->servers.size() * 2 / 3;
    first.servers.assign(full->servers.begin(),
                         full->servers.begin() + static_cast<std::ptrdiff_t>(split));
    REQUIRE(reg::push(connect_to(*server), first, writer).ok());
    auto builder = builder_of(*server, dir);
    auto base = builder->publish();
    REQUIRE(base.ok());
    CHECK(base->generation == 1);
    CHECK(fs::exists(dir / base->file_name));
    CHECK(fs::exists(dir / (base->file_name.substr(0, base->file_name.size() - 6) + ".json")));

    // Then the log moves on: the rest added, one server described anew, one removed.
    CatalogSpec last = *full;
    last.servers[0].tools[0].description += " Also lists archived entries.";
    last.servers.erase(last.servers.begin() + 1);
    auto pushed = reg::push(connect_to(*server), last, writer, {.remove_missing = true});
    REQUIRE(pushed.ok());
    REQUIRE(pushed->head_seq > base->seq);

    auto embedder = std::make_shared<CountingEmbedder>(kDim);
    auto replica = replica_from(*server, dir, embedder);
    REQUIRE(replica->sync().ok());
    const reg::ReplicaStats stats = replica->stats();
    CHECK(stats.base_error.empty());
    CHECK(stats.base_generation == base->generation);
    CHECK(stats.base_seq == base->seq);
    CHECK(stats.applied_seq == pushed->head_seq);

    const auto expected = fresh_hits(last, queries);
    const auto got = hits_of(replica->searcher(), queries);
    REQUIRE(expected.size() > queries.size());
    CHECK(got == expected);
    CHECK(documents_embedded(*embedder, queries) == 0);

    // The replica from sequence 0 agrees too (the reference path).
    auto from_zero = replica_from(*server, {}, std::make_shared<CountingEmbedder>(kDim));
    REQUIRE(from_zero->sync().ok());
    CHECK(hits_of(from_zero->searcher(), queries) == expected);
}

TEST_CASE("registry base: a stale builder's publication is refused", "[registry]") {
    START_SERVER(server);
    const fs::path dir = server->dir().file("bases");
    REQUIRE(reg::push(connect_to(*server),
                      scout::testing::small_catalog(),
                      std::make_shared<CountingEmbedder>(kDim))
                .ok());
    auto old_builder = builder_of(*server, dir);
    auto new_builder = builder_of(*server, dir);
    CHECK(new_builder->epoch() > old_builder->epoch());

    auto refused = old_builder->publish();
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.status().code() == Errc::unavailable);
    CHECK_THAT(refused.status().message(), Catch::Contains("stale"));
    CHECK(reg::latest_base(connect_to(*server)).status().code() == Errc::not_found);
    CHECK(fs::is_empty(dir));  // nothing of the refused base is left behind

    auto published = new_builder->publish();
    REQUIRE(published.ok());
    CHECK(published->epoch == new_builder->epoch());
    auto latest = reg::latest_base(connect_to(*server));
    REQUIRE(latest.ok());
    CHECK(latest->generation == 1);
    CHECK(latest->digest == published->digest);
    CHECK(latest->epoch == new_builder->epoch());
    CHECK(!old_builder->publish().ok());  // and stays refused
    auto again = new_builder->publish();
    REQUIRE(again.ok());
    CHECK(again->generation == 2);
}

TEST_CASE("registry base: gc removes superseded bases and keeps the newest ones", "[registry]") {
    START_SERVER(server);
    const fs::path dir = server->dir().file("bases");
    CatalogSpec spec = scout::testing::small_catalog();
    auto builder = builder_of(*server, dir);
    std::vector<reg::PublishedBase> published;
    for (int i = 0; i < 4; ++i) {
        spec.servers[0].tools[0].description += " Version " + std::to_string(i) + ".";
        REQUIRE(
            reg::push(connect_to(*server), spec, std::make_shared<CountingEmbedder>(kDim)).ok());
        auto base = builder->publish();
        REQUIRE(base.ok());
        published.push_back(*base);
    }
    const auto present = [&](const reg::PublishedBase& base) {
        return fs::exists(dir / base.file_name) &&
               fs::exists(dir / scout::detail::manifest_name(base.file_name));
    };
    for (const reg::PublishedBase& base : published) {
        REQUIRE(present(base));
    }
    // Files gc must not touch: not a base file's name, and a manifest-like name of no base.
    std::ofstream(dir / "notes.txt") << "kept";
    std::ofstream(dir / "base-1-aaaaaaaaaaaaaaaa.scout.bak") << "kept";

    // Without a directory, bases are left alone.
    auto plain = reg::gc(connect_to(*server));
    REQUIRE(plain.ok());
    CHECK(plain->bases_removed == 0);
    CHECK(present(published[0]));

    reg::GcOptions options;
    options.base_directory = dir;  // keep_bases 2 by default
    auto trimmed = reg::gc(connect_to(*server), options);
    REQUIRE(trimmed.ok());
    CHECK(trimmed->bases_removed == 2);
    CHECK_FALSE(fs::exists(dir / published[0].file_name));
    CHECK_FALSE(fs::exists(dir / scout::detail::manifest_name(published[0].file_name)));
    CHECK_FALSE(fs::exists(dir / published[1].file_name));
    CHECK(present(published[2]));
    CHECK(present(published[3]));
    CHECK(fs::exists(dir / "notes.txt"));
    CHECK(fs::exists(dir / "base-1-aaaaaaaaaaaaaaaa.scout.bak"));
    auto again = reg::gc(connect_to(*server), options);
    REQUIRE(again.ok());
    CHECK(again->bases_removed == 0);

    // keep_bases 0 still keeps the newest base, the one replicas open.
    options.keep_bases = 0;
    auto newest_only = reg::gc(connect_to(*server), options);
    REQUIRE(newest_only.ok());
    CHECK(newest_only->bases_removed == 1);
    CHECK_FALSE(fs::exists(dir / published[2].file_name));
    CHECK(present(published[3]));
    auto latest = reg::latest_base(connect_to(*server));
    REQUIRE(latest.ok());
    CHECK(latest->generation == published[3].generation);
    auto embedder = std::make_shared<CountingEmbedder>(kDim);
    auto replica = replica_from(*server, dir, embedder);
    REQUIRE(replica->sync().ok());
    CHECK(replica->stats().base_generation == published[3].generation);
    CHECK(replica->stats().base_error.empty());

    // A base directory that cannot be listed is an error naming it.
    options.base_directory = server->dir().file("no-such-directory");
    auto missing = reg::gc(connect_to(*server), options);
    REQUIRE_FALSE(missing.ok());
    CHECK_THAT(missing.status().message(), Catch::Contains("no-such-directory"));
}

TEST_CASE("registry base: a damaged or missing base is refused and the replica reads from 0",
          "[registry]") {
    // One server and one published base for every damage below (a server and a publication per
    // case cost ten times the checks): each damage starts from the base's bytes and row as
    // published, restored before it.
    START_SERVER(server);
    const fs::path dir = server->dir().file("bases");
    const CatalogSpec spec = scout::testing::small_catalog();
    REQUIRE(reg::push(connect_to(*server), spec, std::make_shared<CountingEmbedder>(kDim)).ok());
    auto base = builder_of(*server, dir)->publish();
    REQUIRE(base.ok());
    const fs::path file = dir / base->file_name;
    const std::vector<std::string> queries = {
        "open a pull request", "send a chat message", "run a sql query", "list tables"};
    const auto expected = fresh_hits(spec, queries);
    const auto original = fs::file_size(file);
    const auto read_back = scout::detail::read_text_file(file);
    REQUIRE(read_back.ok());
    const std::string& published = *read_back;
    REQUIRE(published.size() == original);
    auto conn = scout::detail::PgConnection::connect(connect_to(*server));
    REQUIRE(conn.ok());
    const auto restore = [&] {
        {
            std::ofstream out(file, std::ios::binary | std::ios::trunc);
            out << published;
        }
        REQUIRE(fs::file_size(file) == original);
        REQUIRE(conn->run("UPDATE scout_bases SET digest = '" + base->digest + "', file_name = '" +
                          base->file_name + "'")
                    .ok());
    };

    const auto check_fallback = [&](const char* why) {
        INFO(why);
        auto replica = replica_from(*server, dir, std::make_shared<CountingEmbedder>(kDim));
        REQUIRE(replica->sync().ok());
        const reg::ReplicaStats stats = replica->stats();
        CHECK(stats.base_generation == 0);
        CHECK_THAT(stats.base_error, Catch::Contains("refused"));
        CHECK(stats.applied_seq == base->seq);
        CHECK(hits_of(replica->searcher(), queries) == expected);
        return stats.base_error;
    };

    {  // truncated
        restore();
        fs::resize_file(file, original / 2);
        CHECK_THAT(check_fallback("truncated"), Catch::Contains("SHA-256"));
    }
    {  // one byte changed
        restore();
        std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
        f.seekg(static_cast<std::streamoff>(original / 3));
        const char c = static_cast<char>(f.get());
        f.seekp(static_cast<std::streamoff>(original / 3));
        f.put(static_cast<char>(c ^ 0x20));
        f.close();
        CHECK_THAT(check_fallback("byte changed"), Catch::Contains("SHA-256"));
    }
    {  // missing
        restore();
        fs::remove(file);
        CHECK_THAT(check_fallback("missing"), Catch::Contains("does not exist"));
    }
    {  // a digest recorded for other bytes
        restore();
        REQUIRE(conn->run("UPDATE scout_bases SET digest = repeat('0', 64)").ok());
        CHECK_THAT(check_fallback("digest"), Catch::Contains("the registry recorded"));
    }
    {  // BM25 weights that disagree with the postings, under a matching digest
        restore();
        auto view = scout::detail::read_container(
            std::span(reinterpret_cast<const std::uint8_t*>(published.data()), published.size()),
            1,
            scout::kIndexFormatMajor);
        REQUIRE(view.ok());
        std::vector<scout::detail::SectionOut> sections;
        bool damaged = false;
        for (const auto& s : view->sections) {
            sections.push_back({s.kind, s.version, std::string(s.bytes.begin(), s.bytes.end())});
            if (s.kind == scout::detail::fourcc("BMTF")) {
                float tf = 0;  // the first posting's weighted tf, after the two counts
                std::memcpy(&tf, sections.back().bytes.data() + 16, sizeof tf);
                tf *= 2;
                std::memcpy(sections.back().bytes.data() + 16, &tf, sizeof tf);
                damaged = true;
            }
        }
        REQUIRE(damaged);
        {
            std::ofstream out(file, std::ios::binary | std::ios::trunc);
            out << scout::detail::write_container(view->major, scout::kIndexFormatMinor, sections);
        }
        auto digest = scout::detail::file_sha256_hex(file);
        REQUIRE(digest.ok());
        REQUIRE(conn->run("UPDATE scout_bases SET digest = '" + *digest + "'").ok());
        CHECK_THAT(check_fallback("weights"), Catch::Contains("BMTF section disagrees"));
    }
    {  // a file name leaving the directory
        restore();
        REQUIRE(conn->run("UPDATE scout_bases SET file_name = '../' || file_name").ok());
        CHECK_THAT(check_fallback("name"), Catch::Contains("file name"));
    }
    {  // intact: opened (after every damage above, restored)
        restore();
        auto replica = replica_from(*server, dir, std::make_shared<CountingEmbedder>(kDim));
        REQUIRE(replica->sync().ok());
        CHECK(replica->stats().base_generation == 1);
        CHECK(replica->stats().base_error.empty());
        CHECK(hits_of(replica->searcher(), queries) == expected);
    }
}

TEST_CASE("registry base: a version 1 registry migrates to the base tables", "[registry]") {
    std::string why_no_server;
    auto server = PgServer::start(why_no_server);
    if (!server) {
        SCOUT_SKIP_WITHOUT_FIXTURE(why_no_server);
    }
    {
        auto conn = scout::detail::PgConnection::connect(connect_to(*server));
        REQUIRE(conn.ok());
        REQUIRE(scout::detail::migrate(*conn, 1).ok());
        auto version = scout::detail::schema_version(*conn);
        REQUIRE(version.ok());
        CHECK(*version == 1);
    }
    // A version 1 registry asks for init before anything else.
    const scout::Status old = reg::status(connect_to(*server)).status();
    CHECK(old.code() == Errc::version_unsupported);
    CHECK_THAT(old.message(), Catch::Contains("registry init"));

    REQUIRE(reg::init(connect_to(*server)).ok());
    auto status = reg::status(connect_to(*server));
    REQUIRE(status.ok());
    CHECK(status->schema_version == reg::kSchemaVersion);
    REQUIRE(reg::push(connect_to(*server),
                      scout::testing::small_catalog(),
                      std::make_shared<CountingEmbedder>(kDim))
                .ok());
    auto base = builder_of(*server, server->dir().file("bases"))->publish();
    REQUIRE(base.ok());
    CHECK(base->generation == 1);
    CHECK(base->epoch == 1);
}

TEST_CASE("registry base: a DEGRADED server in a base leaves search at its TTL", "[registry]") {
    START_SERVER(server);
    const fs::path dir = server->dir().file("bases");
    CatalogSpec spec = scout::testing::small_catalog();
    spec.servers[0].status = scout::ServerStatus::degraded;
    const std::string server_name = spec.servers[0].name;
    REQUIRE(reg::push(connect_to(*server), spec, std::make_shared<CountingEmbedder>(kDim)).ok());
    // The builder (TTL 24 h) searches it, so the base holds it as searchable.
    REQUIRE(builder_of(*server, dir)->publish().ok());

    reg::ReplicaOptions options;
    options.connect = connect_to(*server);
    options.base_directory = dir;
    options.degraded_ttl = std::chrono::seconds(2);
    auto replica = reg::Replica::create(options, std::make_shared<CountingEmbedder>(kDim));
    REQUIRE(replica.ok());
    const auto searched = [&] {
        scout::SearchOptions all;
        all.top_k = 100;
        for (const scout::Hit& hit : (*replica)->searcher().list_tools(all)) {
            if (hit.server == server_name) {
                return true;
            }
        }
        return false;
    };
    REQUIRE((*replica)->sync().ok());
    REQUIRE((*replica)->stats().base_generation == 1);
    CHECK(searched());
    CHECK((*replica)->stats().degraded_served == std::vector<std::string>{server_name});
    // Bounded: the TTL is counted from the push, so at most 2 s (and the server's clock) away.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (searched() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        REQUIRE((*replica)->sync().ok());
    }
    CHECK_FALSE(searched());
    CHECK((*replica)->stats().degraded_expired == 1);
}

TEST_CASE("registry base: only names a builder makes are base file names", "[registry]") {
    using scout::detail::base_file_name;
    using scout::detail::is_base_file_name;
    const std::string digest(64, 'a');
    CHECK(base_file_name(7, digest) == "base-7-aaaaaaaaaaaaaaaa.scout");
    CHECK(is_base_file_name(base_file_name(7, digest)));
    CHECK(is_base_file_name(base_file_name(18446744073709551615ULL, "0123456789abcdef0123")));
    CHECK(scout::detail::manifest_name("base-7-aaaaaaaaaaaaaaaa.scout") ==
          "base-7-aaaaaaaaaaaaaaaa.json");
    for (const char* bad : {"",
                            "base-.scout",
                            "base--aaaaaaaaaaaaaaaa.scout",
                            "base-7-aaaaaaaaaaaaaaa.scout",    // 15 digits
                            "base-7-aaaaaaaaaaaaaaaaa.scout",  // 17 digits
                            "base-7-AAAAAAAAAAAAAAAA.scout",   // upper case
                            "base-x-aaaaaaaaaaaaaaaa.scout",
                            "../base-7-aaaaaaaaaaaaaaaa.scout",
                            "base-7-aaaaaaaaaaaaaaaa.scout/..",
                            "base-7/aaaaaaaaaaaaaaaa.scout",
                            "base-7-aaaaaaaaaaaaaaaa.json",
                            "base-123456789012345678901-aaaaaaaaaaaaaaaa.scout"}) {
        INFO(bad);
        CHECK_FALSE(is_base_file_name(bad));
    }
}
