// registry_operations_test.cpp: the PostgreSQL registry as it is operated, against a real
// server of its own per test case: the follower thread applying pushes and recovering missed
// ones, the `scout registry` CLI, a partial push, and the measurement behind docs/scale-out.md.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"
#include "scout/catalog_loader.hpp"
#include "scout/embedder.hpp"
#include "scout/registry/registry.hpp"

#include "registry/pg_connection.hpp"
#include "support/counting_embedder.hpp"
#include "support/fixture_skip.hpp"
#include "support/pg_server.hpp"
#include "support/registry_fixture.hpp"
#include "support/test_catalogs.hpp"

namespace {

using scout::CatalogSpec;
using scout::Errc;
using namespace scout::test::registry_fixture;  // reg::, PgServer, connections, replicas

}  // namespace

TEST_CASE("registry: the follower applies pushes within a second and recovers missed ones",
          "[registry]") {
    START_SERVER(server);
    auto embedder = std::make_shared<CountingEmbedder>(kDim);
    REQUIRE(reg::push(connect_to(*server), scout::testing::small_catalog(), embedder).ok());
    auto replica_embedder = std::make_shared<CountingEmbedder>(kDim);
    auto replica = replica_of(*server, replica_embedder);
    replica->start();
    auto status = reg::status(connect_to(*server));
    REQUIRE(status.ok());
    REQUIRE(replica->wait_for(status->head_seq, std::chrono::seconds(10)));

    // Staleness: from the push's commit to the change being searchable in the replica.
    std::vector<double> staleness_ms;
    CatalogSpec spec = scout::testing::small_catalog();
    for (int i = 0; i < 15; ++i) {
        spec.servers[0].tools[2].description =
            "Merge an approved pull request, revision " + std::to_string(i) + ".";
        auto pushed = reg::push(connect_to(*server), spec, embedder);
        REQUIRE(pushed.ok());
        const auto committed = std::chrono::steady_clock::now();
        REQUIRE(replica->wait_for(pushed->head_seq, std::chrono::seconds(5)));
        staleness_ms.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - committed)
                .count());
    }
    std::sort(staleness_ms.begin(), staleness_ms.end());
    std::cout << "registry staleness (push committed -> applied in the replica), 15 pushes: "
                 "median "
              << staleness_ms[staleness_ms.size() / 2] << " ms, max " << staleness_ms.back()
              << " ms\n";
    CHECK(staleness_ms[staleness_ms.size() / 2] < 1000);
    CHECK(replica->stats().notifications > 0);

    // Read-your-writes: a sequence number not written yet is not waited for forever.
    const std::uint64_t head = replica->applied_seq();
    CHECK_FALSE(replica->wait_for(head + 1, std::chrono::milliseconds(50)));
    const auto not_yet = replica->searcher_at(head + 1, std::chrono::milliseconds(50));
    CHECK(not_yet.status().code() == Errc::unavailable);
    CHECK_THAT(not_yet.status().message(), Catch::Contains("not applied within 50 ms"));
    // A writer searches what it just pushed, through the replica.
    spec.servers[0].tools[2].description = "Merge an approved pull request into a release train.";
    auto written = reg::push(connect_to(*server), spec, embedder);
    REQUIRE(written.ok());
    auto fresh = replica->searcher_at(written->head_seq, std::chrono::seconds(5));
    REQUIRE(fresh.ok());
    auto train = fresh->search("release train", {.top_k = 1});
    REQUIRE(train.ok());
    REQUIRE(train->hits.size() == 1);
    CHECK(train->hits[0].tool == "merge_pull_request");

    // The replica's connections are cut and a push happens while it is away: its NOTIFY is
    // lost, the change is not.
    auto conn = sql(*server);
    REQUIRE(conn.run("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                     "application_name = 'scout' AND pid <> pg_backend_pid()")
                .ok());
    auto pushed =
        reg::push(connect_to(*server), edited_catalog(), embedder, {.remove_missing = true});
    REQUIRE(pushed.ok());
    REQUIRE(replica->wait_for(pushed->head_seq, std::chrono::seconds(10)));
    CHECK(replica->stats().reconnects >= 1);
    replica->stop();
    replica_embedder->reset();
    CHECK(hits_of(replica->searcher()) == local_hits(edited_catalog()));
    CHECK(replica_embedder->seen().size() == queries().size());
}

