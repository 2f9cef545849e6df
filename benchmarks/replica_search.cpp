// replica_search.cpp: search latency on a registry replica against a standalone catalog of the
// same servers, tools and embedder (docs/scale-out.md, "Figures"). Pushes CATALOG.json into the
// registry at URL (replacing what it holds), follows it with a Replica, builds the same catalog
// alone, then runs the same queries (each tool's description's first words) on both, in
// alternating order round after round, a fresh Searcher per query as a gateway takes one.
// Prints the p50 and p95 of each and their ratio; a ratio near 1 says the replica's catalog
// costs nothing more to search.
//   replica_search CATALOG.json --registry URL [--embedder none|static|hashing[:DIM]] [--rounds N]
// The password comes from PGPASSWORD or PGPASSFILE, never the URL.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "scout/catalog.hpp"
#include "scout/catalog_loader.hpp"
#include "scout/registry/registry.hpp"
#include "scout/scout.hpp"

#include "bench_args.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double percentile(std::vector<double> v, double p) {
    if (v.empty()) {
        return 0;
    }
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

/// The first `words` words of `text`.
std::string first_words(const std::string& text, std::size_t words) {
    std::istringstream in(text);
    std::string word;
    std::string out;
    for (std::size_t i = 0; i < words && in >> word; ++i) {
        out += (out.empty() ? "" : " ") + word;
    }
    return out;
}

/// Microseconds of one search of `query` on a fresh Searcher of `catalog`; the top tool's name
/// into `top`.
double timed_search(const scout::Catalog& catalog, const std::string& query, std::string& top) {
    const auto started = Clock::now();
    auto result = catalog.searcher().search(query, {.top_k = 5});
    const double us = std::chrono::duration<double, std::micro>(Clock::now() - started).count();
    top = result && !result->hits.empty() ? result->hits.front().name : "";
    return us;
}

}  // namespace

int main(int argc, char** argv) {
    std::string url;
    std::string embedder_spec = "static";
    int rounds = 5;
    const scout::args::CommandSpec command{
        "scout-bench-replica",
        "CATALOG.json",
        "Search latency on a registry replica against a catalog built alone (p50, p95, ratio).",
        {{"options",
          {{"registry",
            "URL",
            "",
            "the registry (postgresql://; password from PGPASSWORD or PGPASSFILE); required",
            false,
            [&](const std::string& v) { return (url = v, std::string()); }},
           scout::bench::embedder_option(embedder_spec),
           {"rounds",
            "N",
            std::to_string(rounds),
            "rounds of every query on both",
            false,
            scout::bench::whole_into(rounds, 1, 100000)}}}}};
    int exit_code = 0;
    const auto parsed = scout::bench::parse_args(argc, argv, command, exit_code);
    if (!parsed) {
        return exit_code;
    }
    if (parsed->positional().size() != 1 || url.empty()) {
        std::fprintf(
            stderr, "scout-bench-replica: give one CATALOG.json and --registry URL (see --help)\n");
        return 2;
    }
    auto made = scout::bench::make_embedder(embedder_spec);
    if (!made) {
        std::fprintf(stderr, "%s\n", made.status().to_string().c_str());
        return 2;
    }
    const std::shared_ptr<scout::Embedder> embedder = made.value();
    auto spec = scout::load_catalog_file(parsed->positional()[0]);
    if (!spec) {
        std::fprintf(stderr, "%s\n", spec.status().to_string().c_str());
        return 2;
    }

    namespace reg = scout::registry;
    reg::ConnectOptions connect;
    connect.url = url;
    if (scout::Status s = reg::init(connect); !s.ok()) {
        std::fprintf(stderr, "registry: %s\n", s.to_string().c_str());
        return 1;
    }
    auto pushed = reg::push(connect, spec.value(), embedder, {.remove_missing = true});
    if (!pushed) {
        std::fprintf(stderr, "push: %s\n", pushed.status().to_string().c_str());
        return 1;
    }
    reg::ReplicaOptions options;
    options.connect = connect;
    auto replica = reg::Replica::create(options, embedder);
    if (!replica || !replica.value()->sync().ok()) {
        std::fprintf(stderr, "the replica could not catch up\n");
        return 1;
    }
    auto alone = scout::Catalog::create({}, embedder);
    if (!alone || !alone->upsert_servers(spec.value()).ok() || !alone->commit()) {
        std::fprintf(stderr, "cannot build the standalone catalog\n");
        return 1;
    }

    std::vector<std::string> queries;
    for (const scout::ServerSpec& server : spec->servers) {
        for (const scout::ToolSpec& tool : server.tools) {
            if (std::string q = first_words(tool.description, 6); !q.empty()) {
                queries.push_back(std::move(q));
            }
        }
    }
    const scout::Catalog& followed = replica.value()->catalog();
    std::vector<double> alone_us;
    std::vector<double> replica_us;
    std::size_t same_top = 0;
    std::string top_alone;
    std::string top_replica;
    for (const std::string& q : queries) {  // warm-up: the query cache and the page cache
        (void)timed_search(alone.value(), q, top_alone);
        (void)timed_search(followed, q, top_replica);
    }
    for (int r = 0; r < rounds; ++r) {
        for (const std::string& q : queries) {
            // Alternating order, so neither side is always the one that runs second.
            if (r % 2 == 0) {
                alone_us.push_back(timed_search(alone.value(), q, top_alone));
                replica_us.push_back(timed_search(followed, q, top_replica));
            } else {
                replica_us.push_back(timed_search(followed, q, top_replica));
                alone_us.push_back(timed_search(alone.value(), q, top_alone));
            }
            if (top_alone == top_replica) {
                ++same_top;
            }
        }
    }
    replica.value()->stop();
    const double a50 = percentile(alone_us, 0.5);
    const double r50 = percentile(replica_us, 0.5);
    std::printf("%zu servers, %zu queries x %d rounds, embedder %s, registry change %llu\n",
                spec->servers.size(),
                queries.size(),
                rounds,
                embedder_spec.c_str(),
                static_cast<unsigned long long>(pushed->head_seq));
    std::printf("standalone  p50 %.1f us  p95 %.1f us\n", a50, percentile(alone_us, 0.95));
    std::printf("replica     p50 %.1f us  p95 %.1f us\n", r50, percentile(replica_us, 0.95));
    std::printf("ratio (replica / standalone) p50 %.3f  p95 %.3f; same top tool %zu of %zu\n",
                a50 > 0 ? r50 / a50 : 0.0,
                percentile(alone_us, 0.95) > 0
                    ? percentile(replica_us, 0.95) / percentile(alone_us, 0.95)
                    : 0.0,
                same_top,
                alone_us.size());
    return 0;
}
