// registry_outcomes_test.cpp: learning shared by a fleet, against a real PostgreSQL of each
// case's own. Outcomes recorded on one replica reorder every replica's outcome-prior ranking
// alike, with equal scores (a constructed catalog where two tools tie for the query); a replica
// joining from a base plus the log gets the same prior; a re-read batch changes nothing; pruning
// keeps what a joining replica needs; a registry that is down delays outcomes without failing
// search or record; a version 2 registry migrates to 3.
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"
#include "scout/registry/registry.hpp"

#include "registry/outcome_log.hpp"
#include "registry/pg_connection.hpp"
#include "registry/replica_impl.hpp"
#include "registry/schema.hpp"
#include "support/fixture_skip.hpp"
#include "support/pg_server.hpp"
#include "support/test_catalogs.hpp"

namespace {

using scout::Errc;
using scout::Outcome;
using scout::test::PgServer;
using scout::testing::twin_catalog;
namespace reg = scout::registry;
namespace fs = std::filesystem;

reg::ConnectOptions connect_to(const PgServer& server) {
    return {.url = server.url(),
            .password_file = {},
            .connect_timeout = std::chrono::milliseconds(5000),
            .statement_timeout = std::chrono::milliseconds(5000)};
}

std::unique_ptr<reg::Replica> replica_of(const PgServer& server,
                                         const fs::path& base_dir = {},
                                         std::size_t queue = 1024) {
    reg::ReplicaOptions options;
    options.connect = connect_to(server);
    options.connect.connect_timeout = std::chrono::milliseconds(2000);
    options.base_directory = base_dir;
    options.outcome_queue = queue;
    options.outcome_rate = 1e6;  // the rate cap has its own case
    options.outcome_batch = 3;   // several batches per catch-up
    auto replica = reg::Replica::create(options);
    REQUIRE(replica.ok());
    return std::move(replica.value());
}

const std::string kQuery = "post to the channel";

/// The outcome-prior ranking of kQuery: "server/tool score" lines, scores exact.
std::vector<std::string> ranked(const reg::Replica& replica) {
    auto result = replica.searcher().search(kQuery, {.top_k = 8, .outcome_prior = true});
    REQUIRE(result.ok());
    std::vector<std::string> out;
    for (const scout::Hit& hit : result->hits) {
        out.push_back(hit.server + "/" + hit.tool + " " + std::to_string(hit.score));
    }
    return out;
}

std::string top_tool(const reg::Replica& replica) {
    // The prior re-ranks the hits a search returns: ask for all of them.
    auto result = replica.searcher().search(kQuery, {.top_k = 8, .outcome_prior = true});
    REQUIRE(result.ok());
    REQUIRE_FALSE(result->hits.empty());
    return result->hits.front().server + "/" + result->hits.front().tool;
}

/// The tool kQuery ranks second without the prior: successes lift it to the top.
scout::ToolKey runner_up(const reg::Replica& replica) {
    auto result = replica.searcher().search(kQuery, {.top_k = 8});
    REQUIRE(result.ok());
    REQUIRE(result->hits.size() >= 2);
    const scout::Hit& second = result->hits[1];
    return {second.server, second.tool};
}

void record(reg::Replica& replica, const scout::ToolKey& tool, int successes, int failures = 0) {
    for (int i = 0; i < successes; ++i) {
        REQUIRE(
            replica.record_outcome("post it to the channel please", tool, Outcome::success).ok());
    }
    for (int i = 0; i < failures; ++i) {
        REQUIRE(
            replica.record_outcome("post it to the channel please", tool, Outcome::failure).ok());
    }
}

#define START_SERVER(server)                       \
    std::string why_no_server;                     \
    auto server = PgServer::start(why_no_server);  \
    if (!server) {                                 \
        SCOUT_SKIP_WITHOUT_FIXTURE(why_no_server); \
    }                                              \
    REQUIRE(reg::init(connect_to(*server)).ok());  \
    REQUIRE(reg::push(connect_to(*server), twin_catalog(), nullptr).ok())

}  // namespace