TEST_CASE("scout registry init, push, status, gc and publish", "[registry][cli]") {
    START_SERVER(server);
    const std::string cli = std::string(SCOUT_CLI_PATH) + " registry ";
    const std::string url = " --registry '" + server->url() + "'";
    const std::string err = server->dir().file("stderr");
    using scout::testing::run_cli;

    auto init = run_cli(SCOUT_CLI_PATH, "registry init --json" + url, err);
    CHECK(init.code == 0);
    CHECK_THAT(init.out,
               Catch::Contains("\"schema_version\": " + std::to_string(reg::kSchemaVersion)));

    const std::string catalog =
        std::string(SCOUT_TEST_SOURCE_DIR) + "/data/enterprise_catalog.json";
    auto push = run_cli(
        SCOUT_CLI_PATH, "registry push " + catalog + " --embedder hashing:32 --json" + url, err);
    INFO(push.err);
    CHECK(push.code == 0);
    CHECK_THAT(push.out, Catch::Contains("\"changed\": 82"));
    CHECK_THAT(push.out, Catch::Contains("\"vectors_added\": 650"));
    auto again = run_cli(
        SCOUT_CLI_PATH, "registry push " + catalog + " --embedder hashing:32 --json" + url, err);
    CHECK_THAT(again.out, Catch::Contains("\"unchanged\": 82"));
    CHECK_THAT(again.out, Catch::Contains("\"vectors_added\": 0"));
    auto status = run_cli(SCOUT_CLI_PATH, "registry status" + url, err);
    CHECK(status.code == 0);
    CHECK_THAT(status.out, Catch::Contains("82 servers, 650 tools"));

    const std::string bases = server->dir().file("bases");
    auto publish =
        run_cli(SCOUT_CLI_PATH,
                "registry publish --base-dir " + bases + " --embedder hashing:32 --json" + url,
                err);
    INFO(publish.err);
    CHECK(publish.code == 0);
    CHECK_THAT(publish.out, Catch::Contains("\"generation\": 1"));
    CHECK_THAT(publish.out, Catch::Contains("\"tools\": 650"));
    CHECK(run_cli(SCOUT_CLI_PATH, "registry publish" + url, err).code == 2);  // no --base-dir

    auto leaky = run_cli(SCOUT_CLI_PATH,
                         "registry status --registry postgresql://scout:secret@127.0.0.1/postgres",
                         err);
    CHECK(leaky.code == 2);
    CHECK_THAT(leaky.err, Catch::Contains("carries a password"));
    CHECK(leaky.err.find("secret") == std::string::npos);
    auto refused = run_cli("env PGPASSWORD=wrong " + std::string(SCOUT_CLI_PATH),
                           "registry status --registry " + server->tcp_url(),
                           err);
    CHECK(refused.code == 1);
    CHECK_THAT(refused.err, Catch::Contains("refused the password"));
    auto gc = run_cli(SCOUT_CLI_PATH, "registry gc --keep-changes 2 --json" + url, err);
    CHECK(gc.code == 0);
    CHECK_THAT(gc.out, Catch::Contains("\"changes_removed\": 80"));
    CHECK(run_cli(SCOUT_CLI_PATH, "registry gc --keep-changes -1" + url, err).code == 2);
    CHECK(run_cli(SCOUT_CLI_PATH, "registry compact" + url, err).code == 2);
    // A second base supersedes the first; gc --base-dir keeps the newest --keep-bases.
    auto second_base =
        run_cli(SCOUT_CLI_PATH,
                "registry publish --base-dir " + bases + " --embedder hashing:32 --json" + url,
                err);
    CHECK_THAT(second_base.out, Catch::Contains("\"generation\": 2"));
    auto gc_bases = run_cli(
        SCOUT_CLI_PATH, "registry gc --base-dir " + bases + " --keep-bases 1 --json" + url, err);
    INFO(gc_bases.err);
    CHECK(gc_bases.code == 0);
    CHECK_THAT(gc_bases.out, Catch::Contains("\"bases_removed\": 1"));
    std::size_t left = 0;
    for (const auto& entry : std::filesystem::directory_iterator(bases)) {
        CHECK_THAT(entry.path().filename().string(), Catch::StartsWith("base-2-"));
        ++left;
    }
    CHECK(left == 2);  // the base file and its manifest
    CHECK(run_cli(SCOUT_CLI_PATH, "registry gc --keep-bases 1" + url, err).code == 2);
}

