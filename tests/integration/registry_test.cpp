// registry_test.cpp: the PostgreSQL registry against a real server of its own per test case
// (tests/support/pg_server.hpp): schema and migrations, push, the change feed's semantics
// (duplicates, gaps, missed notifications, restarts), bad rows, bounded waits and refused
// passwords (registry_operations_test.cpp: the follower, the operator CLI, partial pushes).
#include "scout/registry/registry.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"
#include "scout/embedder.hpp"

#include "registry/change_feed.hpp"
#include "registry/pg_connection.hpp"
#include "registry/replica_impl.hpp"
#include "registry/row_codec.hpp"
#include "support/counting_embedder.hpp"
#include "support/fixture_skip.hpp"
#include "support/pg_server.hpp"
#include "support/registry_fixture.hpp"
#include "support/test_catalogs.hpp"

namespace {

using scout::Errc;
using scout::detail::PgParam;
using namespace scout::test::registry_fixture;  // reg::, PgServer, connections, replicas

}  // namespace

TEST_CASE("registry: init is idempotent and records the schema version", "[registry]") {
    START_SERVER(server);
    REQUIRE(reg::init(connect_to(*server)).ok());
    auto status = reg::status(connect_to(*server));
    REQUIRE(status.ok());
    CHECK(status->schema_version == reg::kSchemaVersion);
    CHECK(status->head_seq == 0);
    CHECK(status->servers == 0);
}

