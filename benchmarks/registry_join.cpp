// registry_join.cpp: scout-bench-registry-join. A replica joining a fleet through the
// PostgreSQL registry (docs/scale-out.md): the registry holds a synthetic catalog of N tools
// and a base published at generation 1, then `--changes` more servers are pushed; the time to
// ready (create, open the base, replay the log to the head) is measured against a replica that
// reads everything from sequence 0, with the documents each one embedded (a base-started
// replica must embed none). With --equivalence, every public dataset is pushed in two steps
// around a base and each of its queries must return the same hits (names and order) from the
// base-started replica as from a fresh build of the final catalog. --join-only times the joins
// against the registry an earlier run left (no reset, no push), so a large fleet is filled once;
// --base-only skips the replay from sequence 0.
//   scout-bench-registry-join --registry URL --base-dir DIR [--tools 10000] [--changes 10]
//                             [--dim 64] [--runs 3] [--join-only] [--base-only]
//                             [--equivalence] [--datasets DIR]
// The registry's scout tables are dropped and created again: point it at a scratch database.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scout/registry/registry.hpp"
#include "scout/scout.hpp"

#include "bench_args.hpp"
#include "eval/dataset_paths.hpp"
#include "registry/pg_connection.hpp"
#include "synthetic_docs.hpp"

namespace {

namespace fs = std::filesystem;
namespace reg = scout::registry;
using Clock = std::chrono::steady_clock;

/// The hashing embedder, counting the texts it is asked for that are not queries.
class CountingHasher final : public scout::Embedder {
public:
    explicit CountingHasher(std::size_t dim) : inner_(dim) {}
    [[nodiscard]] std::string model_id() const override { return inner_.model_id(); }
    [[nodiscard]] std::size_t dim() const override { return inner_.dim(); }
    [[nodiscard]] scout::Result<std::vector<float>> embed(
        std::span<const std::string> texts) override {
        texts_ += texts.size();
        return inner_.embed(texts);
    }
    std::size_t texts_ = 0;

private:
    scout::HashingEmbedder inner_;
};

struct Flags {
    std::string url;
    fs::path base_dir;
    std::size_t tools = 10000;
    std::size_t changes = 10;
    std::size_t dim = 64;
    int runs = 3;
    bool equivalence = false;
    bool join_only = false;  ///< join the registry as an earlier run left it (no reset, no push)
    bool base_only = false;  ///< time only the joins from the base, not the replay from 0
    fs::path datasets;
};

[[noreturn]] void die(const std::string& why) {
    std::fprintf(stderr, "scout-bench-registry-join: %s\n", why.c_str());
    std::exit(1);
}

template <typename T>
T must(scout::Result<T> r, const char* what) {
    if (!r.ok()) {
        die(std::string(what) + ": " + r.status().to_string());
    }
    return std::move(r.value());
}

void must(const scout::Status& s, const char* what) {
    if (!s.ok()) {
        die(std::string(what) + ": " + s.to_string());
    }
}

reg::ConnectOptions connect_of(const Flags& f) {
    reg::ConnectOptions c;
    c.url = f.url;
    c.statement_timeout = std::chrono::minutes(10);
    return c;
}

/// An empty registry: the scout tables dropped, the schema made again, old bases removed.
void reset(const Flags& f) {
    auto conn = must(scout::detail::PgConnection::connect(connect_of(f)), "connect");
    for (const char* table : {"scout_bases",
                              "scout_builder",
                              "scout_outcomes",
                              "scout_outcome_events",
                              "scout_outcome_feed",
                              "scout_changes",
                              "scout_embeddings",
                              "scout_models",
                              "scout_tools",
                              "scout_servers",
                              "scout_feed",
                              "scout_schema"}) {
        must(conn.run(std::string("DROP TABLE IF EXISTS ") + table + " CASCADE"), "drop");
    }
    must(reg::init(connect_of(f)), "init");
    std::error_code ec;
    fs::remove_all(f.base_dir, ec);
}

std::size_t tool_count(const scout::CatalogSpec& spec) {
    std::size_t n = 0;
    for (const scout::ServerSpec& s : spec.servers) {
        n += s.tools.size();
    }
    return n;
}

/// CPU time of this process (user + system), in ms: on a loaded machine the wall time also
/// measures the other processes.
double cpu_ms() {
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    const auto ms = [](const timeval& t) {
        return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_usec) / 1e3;
    };
    return ms(usage.ru_utime) + ms(usage.ru_stime);
}

