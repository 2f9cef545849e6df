// tools_by_name_test.cpp: the plain-name lookup of exact-name queries, against a map of lists,
// alone and as index_names builds it for a snapshot.
#include "document/tools_by_name.hpp"

#include <map>
#include <random>
#include <string>
#include <unordered_map>

#include <catch2/catch.hpp>

#include "document/enhanced_name.hpp"
#include "search/exact_names.hpp"
#include "snapshot/snapshot_builder.hpp"

using scout::ToolId;
using scout::detail::ToolsByName;

namespace {

const std::vector<std::string> kNames{
    "", "get", "get_item", "get item", "Get", "list", std::string(70, 'n'), "\xc3\xa9t\xc3\xa9"};

std::string random_name(std::mt19937_64& rng) {
    if (rng() % 4 != 0) {
        return kNames[rng() % kNames.size()];
    }
    return "tool_" + std::to_string(rng() % 50);
}

std::vector<ToolId> chain(const ToolsByName& by_name, std::string_view name) {
    std::vector<ToolId> ids;
    for (ToolId id = by_name.first(name); id != ToolsByName::kEnd; id = by_name.next(id)) {
        ids.push_back(id);
    }
    return ids;
}

/// Tool ids of each name, as a map of lists (what the lookup replaces).
std::unordered_map<std::string, std::vector<ToolId>> reference(
    const std::vector<std::string>& names) {
    std::unordered_map<std::string, std::vector<ToolId>> by_name;
    for (std::size_t id = 0; id < names.size(); ++id) {
        by_name[names[id]].push_back(static_cast<ToolId>(id));
    }
    return by_name;
}

}  // namespace

TEST_CASE("every name's tools come in id order, unknown names have none", "[names]") {
    for (std::uint64_t seed = 1; seed <= 100; ++seed) {
        INFO("seed " << seed);
        std::mt19937_64 rng(seed);
        std::vector<std::string> names(rng() % 300);
        for (std::string& name : names) {
            name = random_name(rng);
        }
        const std::vector<std::string_view> views(names.begin(), names.end());
        const ToolsByName by_name(views);
        const auto expected = reference(names);
        for (const auto& [name, ids] : expected) {
            CHECK(chain(by_name, name) == ids);
        }
        for (const char* unknown : {"tool_50", "GET", "get_", "nn", " get"}) {
            CHECK(chain(by_name, unknown).empty());
        }
        CHECK(by_name.memory_bytes() >= names.size() * sizeof(ToolId));
    }
    CHECK(ToolsByName().first("get") == ToolsByName::kEnd);
}

TEST_CASE("a snapshot's names find its indexed tools by plain and by enhanced name", "[names]") {
    using namespace scout;
    using namespace scout::detail;
    for (std::uint64_t seed = 1; seed <= 30; ++seed) {
        INFO("seed " << seed);
        std::mt19937_64 rng(seed);
        auto staged = std::make_shared<StagedCatalog>();
        for (int s = 0; s < 12; ++s) {
            auto server = std::make_shared<StagedServer>();
            server->meta.name = "srv" + std::to_string(rng() % 8) + (rng() % 2 == 0 ? "_x" : "");
            // Some servers are not indexed: their tools keep enhanced names but are not found.
            server->meta.status = rng() % 3 == 0 ? ServerStatus::degraded : ServerStatus::active;
            for (int t = 0; t < 6; ++t) {
                ToolSpec tool;
                tool.name = random_name(rng);
                server->tools.emplace(tool.name, std::make_shared<const StagedTool>(tool));
            }
            staged->emplace(server->meta.name, std::move(server));
        }
        // Built from the staged catalog, or assembled from a view of it as an opened file is.
        EmbeddingCache cache;
        CatalogSpec spec;
        for (const auto& [name, server] : *staged) {
            spec.servers.push_back(server->meta);
            for (const auto& [tool_name, tool] : server->tools) {
                spec.servers.back().tools.push_back(*tool);
            }
        }
        const auto view =
            std::make_shared<const CatalogView>(view_of(std::make_shared<const CatalogSpec>(spec)));
        const std::shared_ptr<const Snapshot> snap =
            seed % 2 == 0
                ? build_snapshot(staged, CatalogOptions{}, nullptr, cache, 1).snapshot
                : assemble_snapshot(view, CatalogOptions{}, Bm25Index{}, nullptr, {}, "", 1);

        std::map<std::string, std::vector<ToolId>> expected_plain;
        for (std::size_t id = 0; id < snap->tools.size(); ++id) {
            expected_plain[std::string(snap->tools[id].tool)].push_back(static_cast<ToolId>(id));
        }
        for (const auto& [name, ids] : expected_plain) {
            CHECK(chain(snap->names->by_plain, name) == ids);
            if (!name.empty() && name.find(' ') == std::string::npos) {
                CHECK(exact_name_matches(*snap, name, nullptr) == ids);
                Bitset odd(snap->tools.size());
                std::vector<ToolId> odd_ids;
                for (ToolId id : ids) {
                    if (id % 2 == 1) {
                        odd.set(id);
                        odd_ids.push_back(id);
                    }
                }
                CHECK(exact_name_matches(*snap, name, &odd) == odd_ids);
            }
        }

        std::vector<ToolKey> keys;
        std::vector<std::optional<ToolId>> expected_ids;
        ToolId next = 0;
        for (const auto& [server_name, server] : *staged) {
            for (const auto& [tool_name, tool] : server->tools) {
                keys.push_back({server_name, tool_name});
                const bool active = server->meta.status == ServerStatus::active;
                expected_ids.push_back(active ? std::optional<ToolId>(next++) : std::nullopt);
            }
        }
        REQUIRE(next == snap->tools.size());
        const EnhancedNames names(keys);
        for (std::size_t i = 0; i < keys.size(); ++i) {
            INFO(names.name(i));
            CHECK(resolve_enhanced_name(*snap, names.name(i)) == expected_ids[i]);
            if (expected_ids[i]) {
                CHECK(snap->tools[*expected_ids[i]].enhanced_name == names.name(i));
            }
        }
    }
}