TEST_CASE("registry: a schema newer than the code is refused, the replica keeps its state",
          "[registry]") {
    START_SERVER(server);
    auto embedder = std::make_shared<CountingEmbedder>(kDim);
    REQUIRE(reg::push(connect_to(*server), scout::testing::small_catalog(), embedder).ok());
    auto replica = replica_of(*server, std::make_shared<CountingEmbedder>(kDim));
    REQUIRE(replica->sync().ok());
    const auto before = hits_of(replica->searcher());

    auto conn = sql(*server);
    REQUIRE(conn.run("INSERT INTO scout_schema (version) VALUES ($1)",
                     {PgParam::number(reg::kSchemaVersion + 1)})
                .ok());
    const scout::Status init = reg::init(connect_to(*server));
    CHECK(init.code() == Errc::version_unsupported);
    CHECK_THAT(init.message(), Catch::Contains("newer than this scout knows"));
    CHECK(reg::status(connect_to(*server)).status().code() == Errc::version_unsupported);
    CHECK(reg::push(connect_to(*server), edited_catalog(), embedder).status().code() ==
          Errc::version_unsupported);

    // A new connection checks the version: the replica refuses, and serves what it had.
    REQUIRE(conn.run("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                     "application_name = 'scout' AND pid <> pg_backend_pid()")
                .ok());
    const scout::Status sync = replica->sync();
    CHECK(sync.code() == Errc::version_unsupported);
    CHECK(hits_of(replica->searcher()) == before);
    CHECK_THAT(replica->stats().last_error, Catch::Contains("version"));
}

TEST_CASE("registry: a replica serves what a local build serves, without calling its embedder",
          "[registry]") {
    START_SERVER(server);
    const CatalogSpec spec = scout::testing::small_catalog();
    auto pusher = std::make_shared<CountingEmbedder>(kDim);
    auto pushed = reg::push(connect_to(*server), spec, pusher);
    REQUIRE(pushed.ok());
    CHECK(pushed->changed == spec.servers.size());
    CHECK(pushed->vectors_added > 0);
    CHECK(pushed->head_seq == spec.servers.size());

    // The same catalog again: nothing changes, nothing is embedded.
    pusher->reset();
    auto again = reg::push(connect_to(*server), spec, pusher);
    REQUIRE(again.ok());
    CHECK(again->changed == 0);
    CHECK(again->unchanged == spec.servers.size());
    CHECK(again->vectors_added == 0);
    CHECK(again->head_seq == pushed->head_seq);
    CHECK(pusher->seen().empty());

    auto embedder = std::make_shared<CountingEmbedder>(kDim);
    auto replica = replica_of(*server, embedder);
    REQUIRE(replica->sync().ok());
    CHECK(replica->applied_seq() == pushed->head_seq);
    CHECK(embedder->seen().empty());  // every document vector came from the registry
    CHECK(replica->stats().vectors_fetched == pushed->vectors_added);
    CHECK(replica->stats().model_id == embedder->model_id());
    embedder->reset();
    CHECK(hits_of(replica->searcher()) == local_hits(spec));
    CHECK(embedder->seen().size() == queries().size());  // queries alone

    auto status = reg::status(connect_to(*server));
    REQUIRE(status.ok());
    CHECK(status->servers == spec.servers.size());
    CHECK(status->embeddings == pushed->vectors_added);
    CHECK(status->model_id == pusher->model_id());
}

TEST_CASE("registry: a writer keeps its connection and opens a new one once it broke",
          "[registry]") {
    START_SERVER(server);
    auto embedder = std::make_shared<CountingEmbedder>(kDim);
    reg::Writer writer(connect_to(*server), embedder);
    CHECK(writer.connections() == 0);  // opened by the first push
    auto first = writer.push(scout::testing::small_catalog());
    REQUIRE(first.ok());
    auto again = writer.push(scout::testing::small_catalog());  // nothing changed
    REQUIRE(again.ok());
    CHECK(again->changed == 0);
    CHECK(again->head_seq == first->head_seq);
    auto edited = writer.push(edited_catalog(), {.remove_missing = true});
    REQUIRE(edited.ok());
    CHECK(edited->changed == 2);  // one tool described anew, one server added
    CHECK(edited->removed == 1);
    CHECK(writer.connections() == 1);

    // Tools are written in one statement per server, as array elements: quotes, backslashes
    // and braces come back as they went in.
    CatalogSpec quoted = edited_catalog();
    quoted.servers[0].tools[0].description = R"(Says "hi" \ {braces}, \"escaped\" and ',')";
    auto quoted_push = writer.push(quoted);
    REQUIRE(quoted_push.ok());
    auto conn = sql(*server);
    for (const scout::ToolSpec& tool : quoted.servers[0].tools) {
        auto row = conn.exec(
            "SELECT spec, content_hash FROM scout_tools WHERE server = $1 AND "
            "name = $2",
            {PgParam::text(quoted.servers[0].name), PgParam::text(tool.name)});
        REQUIRE(row.ok());
        REQUIRE(row->rows() == 1);
        CHECK(row->text(0, 0) == scout::detail::tool_json(tool));
        CHECK(row->bytes(0, 1) == scout::detail::content_hash(scout::detail::tool_json(tool)));
    }

    // A restart drops the kept connection; the next push finds it broken and pushes again on
    // a new one.
    REQUIRE(server->restart());
    CatalogSpec relisted = quoted;
    relisted.servers[0].tools[0].description += " Drafts too.";
    auto after_restart = writer.push(relisted);
    REQUIRE(after_restart.ok());
    CHECK(after_restart->changed == 1);
    CHECK(after_restart->head_seq == quoted_push->head_seq + 1);
    CHECK(writer.connections() == 2);
    auto replica = replica_of(*server, std::make_shared<CountingEmbedder>(kDim));
    REQUIRE(replica->sync().ok());
    CHECK(replica->stats().applied_seq == after_restart->head_seq);
    CHECK(hits_of(replica->searcher()) == local_hits(relisted));

    // With the server gone a push fails, bounded by the connect timeout, and says why.
    server->stop();
    auto refused = writer.push(scout::testing::small_catalog());
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.status().code() == Errc::unavailable);
}