TEST_CASE("registry outcomes: one replica's outcomes reorder every replica alike", "[registry]") {
    START_SERVER(server);
    auto a = replica_of(*server);
    auto b = replica_of(*server);
    REQUIRE(a->sync().ok());
    REQUIRE(b->sync().ok());
    const std::vector<std::string> before = ranked(*b);
    REQUIRE(before == ranked(*a));
    const scout::ToolKey lifted = runner_up(*a);
    REQUIRE(top_tool(*a) != lifted.server + "/" + lifted.tool);

    record(*a, lifted, 5, 1);
    // Queued, not applied yet: the prior changes when the events come back through the log.
    CHECK(a->stats().outcomes_queued == 6);
    CHECK(ranked(*a) == before);
    REQUIRE(a->sync().ok());
    CHECK(a->stats().outcomes_pushed == 6);
    CHECK(a->stats().outcome_seq == 6);
    CHECK(top_tool(*a) == lifted.server + "/" + lifted.tool);

    REQUIRE(b->sync().ok());
    CHECK(b->stats().outcome_events_applied == 6);
    CHECK(top_tool(*b) == lifted.server + "/" + lifted.tool);
    CHECK(ranked(*b) == ranked(*a));  // the same prior: the same scores
    CHECK(ranked(*b) != before);

    // Both record, interleaved: after both catch up, both priors are the same again.
    const scout::ToolKey other{"chat", "list_users"};
    record(*b, other, 4);
    record(*a, lifted, 2);
    REQUIRE(b->sync().ok());
    REQUIRE(a->sync().ok());
    REQUIRE(b->sync().ok());
    CHECK(a->stats().outcome_seq == 12);
    CHECK(b->stats().outcome_seq == 12);
    CHECK(ranked(*a) == ranked(*b));

    // Outcomes are checked as Catalog::record_outcome checks them.
    CHECK(a->record_outcome("", lifted, Outcome::success).code() == Errc::invalid_argument);
    CHECK(a->record_outcome("post", {"chat", "no_such_tool"}, Outcome::success).code() ==
          Errc::not_found);
}

TEST_CASE("registry outcomes: a re-read batch changes nothing", "[registry]") {
    START_SERVER(server);
    auto a = replica_of(*server);
    REQUIRE(a->sync().ok());
    const scout::ToolKey lifted = runner_up(*a);
    record(*a, lifted, 3);
    REQUIRE(a->sync().ok());
    const std::vector<std::string> after = ranked(*a);

    // The same events read again from before the position: replaying them is refused by the
    // position, so the prior is unchanged.
    auto& impl = scout::detail::ReplicaAccess::impl(*a);
    {
        std::lock_guard lock(impl.apply_mutex);
        REQUIRE(impl.reader);
        auto again = scout::detail::read_outcomes(*impl.reader, 0, 100);
        REQUIRE(again.ok());
        CHECK(again->events.size() == 3);
        CHECK(again->last == impl.outcome_applied);
    }
    REQUIRE(a->sync().ok());
    CHECK(ranked(*a) == after);
    CHECK(a->stats().outcome_events_applied == 3);

    // An append retried after its commit went unacknowledged appends nothing twice.
    std::vector<scout::detail::PendingOutcome> pending;
    auto analysed =
        a->catalog().analyse_outcome("post it to the channel please", lifted, Outcome::success);
    REQUIRE(analysed.ok());
    pending.push_back({1, *analysed});
    pending.push_back({2, *analysed});
    auto conn = scout::detail::PgConnection::connect(connect_to(*server));
    REQUIRE(conn.ok());
    auto head = scout::detail::append_outcomes(*conn, "retrying-replica", pending, 1000);
    REQUIRE(head.ok());
    CHECK(*head == 5);
    auto retried = scout::detail::append_outcomes(*conn, "retrying-replica", pending, 1000);
    REQUIRE(retried.ok());
    CHECK(*retried == 5);
}

TEST_CASE(
    "registry outcomes: a replica joining from a base gets the same prior, and gc keeps "
    "what it needs",
    "[registry]") {
    START_SERVER(server);
    const fs::path dir = server->dir().file("bases");
    auto a = replica_of(*server);
    REQUIRE(a->sync().ok());
    const scout::ToolKey lifted = runner_up(*a);
    record(*a, lifted, 4, 1);
    REQUIRE(a->sync().ok());

    reg::BuilderOptions options;
    options.replica.connect = connect_to(*server);
    options.directory = dir;
    auto builder = reg::BaseBuilder::start(options);
    REQUIRE(builder.ok());
    auto base = (*builder)->publish();
    REQUIRE(base.ok());
    CHECK(base->outcome_seq == 5);
    auto latest = reg::latest_base(connect_to(*server));
    REQUIRE(latest.ok());
    CHECK(latest->outcome_seq == 5);

    // More outcomes after the base, then the log is pruned with no margin: only the events
    // after the base's outcome sequence are left, which is what a joining replica replays.
    record(*a, {"chat", "list_users"}, 3);
    REQUIRE(a->sync().ok());
    reg::GcOptions no_margin;
    no_margin.outcome_margin = 0;
    auto collected = reg::gc(connect_to(*server), no_margin);
    REQUIRE(collected.ok());
    CHECK(collected->outcome_events_removed == 5);

    auto joined = replica_of(*server, dir);
    REQUIRE(joined->sync().ok());
    const reg::ReplicaStats stats = joined->stats();
    CHECK(stats.base_error.empty());
    CHECK(stats.outcome_base_seq == 5);
    CHECK(stats.outcome_events_applied == 3);
    CHECK(stats.outcome_events_skipped == 0);
    CHECK(stats.outcome_seq == 8);
    CHECK(ranked(*joined) == ranked(*a));

    // A replica from sequence 0 no longer finds the pruned events: it says so.
    auto from_zero = replica_of(*server);
    REQUIRE(from_zero->sync().ok());
    CHECK(from_zero->stats().outcome_events_skipped == 5);
    CHECK(from_zero->stats().outcome_seq == 8);

    // The row cap alone also bounds the log.
    reg::GcOptions one_event;
    one_event.keep_outcome_events = 1;
    auto capped = reg::gc(connect_to(*server), one_event);
    REQUIRE(capped.ok());
    CHECK(capped->outcome_events_removed == 2);
}

