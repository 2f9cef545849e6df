// names.cpp: scout-bench-names: the names an opened index builds for its tools, on a synthetic
// catalog (data/enterprise_catalog.json grown by synthesize_catalog, ten tools per server, as
// scout-bench-reopen): the enhanced names alone, and everything index_names builds (enhanced
// names and the plain-name lookup). Sizes 2k, 20k and 100k tools; filter with
// --benchmark_filter=REGEX.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <vector>

#include <benchmark/benchmark.h>

#include "scout/catalog_loader.hpp"

#include "document/enhanced_name.hpp"
#include "eval/dataset_paths.hpp"
#include "eval/synthetic_catalog.hpp"
#include "snapshot/snapshot_builder.hpp"
#include "snapshot/tool_names.hpp"

namespace {

using namespace scout;
using namespace scout::detail;

/// The staged catalog of a synthetic catalog of `tools` tools, built once per size.
std::shared_ptr<const StagedCatalog> staged_catalog(std::size_t tools) {
    static std::map<std::size_t, std::shared_ptr<const StagedCatalog>> cache;
    auto& slot = cache[tools];
    if (slot) {
        return slot;
    }
    auto base = load_catalog_file(eval::source_root() / "data" / "enterprise_catalog.json");
    if (!base) {
        std::fprintf(stderr, "scout-bench-names: %s\n", base.status().to_string().c_str());
        std::exit(1);
    }
    const std::size_t servers = std::max(base->servers.size(), tools / 10);
    auto spec = eval::synthesize_catalog(*base, {42, servers, tools});
    if (!spec) {
        std::fprintf(stderr, "scout-bench-names: %s\n", spec.status().to_string().c_str());
        std::exit(1);
    }
    auto staged = std::make_shared<StagedCatalog>();
    for (ServerSpec& server : spec->servers) {
        auto entry = std::make_shared<StagedServer>();
        for (ToolSpec& tool : server.tools) {
            std::string name = tool.name;
            entry->tools.emplace(std::move(name),
                                 std::make_shared<const StagedTool>(std::move(tool)));
        }
        server.tools.clear();
        entry->meta = std::move(server);
        staged->emplace(entry->meta.name, std::move(entry));
    }
    slot = std::move(staged);
    return slot;
}

std::vector<ToolKey> tool_keys(const StagedCatalog& staged) {
    std::vector<ToolKey> keys;
    for (const auto& [server_name, server] : staged) {
        for (const auto& [tool_name, tool] : server->tools) {
            keys.push_back({server_name, tool_name});
        }
    }
    return keys;
}

void bm_enhanced_names(benchmark::State& state) {
    const std::vector<ToolKey> keys =
        tool_keys(*staged_catalog(static_cast<std::size_t>(state.range(0))));
    for (auto _ : state) {
        const EnhancedNames names(keys);
        benchmark::DoNotOptimize(names.size());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}

void bm_index_names(benchmark::State& state) {
    const auto staged = staged_catalog(static_cast<std::size_t>(state.range(0)));
    // A built snapshot: tool records of the staged tools (and their names, rebuilt below).
    EmbeddingCache cache;
    const std::shared_ptr<Snapshot> snap =
        build_snapshot(staged, CatalogOptions{}, nullptr, cache, 1).snapshot;
    for (auto _ : state) {
        index_names(*snap, catalog_tool_names(*staged));
        benchmark::DoNotOptimize(snap->names.get());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    for (std::int64_t n : {2000, 20000, 100000}) {
        benchmark::RegisterBenchmark("names/enhanced", bm_enhanced_names)->Arg(n);
        benchmark::RegisterBenchmark("names/index_names", bm_index_names)->Arg(n);
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
