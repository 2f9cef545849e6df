// test_catalogs.hpp: small catalogs built in code for the integration tests.
#pragma once

#include <random>
#include <string>

#include "scout/types.hpp"

namespace scout::testing {

/// Two tools a query about posting to a channel fits equally well (which one wins is up to
/// learned outcomes), and one it does not.
inline CatalogSpec twin_catalog() {
    CatalogSpec spec;
    spec.servers.push_back({"chat",
                            "Team chat.",
                            "",
                            "",
                            ServerStatus::active,
                            {{"post_note", "", "Post a note to a channel.", "", ""},
                             {"post_memo", "", "Post a memo to a channel.", "", ""},
                             {"list_users", "", "List the users of the workspace.", "", ""}}});
    return spec;
}

/// A hand-made catalog with a few recognisable tools across four servers.
inline CatalogSpec small_catalog() {
    CatalogSpec spec;
    spec.servers.push_back(
        {"github",
         "Git hosting: repositories, pull requests, code review.",
         "engineering",
         "",
         ServerStatus::active,
         {{"create_pull_request",
           "",
           "Open a new pull request from a branch.",
           R"({"type":"object","properties":{"repo":{"type":"string"},"head":{"type":"string"},"base":{"type":"string"}},"required":["repo","head"]})",
           R"({"readOnlyHint":false})"},
          {"list_pull_requests",
           "",
           "List open pull requests of a repository.",
           R"({"type":"object","properties":{"repo":{"type":"string"},"state":{"type":"string","enum":["open","closed","all"]}}})",
           ""},
          {"merge_pull_request", "", "Merge an approved pull request.", "", ""}}});
    spec.servers.push_back(
        {"teams",
         "Microsoft Teams chat and channels.",
         "productivity",
         "",
         ServerStatus::active,
         {{"send_message",
           "",
           "Send a chat message to a channel or a person.",
           R"({"type":"object","properties":{"channel":{"type":"string"},"text":{"type":"string"}},"required":["text"]})",
           ""},
          {"list_channels", "", "List the channels of a team.", "", ""}}});
    spec.servers.push_back(
        {"warehouse-prod",
         "Production data warehouse.",
         "analytics",
         "prod",
         ServerStatus::active,
         {{"run_query",
           "",
           "Run a SQL query on the warehouse.",
           R"({"type":"object","properties":{"sql":{"type":"string"}},"required":["sql"]})",
           ""},
          {"list_tables", "", "List tables of a dataset.", "", ""}}});
    spec.servers.push_back(
        {"warehouse-dev",
         "Development data warehouse.",
         "analytics",
         "dev",
         ServerStatus::active,
         {{"run_query",
           "",
           "Run a SQL query on the warehouse.",
           R"({"type":"object","properties":{"sql":{"type":"string"}},"required":["sql"]})",
           ""},
          {"list_tables", "", "List tables of a dataset.", "", ""}}});
    spec.servers.push_back({"legacy",
                            "Retired ticketing system.",
                            "support",
                            "",
                            ServerStatus::inactive,
                            {{"create_ticket", "", "Create a support ticket.", "", ""}}});
    return spec;
}

/// A random catalog: `servers` servers of `tools` tools, words drawn from a small vocabulary
/// so that queries share terms with many tools.
inline CatalogSpec random_catalog(std::size_t servers, std::size_t tools, std::uint32_t seed) {
    static const char* kWords[] = {
        "create", "list",    "delete", "update",    "user",     "ticket",  "payment", "refund",
        "deploy", "service", "pod",    "cluster",   "message",  "channel", "query",   "table",
        "report", "invoice", "alert",  "incident",  "merge",    "branch",  "review",  "secret",
        "token",  "log",     "metric", "dashboard", "calendar", "event"};
    constexpr std::size_t kVocab = sizeof(kWords) / sizeof(kWords[0]);
    std::mt19937 rng(seed);
    std::uniform_int_distribution<std::size_t> word(0, kVocab - 1);
    std::uniform_int_distribution<int> len(3, 12);
    std::bernoulli_distribution prod(0.5);
    CatalogSpec spec;
    for (std::size_t s = 0; s < servers; ++s) {
        ServerSpec server;
        server.name = "srv" + std::to_string(s);
        server.description = std::string(kWords[word(rng)]) + " " + kWords[word(rng)] + " service";
        server.environment = prod(rng) ? "prod" : "dev";
        for (std::size_t t = 0; t < tools; ++t) {
            ToolSpec tool;
            tool.name =
                std::string(kWords[word(rng)]) + "_" + kWords[word(rng)] + "_" + std::to_string(t);
            const int n = len(rng);
            for (int i = 0; i < n; ++i) {
                tool.description += std::string(i ? " " : "") + kWords[word(rng)];
            }
            server.tools.push_back(std::move(tool));
        }
        spec.servers.push_back(std::move(server));
    }
    return spec;
}

inline std::string random_query(std::mt19937& rng) {
    static const char* kWords[] = {"create",
                                   "list",
                                   "user",
                                   "ticket",
                                   "payment",
                                   "deploy",
                                   "pod",
                                   "message",
                                   "query",
                                   "report",
                                   "alert",
                                   "merge",
                                   "secret",
                                   "log",
                                   "calendar",
                                   "nothing"};
    std::uniform_int_distribution<std::size_t> word(0, 15);
    std::uniform_int_distribution<int> len(1, 4);
    std::string q;
    for (int i = len(rng); i > 0; --i) {
        q += std::string(q.empty() ? "" : " ") + kWords[word(rng)];
    }
    return q;
}

}  // namespace scout::testing
