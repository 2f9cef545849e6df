// synthetic_catalog.cpp: the seeded catalog generator and the catalog JSON writer.
#include "eval/synthetic_catalog.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "util/split_mix.hpp"

namespace scout::eval {
namespace {

using Rng = detail::SplitMix64;

struct Scope {
    const char* slug;
    const char* phrase;
};

constexpr std::array<Scope, 12> kTeams{{
    {"payments-team", "the payments engineering team"},
    {"risk-team", "the risk and compliance team"},
    {"growth-team", "the growth team"},
    {"platform-team", "the platform team"},
    {"mobile-team", "the mobile apps team"},
    {"data-team", "the data engineering team"},
    {"support-team", "the customer support tooling team"},
    {"finance-team", "the finance operations team"},
    {"security-team", "the security engineering team"},
    {"marketplace-team", "the marketplace team"},
    {"lending-team", "the lending products team"},
    {"identity-team", "the identity team"},
}};

constexpr std::array<Scope, 8> kRegions{{
    {"emea", "the EMEA region (eu-west-1)"},
    {"apac", "the APAC region (ap-southeast-1)"},
    {"latam", "the LATAM region (sa-east-1)"},
    {"us-east", "the US East region (us-east-1)"},
    {"us-west", "the US West region (us-west-2)"},
    {"uk", "the UK entity (eu-west-2)"},
    {"india", "the India entity (ap-south-1)"},
    {"japan", "the Japan entity (ap-northeast-1)"},
}};

constexpr std::array<const char*, 3> kEnvironments{"prod", "staging", "dev"};

std::string scoped_description(const std::string& description, const std::string& phrase) {
    std::string out = description;
    if (!out.empty() && out.back() != '.') {
        out += '.';
    }
    return out + (out.empty() ? "" : " ") + "Scoped to " + phrase + ".";
}

}  // namespace

Result<CatalogSpec> synthesize_catalog(const CatalogSpec& base, const SyntheticOptions& options) {
    std::size_t base_tools = 0;
    for (const ServerSpec& s : base.servers) {
        base_tools += s.tools.size();
    }
    if (base.servers.empty() || base_tools == 0) {
        return Status{Errc::invalid_argument, "synthetic catalog: the base catalog has no tools"};
    }
    if (options.servers < base.servers.size() || options.tools < base_tools) {
        return Status{
            Errc::invalid_argument,
            "synthetic catalog: totals (" + std::to_string(options.servers) + " servers, " +
                std::to_string(options.tools) + " tools) are below the base catalog's (" +
                std::to_string(base.servers.size()) + ", " + std::to_string(base_tools) + ")"};
    }
    const std::size_t new_servers = options.servers - base.servers.size();
    const std::size_t new_tools = options.tools - base_tools;
    if ((new_servers == 0) != (new_tools == 0) || new_tools < new_servers) {
        return Status{Errc::invalid_argument,
                      "synthetic catalog: every added server needs at least one tool, "
                      "and added tools need a server"};
    }
    std::map<std::string, std::vector<std::size_t>> by_category;
    std::set<std::string> names;
    for (std::size_t i = 0; i < base.servers.size(); ++i) {
        by_category[base.servers[i].category].push_back(i);
        names.insert(base.servers[i].name);
    }

    Rng rng(options.seed);
    CatalogSpec out = base;
    std::size_t tools_left = new_tools;
    for (std::size_t made = 0; made < new_servers; ++made) {
        const ServerSpec& model = base.servers[rng.below(base.servers.size())];
        // Pick an unused team or region variant name; fall back to a numbered one.
        const bool team = rng.below(2) == 0;
        const Scope& scope =
            team ? kTeams[rng.below(kTeams.size())] : kRegions[rng.below(kRegions.size())];
        std::string name = model.name + "-" + scope.slug;
        for (std::size_t n = 2; names.count(name) != 0; ++n) {
            name = model.name + "-" + scope.slug + "-" + std::to_string(n);
        }
        names.insert(name);

        ServerSpec server;
        server.name = name;
        server.category = model.category;
        server.environment = kEnvironments[rng.below(kEnvironments.size())];
        server.description = std::string(kSyntheticMarker) + " " +
                             scoped_description(model.description, scope.phrase);

        // Even share of the remaining tools, +-50% jitter, at least one, leaving one per server.
        const std::size_t servers_left = new_servers - made;
        const std::size_t share = tools_left / servers_left;
        std::size_t quota = servers_left == 1 ? tools_left : share / 2 + rng.below(share + 1);
        quota = std::clamp<std::size_t>(quota, 1, tools_left - (servers_left - 1));

        std::vector<const ToolSpec*> pool;
        for (const ToolSpec& t : model.tools) {
            pool.push_back(&t);
        }
        rng.shuffle(pool);
        std::vector<const ToolSpec*> extra;
        for (std::size_t idx : by_category[model.category]) {
            if (&base.servers[idx] == &model) {
                continue;
            }
            for (const ToolSpec& t : base.servers[idx].tools) {
                extra.push_back(&t);
            }
        }
        rng.shuffle(extra);
        pool.insert(pool.end(), extra.begin(), extra.end());
        if (pool.size() < quota) {  // a tiny category: borrow from every server
            for (const ServerSpec& s : base.servers) {
                for (const ToolSpec& t : s.tools) {
                    pool.push_back(&t);
                }
            }
        }
        std::set<std::string> tool_names;
        for (const ToolSpec* t : pool) {
            if (server.tools.size() == quota) {
                break;
            }
            if (!tool_names.insert(t->name).second) {
                continue;
            }
            ToolSpec tool = *t;
            tool.description = scoped_description(t->description, scope.phrase);
            server.tools.push_back(std::move(tool));
        }
        if (server.tools.size() < quota) {
            return Status{Errc::invalid_argument,
                          "synthetic catalog: not enough distinct tool names in the base "
                          "catalog for a server of " +
                              std::to_string(quota) + " tools"};
        }
        tools_left -= quota;
        out.servers.push_back(std::move(server));
    }
    return out;
}

std::string catalog_to_json(const CatalogSpec& catalog, const std::string& source) {
    using nlohmann::json;
    const auto parse_or_null = [](const std::string& text) {
        return text.empty() ? json() : json::parse(text, nullptr, /*allow_exceptions=*/false);
    };
    json servers = json::array();
    for (const ServerSpec& s : catalog.servers) {
        json tools = json::array();
        for (const ToolSpec& t : s.tools) {
            json tool{{"name", t.name}, {"description", t.description}};
            if (!t.title.empty()) {
                tool["title"] = t.title;
            }
            if (json schema = parse_or_null(t.input_schema); schema.is_object()) {
                tool["inputSchema"] = schema;
            }
            if (json ann = parse_or_null(t.annotations); ann.is_object()) {
                tool["annotations"] = ann;
            }
            tools.push_back(std::move(tool));
        }
        json server{{"name", s.name}, {"description", s.description}};
        if (!s.category.empty()) {
            server["category"] = s.category;
        }
        if (!s.environment.empty()) {
            server["environment"] = s.environment;
        }
        if (s.status != ServerStatus::active) {
            server["status"] = std::string(server_status_name(s.status));
        }
        server["tools"] = std::move(tools);
        servers.push_back(std::move(server));
    }
    return json{{"source", source}, {"servers", servers}}.dump(
               1, ' ', false, json::error_handler_t::replace) +
           "\n";
}

}  // namespace scout::eval