TEST_CASE("registry: a duplicate batch is a no-op and a gap is refilled", "[registry]") {
    START_SERVER(server);
    auto embedder = std::make_shared<CountingEmbedder>(kDim);
    REQUIRE(reg::push(connect_to(*server), scout::testing::small_catalog(), embedder).ok());
    auto replica = replica_of(*server, std::make_shared<CountingEmbedder>(kDim));
    reg::Replica::Impl& impl = scout::detail::ReplicaAccess::impl(*replica);
    REQUIRE(replica->sync().ok());
    const std::uint64_t first = replica->applied_seq();
    const std::uint64_t generation = replica->searcher().generation();

    auto conn = sql(*server);
    auto everything = scout::detail::read_changes(conn, position_after(0), 1000);
    REQUIRE(everything.ok());
    REQUIRE(everything->rows.size() == first);
    {
        std::lock_guard lock(impl.apply_mutex);
        REQUIRE(impl.apply(*everything).ok());  // delivered twice
    }
    CHECK(replica->searcher().generation() == generation);
    CHECK(replica->applied_seq() == first);

    auto pushed =
        reg::push(connect_to(*server), edited_catalog(), embedder, {.remove_missing = true});
    REQUIRE(pushed.ok());
    REQUIRE(pushed->head_seq >= first + 2);
    auto later = scout::detail::read_changes(conn, position_after(first), 1000);
    REQUIRE(later.ok());
    later->rows.erase(later->rows.begin());  // the first new change never arrived
    {
        std::lock_guard lock(impl.apply_mutex);
        const scout::Status gap = impl.apply(*later);
        CHECK(scout::detail::is_gap(gap));
    }
    CHECK(replica->applied_seq() == first);
    CHECK(replica->searcher().generation() == generation);

    REQUIRE(replica->sync().ok());  // reads from applied_seq + 1 again
    CHECK(replica->applied_seq() == pushed->head_seq);
    CHECK(replica->stats().gaps == 1);
    CHECK(hits_of(replica->searcher()) == local_hits(edited_catalog()));
}

/// True when a search for `query` on `replica` finds a tool of `server`.
bool finds(const reg::Replica& replica, const std::string& query, const std::string& server) {
    auto result = replica.searcher().search(query, {.top_k = 5});
    REQUIRE(result.ok());
    return std::any_of(result->hits.begin(), result->hits.end(), [&](const scout::Hit& hit) {
        return hit.server == server;
    });
}

scout::ServerSpec pager_server(scout::ServerStatus status) {
    return {"pager",
            "On-call paging.",
            "operations",
            "",
            status,
            {{"page_oncall", "", "Page the engineer on call.", "", ""}}};
}

TEST_CASE("registry: a DEGRADED server is searched until its TTL after its last listing",
          "[registry]") {
    START_SERVER(server);
    auto embedder = std::make_shared<CountingEmbedder>(kDim);
    CatalogSpec spec = scout::testing::small_catalog();
    spec.servers.push_back(pager_server(scout::ServerStatus::active));
    REQUIRE(reg::push(connect_to(*server), spec, embedder).ok());
    // Last listed two days ago; then its backend went down and a push marked it DEGRADED,
    // which keeps the time of that last listing.
    auto conn = sql(*server);
    REQUIRE(conn.run("UPDATE scout_servers SET listed_at = now() - interval '2 days' "
                     "WHERE name = 'pager'")
                .ok());
    REQUIRE(reg::push(connect_to(*server),
                      CatalogSpec{{pager_server(scout::ServerStatus::degraded)}},
                      embedder)
                .ok());
    auto age = conn.exec(
        "SELECT extract(epoch FROM now() - listed_at) > 86400 FROM scout_servers "
        "WHERE name = 'pager'");
    REQUIRE(age.ok());
    CHECK(age->text(0, 0) == "t");
    const std::string query = "page the engineer on call";

    auto replica_with_ttl = [&](std::chrono::seconds ttl) {
        reg::ReplicaOptions options;
        options.connect = connect_to(*server);
        options.degraded_ttl = ttl;
        auto made = reg::Replica::create(options, std::make_shared<CountingEmbedder>(kDim));
        REQUIRE(made.ok());
        REQUIRE(made.value()->sync().ok());
        return std::move(made.value());
    };
    using std::chrono::hours;
    using std::chrono::seconds;

    // The default TTL (24 h) has passed: not searched, as in one process.
    auto day = replica_with_ttl(hours(24));
    CHECK_FALSE(finds(*day, query, "pager"));
    CHECK(day->stats().degraded_served.empty());
    CHECK(finds(*day, "open a pull request", "github"));
    // A TTL of three days: still searched, and reported as degraded.
    auto three_days = replica_with_ttl(hours(72));
    CHECK(finds(*three_days, query, "pager"));
    CHECK(three_days->stats().degraded_served == std::vector<std::string>{"pager"});

    // A TTL that runs out two seconds from now: searched, then gone at the next catch-up after
    // it (no change in the registry needed).
    auto soon = replica_with_ttl(hours(48) + seconds(2));
    CHECK(finds(*soon, query, "pager"));
    for (int i = 0; i < 150 && finds(*soon, query, "pager"); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        REQUIRE(soon->sync().ok());
    }
    CHECK_FALSE(finds(*soon, query, "pager"));
    CHECK(soon->stats().degraded_expired == 1);
    CHECK(soon->stats().degraded_served.empty());

    // Listed again while healthy: searched everywhere, degraded nowhere. A server first pushed
    // DEGRADED is listed now, so searched for the whole TTL.
    CatalogSpec relisted{{pager_server(scout::ServerStatus::active),
                          {"flaky",
                           "A flaky service.",
                           "operations",
                           "",
                           scout::ServerStatus::degraded,
                           {{"restart_flaky", "", "Restart the flaky service.", "", ""}}}}};
    REQUIRE(reg::push(connect_to(*server), relisted, embedder).ok());
    for (auto* r : {day.get(), soon.get()}) {
        REQUIRE(r->sync().ok());
        CHECK(finds(*r, query, "pager"));
        CHECK(finds(*r, "restart the flaky service", "flaky"));
        CHECK(r->stats().degraded_served == std::vector<std::string>{"flaky"});
    }
}