double ms_since(Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

struct Joined {
    double ready_ms = 0;
    double cpu_ms = 0;
    std::size_t embedded = 0;
    reg::ReplicaStats stats;
    std::unique_ptr<reg::Replica> replica;
};

Joined join(const Flags& f, const fs::path& base_dir) {
    auto embedder = std::make_shared<CountingHasher>(f.dim);
    const auto start = Clock::now();
    const double cpu_start = cpu_ms();
    reg::ReplicaOptions options;
    options.connect = connect_of(f);
    options.base_directory = base_dir;
    Joined out;
    out.replica = must(reg::Replica::create(options, embedder), "replica");
    must(out.replica->sync(), "sync");
    out.ready_ms = ms_since(start);
    out.cpu_ms = cpu_ms() - cpu_start;
    out.embedded = embedder->texts_;
    out.stats = out.replica->stats();
    return out;
}

void publish(const Flags& f) {
    reg::BuilderOptions options;
    options.replica.connect = connect_of(f);
    options.directory = f.base_dir;
    auto builder =
        must(reg::BaseBuilder::start(options, std::make_shared<CountingHasher>(f.dim)), "builder");
    (void)must(builder->publish(), "publish");
}

/// Fills an empty registry with `f.tools` tools, publishes a base at its head, then pushes
/// `f.changes` servers described anew.
void fill(const Flags& f) {
    reset(f);
    scout::CatalogSpec spec = scout::bench::synthetic_catalog(f.tools, 42);
    const auto pushed_at = Clock::now();
    (void)must(reg::push(connect_of(f), spec, std::make_shared<CountingHasher>(f.dim)), "push");
    const double push_ms = ms_since(pushed_at);
    const auto published_at = Clock::now();
    publish(f);
    const double publish_ms = ms_since(published_at);
    auto base = must(reg::latest_base(connect_of(f)), "latest base");
    // The fleet moves on after the base: `changes` servers described anew.
    for (std::size_t i = 0; i < std::min(f.changes, spec.servers.size()); ++i) {
        spec.servers[i].description += " (changed after the base)";
        spec.servers[i].tools[0].description += " Changed after the base.";
    }
    auto after = must(reg::push(connect_of(f), spec, std::make_shared<CountingHasher>(f.dim)),
                      "push after the base");
    std::printf(
        "registry: %zu tools, push %.0f ms, publish %.0f ms, base %s (%.1f MiB) at seq "
        "%llu, head %llu\n",
        f.tools,
        push_ms,
        publish_ms,
        base.file_name.c_str(),
        static_cast<double>(fs::file_size(f.base_dir / base.file_name)) / (1 << 20),
        static_cast<unsigned long long>(base.seq),
        static_cast<unsigned long long>(after.head_seq));
}

void time_join(const Flags& f) {
    if (!f.join_only) {
        fill(f);
    }
    std::printf(
        "| start | tools | run | time to ready (ms) | its CPU time (ms) | documents embedded | "
        "applied | vectors fetched | full reads |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|\n");
    for (int run = 1; run <= f.runs; ++run) {
        for (const bool from_base : {true, false}) {
            if (!from_base && f.base_only) {
                continue;
            }
            Joined j = join(f, from_base ? f.base_dir : fs::path());
            if (from_base && (j.stats.base_generation == 0 || j.embedded != 0)) {
                die("the base was not used or documents were embedded: " + j.stats.base_error);
            }
            std::printf("| %s | %zu | %d | %.0f | %.0f | %zu | %llu | %zu | %llu |\n",
                        from_base ? "base + log" : "log from 0",
                        j.replica->searcher().list_tools().size(),
                        run,
                        j.ready_ms,
                        j.cpu_ms,
                        j.embedded,
                        static_cast<unsigned long long>(j.stats.applied_seq),
                        j.stats.vectors_fetched,
                        static_cast<unsigned long long>(j.stats.resyncs));
        }
    }
}

std::vector<std::string> hits_of(const scout::Searcher& searcher,
                                 const std::vector<std::string>& queries) {
    std::vector<std::string> out;
    for (const std::string& q : queries) {
        auto result = searcher.search(q, {.top_k = 10});
        if (!result.ok()) {  // an over-long query is refused alike by both
            out.push_back(q.substr(0, 64) + " -> refused: " + result.status().to_string());
            continue;
        }
        for (const scout::Hit& hit : result->hits) {
            out.push_back(q + " -> " + hit.name);
        }
    }
    return out;
}

/// true when the base-started replica answers every query of the dataset like a fresh build.
bool equivalent(const Flags& f, const fs::path& dir) {
    reset(f);
    const scout::CatalogSpec full = must(scout::load_catalog_file(dir / "catalog.json"), "catalog");
    std::ifstream in(dir / "queries.json");
    std::vector<std::string> queries;
    const nlohmann::json labelled = nlohmann::json::parse(in);
    for (const auto& q : labelled.at("queries")) {
        queries.push_back(q.at("query").get<std::string>());
    }
    if (queries.empty()) {
        die("no queries in " + (dir / "queries.json").string());
    }
    scout::CatalogSpec first;
    first.servers.assign(
        full.servers.begin(),
        full.servers.begin() + static_cast<std::ptrdiff_t>(full.servers.size() / 2));
    (void)must(reg::push(connect_of(f), first, std::make_shared<CountingHasher>(f.dim)), "push");
    publish(f);
    scout::CatalogSpec last = full;
    last.servers[0].tools[0].description += " Also lists archived entries.";
    if (last.servers.size() > 2) {
        last.servers.erase(last.servers.begin() + 1);
    }
    (void)must(
        reg::push(
            connect_of(f), last, std::make_shared<CountingHasher>(f.dim), {.remove_missing = true}),
        "push after the base");
    Joined j = join(f, f.base_dir);
    auto fresh = must(scout::Catalog::create({}, std::make_shared<CountingHasher>(f.dim)), "fresh");
    must(fresh.upsert_servers(last), "fresh upsert");
    (void)must(fresh.commit(), "fresh commit");
    const bool same = hits_of(j.replica->searcher(), queries) == hits_of(fresh.searcher(), queries);
    std::printf("| %s | %zu | %zu | %llu | %zu | %s |\n",
                dir.filename().c_str(),
                queries.size(),
                tool_count(last),
                static_cast<unsigned long long>(j.stats.base_seq),
                j.embedded,
                same ? "identical" : "DIFFERENT");
    return same && j.stats.base_generation == 1 && j.embedded == 0;
}

int run(int argc, char** argv) {
    Flags f;
    const auto set_flag = [](bool& flag) {
        return [&flag](const std::string&) { return (flag = true, std::string()); };
    };
    const scout::args::CommandSpec command{
        "scout-bench-registry-join",
        "",
        "Time to ready of a replica joining through the PostgreSQL registry, from a published "
        "base against from sequence 0; with --equivalence, base + feed against a fresh build.",
        {{"options",
          {{"registry",
            "URL",
            "",
            "a scratch registry (its scout tables are dropped and created again); required",
            false,
            [&](const std::string& v) { return (f.url = v, std::string()); }},
           {"base-dir",
            "DIR",
            "",
            "where bases are published; required",
            false,
            [&](const std::string& v) { return (f.base_dir = v, std::string()); }},
           {"tools",
            "N",
            std::to_string(f.tools),
            "tools in the synthetic catalog",
            false,
            scout::bench::whole_into(f.tools, 10, 100000000)},
           {"changes",
            "C",
            std::to_string(f.changes),
            "servers pushed after the base",
            false,
            scout::bench::whole_into(f.changes, 0, 1000000)},
           {"dim",
            "D",
            std::to_string(f.dim),
            "dimensions of the counting embedder",
            false,
            scout::bench::whole_into(f.dim, 1, 65536)},
           {"runs",
            "R",
            std::to_string(f.runs),
            "joins timed; the median is reported",
            false,
            scout::bench::whole_into(f.runs, 1, 1000)},
           {"join-only",
            "",
            "",
            "time the joins against the registry an earlier run left (no reset, no push)",
            false,
            set_flag(f.join_only)},
           {"base-only", "", "", "skip the replay from sequence 0", false, set_flag(f.base_only)},
           {"equivalence",
            "",
            "",
            "check every public dataset's hits, base + feed against a fresh build",
            false,
            set_flag(f.equivalence)},
           scout::bench::datasets_option(f.datasets, "the public datasets (--equivalence)")}}},
        "libpq reads the password from PGPASSWORD or PGPASSFILE.\n"};
    int exit_code = 0;
    if (!scout::bench::parse_args(argc, argv, command, exit_code)) {
        return exit_code;
    }
    if (f.url.empty() || f.base_dir.empty()) {
        std::fprintf(stderr, "scout-bench-registry-join: --registry and --base-dir are required\n");
        return 2;
    }
    if (!f.equivalence) {
        time_join(f);
        return 0;
    }
    if (f.datasets.empty()) {
        f.datasets = scout::eval::datasets_dir();
    }
    std::printf("| dataset | queries | tools | base seq | documents embedded | hits |\n");
    std::printf("|---|---|---|---|---|---|\n");
    bool all = true;
    std::vector<fs::path> dirs;
    for (const auto& entry : fs::directory_iterator(f.datasets)) {
        if (fs::exists(entry.path() / "catalog.json") &&
            fs::exists(entry.path() / "queries.json")) {
            dirs.push_back(entry.path());
        }
    }
    std::sort(dirs.begin(), dirs.end());
    for (const fs::path& dir : dirs) {
        all = equivalent(f, dir) && all;
    }
    return all ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {  // a dataset file that is not the expected JSON
        std::fprintf(stderr, "scout-bench-registry-join: %s\n", e.what());
        return 1;
    }
}