TEST_CASE("registry: a partial push keeps the fleet's fitted model and embeds only what changed",
          "[registry]") {
    START_SERVER(server);
    auto model = scout::StaticEmbedder::load_default();
    if (!model.ok()) {
        SCOUT_SKIP_WITHOUT_FIXTURE(model.status().message());
    }
    const CatalogSpec spec = scout::testing::small_catalog();
    auto first = reg::push(connect_to(*server), spec, *model);
    REQUIRE(first.ok());
    // The static model fits word statistics to the corpus it is given: one server alone would
    // make another model, whose vectors no replica has.
    CatalogSpec one;
    one.servers.push_back(spec.servers[0]);
    one.servers[0].tools[0].description = "Open a pull request for review from a feature branch.";
    auto fresh_model = scout::StaticEmbedder::load_default();
    REQUIRE(fresh_model.ok());
    auto second = reg::push(connect_to(*server), one, *fresh_model);
    REQUIRE(second.ok());
    CHECK(second->model_id == first->model_id);
    CHECK(second->changed == 1);
    CHECK(second->vectors_added == 1);

    auto replica = replica_of(*server, *scout::StaticEmbedder::load_default());
    REQUIRE(replica->sync().ok());
    CHECK(replica->stats().model_id == first->model_id);
    CHECK(replica->stats().vectors_fetched == first->vectors_added + 1);
    auto hit = replica->searcher().search("open a pull request from a feature branch");
    REQUIRE(hit.ok());
    REQUIRE_FALSE(hit->hits.empty());
    CHECK(hit->hits[0].tool == "create_pull_request");
}

// Not run by ctest (hidden tag): the figures of docs/scale-out.md. Run it with
//   build/tests/test_registry "[.measure]"
TEST_CASE("registry: measured on the enterprise catalog", "[.measure]") {
    START_SERVER(server);
    auto model = scout::StaticEmbedder::load_default();
    if (!model.ok()) {
        SCOUT_SKIP_WITHOUT_FIXTURE(model.status().message());
    }
    auto spec = scout::load_catalog_file(std::string(SCOUT_TEST_SOURCE_DIR) +
                                         "/data/enterprise_catalog.json");
    REQUIRE(spec.ok());
    using Clock = std::chrono::steady_clock;
    const auto ms = [](Clock::duration d) {
        return std::chrono::duration<double, std::milli>(d).count();
    };
    const auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };

    auto t0 = Clock::now();
    auto first = reg::push(connect_to(*server), *spec, *model);
    const double push_ms = ms(Clock::now() - t0);
    REQUIRE(first.ok());
    t0 = Clock::now();
    auto again = reg::push(connect_to(*server), *spec, *model);
    const double repush_ms = ms(Clock::now() - t0);
    REQUIRE(again.ok());

    std::vector<double> local_ms;
    std::vector<double> replica_ms;
    for (int i = 0; i < 3; ++i) {
        auto fresh_model = scout::StaticEmbedder::load_default();
        REQUIRE(fresh_model.ok());
        t0 = Clock::now();
        auto local = scout::Catalog::create({}, *fresh_model);
        REQUIRE(local.ok());
        REQUIRE(local->upsert_servers(*spec).ok());
        REQUIRE(local->commit().ok());
        local_ms.push_back(ms(Clock::now() - t0));

        auto replica_model = scout::StaticEmbedder::load_default();
        REQUIRE(replica_model.ok());
        t0 = Clock::now();
        auto replica = replica_of(*server, *replica_model);
        REQUIRE(replica->sync().ok());
        replica_ms.push_back(ms(Clock::now() - t0));
        CHECK(replica->stats().vectors_fetched == first->vectors_added);
    }

    auto follower = replica_of(*server, *scout::StaticEmbedder::load_default());
    follower->start();
    REQUIRE(follower->wait_for(first->head_seq, std::chrono::seconds(30)));
    std::vector<double> staleness;
    for (int i = 0; i < 50; ++i) {
        CatalogSpec one;
        one.servers.push_back(spec->servers[static_cast<std::size_t>(i) % spec->servers.size()]);
        one.servers[0].tools[0].description += " Revision " + std::to_string(i) + ".";
        auto pushed = reg::push(connect_to(*server), one, *model);
        const auto committed = Clock::now();
        REQUIRE(pushed.ok());
        REQUIRE(follower->wait_for(pushed->head_seq, std::chrono::seconds(5)));
        staleness.push_back(ms(Clock::now() - committed));
    }
    follower->stop();
    std::sort(staleness.begin(), staleness.end());
    std::cout << "enterprise catalog: " << spec->servers.size() << " servers, "
              << first->vectors_added << " documents embedded by the first push\n"
              << "push (embeds every document): " << push_ms << " ms\n"
              << "push again (nothing changed): " << repush_ms << " ms\n"
              << "local build with the static model, median of 3: " << median(local_ms) << " ms\n"
              << "replica cold start from the registry, median of 3: " << median(replica_ms)
              << " ms\n"
              << "staleness, one-server push committed -> applied by a following replica, 50 "
                 "pushes: median "
              << staleness[25] << " ms, p90 " << staleness[45] << " ms, max " << staleness.back()
              << " ms\n";
}