TEST_CASE("registry: a replica whose missing changes left the log reads the whole registry",
          "[registry]") {
    START_SERVER(server);
    auto embedder = std::make_shared<CountingEmbedder>(kDim);
    REQUIRE(reg::push(connect_to(*server), scout::testing::small_catalog(), embedder).ok());
    auto replica = replica_of(*server, std::make_shared<CountingEmbedder>(kDim));
    REQUIRE(replica->sync().ok());
    auto pushed =
        reg::push(connect_to(*server), edited_catalog(), embedder, {.remove_missing = true});
    REQUIRE(pushed.ok());

    auto conn = sql(*server);
    REQUIRE(conn.run("DELETE FROM scout_changes").ok());  // as a compaction would
    auto replica_embedder = std::make_shared<CountingEmbedder>(kDim);
    auto fresh = replica_of(*server, replica_embedder);
    REQUIRE(replica->sync().ok());
    REQUIRE(fresh->sync().ok());
    for (const auto* r : {replica.get(), fresh.get()}) {
        CHECK(r->applied_seq() == pushed->head_seq);
        CHECK(r->stats().resyncs == 1);
        CHECK(hits_of(r->searcher()) == local_hits(edited_catalog()));
    }
    CHECK(replica_embedder->seen().size() == queries().size());  // no document embedded
}