TEST_CASE("registry outcomes: a registry that is down delays outcomes, never fails search",
          "[registry]") {
    START_SERVER(server);
    auto a = replica_of(*server, {}, 4);
    auto b = replica_of(*server);
    REQUIRE(a->sync().ok());
    REQUIRE(b->sync().ok());
    const scout::ToolKey lifted = runner_up(*a);

    const std::string script = std::string(SCOUT_TEST_SOURCE_DIR) +
                               "/tests/support/pg_test_server.sh stop " + server->dir().file("pg");
    REQUIRE(std::system(("timeout 30 " + script + " > /dev/null 2>&1").c_str()) == 0);
    // Record and search go on; past the queue's bound outcomes are dropped and counted.
    record(*a, lifted, 6);
    CHECK_FALSE(a->sync().ok());
    CHECK(a->searcher().search(kQuery, {.top_k = 3, .outcome_prior = true}).ok());
    reg::ReplicaStats down = a->stats();
    CHECK(down.outcomes_queued == 4);
    CHECK(down.outcomes_dropped == 2);
    CHECK(down.outcomes_pushed == 0);

    REQUIRE(server->restart());
    REQUIRE(a->sync().ok());
    REQUIRE(b->sync().ok());
    CHECK(a->stats().outcomes_pushed == 4);
    CHECK(a->stats().outcomes_queued == 0);
    CHECK(b->stats().outcome_seq == 4);
    CHECK(ranked(*a) == ranked(*b));
    CHECK(top_tool(*b) == lifted.server + "/" + lifted.tool);
}

TEST_CASE("registry outcomes: the rate cap drops the excess", "[registry]") {
    START_SERVER(server);
    reg::ReplicaOptions options;
    options.connect = connect_to(*server);
    options.outcome_rate = 2;  // a bucket of two: a burst of ten keeps two or three
    auto replica = reg::Replica::create(options);
    REQUIRE(replica.ok());
    REQUIRE((*replica)->sync().ok());
    record(**replica, {"chat", "post_note"}, 10);
    const reg::ReplicaStats stats = (*replica)->stats();
    CHECK(stats.outcomes_recorded + stats.outcomes_dropped == 10);
    CHECK(stats.outcomes_recorded >= 2);
    CHECK(stats.outcomes_dropped >= 5);
}

TEST_CASE("registry outcomes: a version 2 registry migrates to 3 in place", "[registry]") {
    std::string why_no_server;
    auto server = PgServer::start(why_no_server);
    if (!server) {
        SCOUT_SKIP_WITHOUT_FIXTURE(why_no_server);
    }
    {
        auto conn = scout::detail::PgConnection::connect(connect_to(*server));
        REQUIRE(conn.ok());
        REQUIRE(scout::detail::migrate(*conn, 2).ok());
        REQUIRE(conn->run("INSERT INTO scout_bases (generation, seq, digest, file_name, "
                          "model_id, epoch, tools) VALUES (1, 0, 'x', 'y', '', 1, 0)")
                    .ok());
    }
    CHECK(reg::status(connect_to(*server)).status().code() == Errc::version_unsupported);
    REQUIRE(reg::init(connect_to(*server)).ok());
    auto status = reg::status(connect_to(*server));
    REQUIRE(status.ok());
    CHECK(status->schema_version == 3);
    auto conn = scout::detail::PgConnection::connect(connect_to(*server));
    REQUIRE(conn.ok());
    // The old base row is kept, with no outcome events in its prior.
    auto kept = conn->exec("SELECT outcome_seq FROM scout_bases WHERE generation = 1");
    REQUIRE(kept.ok());
    REQUIRE(kept->rows() == 1);
    CHECK(kept->number(0, 0) == std::optional<std::uint64_t>(0));
    auto head = conn->exec("SELECT last_seq FROM scout_outcome_feed WHERE id = 1");
    REQUIRE(head.ok());
    CHECK(head->number(0, 0) == std::optional<std::uint64_t>(0));
    // Init again is a no-op.
    REQUIRE(reg::init(connect_to(*server)).ok());
}
