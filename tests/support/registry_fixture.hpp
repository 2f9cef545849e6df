// registry_fixture.hpp: what the registry tests share: the small catalog's queries and hits, a
// local build to compare a replica with, connections and replicas on the test's own PostgreSQL
// server (pg_server.hpp), and START_SERVER, which starts it or skips without one.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"
#include "scout/registry/registry.hpp"

#include "registry/change_feed.hpp"
#include "registry/pg_connection.hpp"
#include "support/counting_embedder.hpp"
#include "support/fixture_skip.hpp"
#include "support/pg_server.hpp"
#include "support/test_catalogs.hpp"

namespace scout::test::registry_fixture {

using scout::CatalogSpec;
using scout::detail::PgConnection;
using scout::test::CountingEmbedder;
using scout::test::PgServer;
namespace reg = scout::registry;

inline constexpr std::size_t kDim = 16;

inline const std::vector<std::string>& queries() {
    static const std::vector<std::string> all = {
        "open a pull request", "send a chat message", "run a sql query", "list tables", "merge"};
    return all;
}

/// Each query's hits as "name score" lines: two catalogs agree when these are equal.
inline std::vector<std::string> hits_of(const scout::Searcher& searcher) {
    std::vector<std::string> out;
    for (const std::string& q : queries()) {
        auto result = searcher.search(q, {.top_k = 5});
        REQUIRE(result.ok());
        for (const scout::Hit& hit : result->hits) {
            out.push_back(q + ": " + hit.name + " " + std::to_string(hit.score));
        }
    }
    return out;
}

/// What a scout process that indexes `spec` by itself serves.
inline std::vector<std::string> local_hits(const CatalogSpec& spec) {
    auto catalog = scout::Catalog::create({}, std::make_shared<CountingEmbedder>(kDim));
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_servers(spec).ok());
    REQUIRE(catalog->commit().ok());
    return hits_of(catalog->searcher());
}

/// The small catalog changed: one tool described anew, one server gone, one added.
inline CatalogSpec edited_catalog() {
    CatalogSpec spec = scout::testing::small_catalog();
    spec.servers[0].tools[1].description = "List the pull requests waiting for review.";
    spec.servers.erase(spec.servers.begin() + 1);
    spec.servers.push_back({"pager",
                            "On-call paging.",
                            "operations",
                            "",
                            scout::ServerStatus::active,
                            {{"page_oncall", "", "Page the engineer on call.", "", ""}}});
    return spec;
}

/// A read of the change log after `applied`, vectors included.
inline scout::detail::FeedPosition position_after(std::uint64_t applied) {
    scout::detail::FeedPosition position;
    position.applied = applied;
    position.wants_vectors = true;
    return position;
}

inline reg::ConnectOptions connect_to(const PgServer& server) {
    return {.url = server.url(),
            .password_file = {},
            .connect_timeout = std::chrono::milliseconds(5000),
            .statement_timeout = std::chrono::milliseconds(5000)};
}

inline PgConnection sql(const PgServer& server) {
    auto conn = PgConnection::connect(connect_to(server));
    REQUIRE(conn.ok());
    return std::move(conn.value());
}

inline std::unique_ptr<reg::Replica> replica_of(const PgServer& server,
                                                std::shared_ptr<scout::Embedder> embedder,
                                                std::size_t batch_rows = 1000) {
    reg::ReplicaOptions options;
    options.connect = connect_to(server);
    options.poll_interval = std::chrono::milliseconds(500);
    options.batch_rows = batch_rows;
    auto replica = reg::Replica::create(options, std::move(embedder));
    REQUIRE(replica.ok());
    return std::move(replica.value());
}

// Starts the test's server, or skips (fails under SCOUT_REQUIRE_FIXTURES=1) without PostgreSQL.
#define START_SERVER(server)                       \
    std::string why_no_server;                     \
    auto server = PgServer::start(why_no_server);  \
    if (!server) {                                 \
        SCOUT_SKIP_WITHOUT_FIXTURE(why_no_server); \
    }                                              \
    REQUIRE(reg::init(connect_to(*server)).ok())

}  // namespace scout::test::registry_fixture