TEST_CASE(
    "registry: gc trims the log and older models, and replicas behind it read everything once",
    "[registry]") {
    START_SERVER(server);
    auto embedder = std::make_shared<CountingEmbedder>(kDim);
    REQUIRE(reg::push(connect_to(*server), scout::testing::small_catalog(), embedder).ok());
    auto near = replica_of(*server, std::make_shared<CountingEmbedder>(kDim));
    REQUIRE(near->sync().ok());
    auto pushed =
        reg::push(connect_to(*server), edited_catalog(), embedder, {.remove_missing = true});
    REQUIRE(pushed.ok());
    const std::uint64_t changes = pushed->head_seq - near->applied_seq();
    // Vectors of another model (another dimension) are dropped: only the latest model stays.
    auto other = std::make_shared<CountingEmbedder>(kDim * 2);
    REQUIRE(reg::push(connect_to(*server), scout::testing::small_catalog(), other).ok());
    auto last =
        reg::push(connect_to(*server), edited_catalog(), embedder, {.remove_missing = true});
    REQUIRE(last.ok());
    const std::uint64_t head = last->head_seq;

    reg::GcOptions trim;
    trim.keep_changes = changes + 2;
    auto trimmed = reg::gc(connect_to(*server), trim);
    REQUIRE(trimmed.ok());
    CHECK(trimmed->changes_removed == head - (changes + 2));
    CHECK(trimmed->models_removed == 1);
    CHECK(trimmed->vectors_removed > 0);
    auto status = reg::status(connect_to(*server));
    REQUIRE(status.ok());
    CHECK(status->changes == changes + 2);
    CHECK(status->model_id == embedder->model_id());

    auto fresh_embedder = std::make_shared<CountingEmbedder>(kDim);
    auto fresh = replica_of(*server, fresh_embedder);
    REQUIRE(fresh->sync().ok());
    CHECK(fresh->stats().resyncs == 1);
    CHECK(fresh_embedder->seen().empty());
    REQUIRE(near->sync().ok());
    for (const auto* r : {near.get(), fresh.get()}) {
        CHECK(r->applied_seq() == head);
        CHECK(hits_of(r->searcher()) == local_hits(edited_catalog()));
    }
}

TEST_CASE("registry: a replica restarted mid-way converges to a fresh build", "[registry]") {
    START_SERVER(server);
    auto embedder = std::make_shared<CountingEmbedder>(kDim);
    REQUIRE(reg::push(connect_to(*server), scout::testing::small_catalog(), embedder).ok());
    REQUIRE(
        reg::push(connect_to(*server), edited_catalog(), embedder, {.remove_missing = true}).ok());

    // One replica applies the first two changes only, then stops (its process ends).
    {
        auto partial = replica_of(*server, std::make_shared<CountingEmbedder>(kDim));
        reg::Replica::Impl& impl = scout::detail::ReplicaAccess::impl(*partial);
        auto conn = sql(*server);
        auto two = scout::detail::read_changes(conn, position_after(0), 2);
        REQUIRE(two.ok());
        std::lock_guard lock(impl.apply_mutex);
        REQUIRE(impl.apply(*two).ok());
        CHECK(partial->applied_seq() == 2);
    }
    // Restarted, with a small batch size so it catches up over several batches.
    auto restarted_embedder = std::make_shared<CountingEmbedder>(kDim);
    auto restarted = replica_of(*server, restarted_embedder, 2);
    REQUIRE(restarted->sync().ok());
    auto fresh = replica_of(*server, std::make_shared<CountingEmbedder>(kDim));
    REQUIRE(fresh->sync().ok());
    CHECK(restarted->applied_seq() == fresh->applied_seq());
    CHECK(restarted->stats().batches > 1);
    CHECK(restarted_embedder->seen().empty());
    CHECK(hits_of(restarted->searcher()) == hits_of(fresh->searcher()));
    CHECK(hits_of(fresh->searcher()) == local_hits(edited_catalog()));
}

TEST_CASE("registry: bad rows are refused and the replica keeps its last good state",
          "[registry]") {
    START_SERVER(server);
    auto embedder = std::make_shared<CountingEmbedder>(kDim);
    REQUIRE(reg::push(connect_to(*server), scout::testing::small_catalog(), embedder).ok());
    auto replica = replica_of(*server, std::make_shared<CountingEmbedder>(kDim));
    REQUIRE(replica->sync().ok());
    const std::uint64_t good = replica->applied_seq();
    const auto before = hits_of(replica->searcher());
    auto pushed =
        reg::push(connect_to(*server), edited_catalog(), embedder, {.remove_missing = true});
    REQUIRE(pushed.ok());
    REQUIRE(pushed->vectors_added > 0);
    auto conn = sql(*server);

    std::string tamper;
    std::string expected;
    SECTION("malformed spec JSON") {
        tamper = "UPDATE scout_changes SET spec = '{\"servers\": [{\"name\": ' WHERE seq = " +
                 std::to_string(good + 1);
        expected = "registry change " + std::to_string(good + 1);
    }
    SECTION("a spec naming another server") {
        tamper =
            "UPDATE scout_changes SET server = 'other' WHERE seq = " + std::to_string(good + 1);
        expected = "names another server";
    }
    SECTION("a vector of the wrong dimension") {
        tamper = "UPDATE scout_embeddings SET vector = '\\x0000803f'::bytea WHERE added_seq > " +
                 std::to_string(good);
        expected = "expected 16 float32 components";
    }
    SECTION("a NaN vector") {
        const std::vector<float> nan(kDim, std::numeric_limits<float>::quiet_NaN());
        REQUIRE(conn.run("UPDATE scout_embeddings SET vector = $1 WHERE added_seq > " +
                             std::to_string(good),
                         {PgParam::bytes(scout::detail::encode_vector(nan))})
                    .ok());
        expected = "NaN";
    }
    if (!tamper.empty()) {
        REQUIRE(conn.run(tamper).ok());
    }
    const scout::Status s = replica->sync();
    INFO(s.to_string());
    CHECK_FALSE(s.ok());
    CHECK_THAT(s.message(), Catch::Contains(expected));
    CHECK(replica->applied_seq() == good);
    CHECK(hits_of(replica->searcher()) == before);
    CHECK_THAT(replica->stats().last_error, Catch::Contains(expected));
    CHECK(replica->stats().failures == 1);
}

TEST_CASE("registry: connects and statements are bounded in time", "[registry]") {
    START_SERVER(server);
    using Clock = std::chrono::steady_clock;
    // A statement the server runs past its timeout is cancelled there, with its reason.
    reg::ConnectOptions quick = connect_to(*server);
    quick.statement_timeout = std::chrono::milliseconds(200);
    auto conn = PgConnection::connect(quick);
    REQUIRE(conn.ok());
    auto t0 = Clock::now();
    const scout::Status slow = conn->run("SELECT pg_sleep(10)");
    CHECK(Clock::now() - t0 < std::chrono::seconds(3));
    CHECK(slow.code() == Errc::unavailable);
    CHECK_THAT(slow.message(), Catch::Contains("statement timeout"));

    // A peer that accepts the connection and never answers: the connect gives up on time.
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(fd >= 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(::listen(fd, 4) == 0);
    REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
    reg::ConnectOptions silent;
    silent.url = "postgresql://scout@127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/db";
    silent.connect_timeout = std::chrono::milliseconds(300);
    t0 = Clock::now();
    const scout::Status hung = reg::init(silent);
    const auto took = Clock::now() - t0;
    ::close(fd);
    CHECK(took < std::chrono::seconds(2));
    CHECK(hung.code() == Errc::unavailable);
    CHECK_THAT(hung.message(), Catch::Contains("within 300 ms"));
}

TEST_CASE("registry: a refused or missing password is a clear error", "[registry]") {
    START_SERVER(server);
    reg::ConnectOptions tcp;
    tcp.url = server->tcp_url();
    tcp.password_file = server->dir().write("wrong-password", "not-the-password\n");
    const scout::Status refused = reg::init(tcp);
    CHECK(refused.code() == Errc::unavailable);
    CHECK_THAT(refused.message(), Catch::Contains("refused the password"));

    reg::ReplicaOptions options;
    options.connect = tcp;
    auto replica = reg::Replica::create(options);
    REQUIRE(replica.ok());
    CHECK_THAT((*replica)->sync().message(), Catch::Contains("refused the password"));
    CHECK((*replica)->searcher().search("anything").value().catalog_empty);

    tcp.password_file = server->dir().write("password", std::string(PgServer::kPassword) + "\n");
    CHECK(reg::status(tcp).ok());

    CHECK(reg::check_url("postgresql://scout:secret@127.0.0.1/db").code() ==
          Errc::invalid_argument);
    CHECK(reg::check_url("host=127.0.0.1 password=secret").code() == Errc::invalid_argument);
    CHECK(reg::check_url(server->tcp_url()).ok());
    reg::ConnectOptions leaky;
    leaky.url = "postgresql://scout:secret@127.0.0.1/db";
    CHECK(reg::init(leaky).message().find("secret") == std::string::npos);
}
