// scout_c.cpp: the C ABI of include/scout/scout.h over the C++ API. Every entry point checks its
// pointers, runs inside `guarded` (no exception leaves, each becomes a status), and records the
// message of a failure for the calling thread.
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <utility>

#include "scout/catalog.hpp"
#include "scout/catalog_loader.hpp"
#include "scout/scout.h"

#include "capi/c_support.hpp"
#include "capi/doctor_json.hpp"
#include "capi/json_bridge.hpp"

struct scout_catalog {
    scout::Catalog catalog;
    /// The mode of searches that name none: bm25 when the catalog has no embedder.
    scout::Mode default_mode = scout::Mode::hybrid;
};

struct scout_searcher {
    scout::Searcher searcher;
    scout::Mode default_mode = scout::Mode::hybrid;
};

namespace {

using scout::Errc;
using scout::Status;
using scout::detail::fail;
using scout::detail::give_string;
using scout::detail::guarded;
using scout::detail::null_argument;
using scout::detail::optional_text;
using scout::detail::search_into;

static_assert(static_cast<int>(Errc::internal) == SCOUT_INTERNAL &&
                  static_cast<int>(Errc::invalid_argument) == SCOUT_INVALID_ARGUMENT &&
                  static_cast<int>(Errc::unavailable) == SCOUT_UNAVAILABLE,
              "scout_status must keep the values of scout::Errc");

}  // namespace

extern "C" {

const char* scout_version(void) {
    return SCOUT_VERSION_STRING;
}

const char* scout_status_name(scout_status status) {
    // A C caller may pass any int; in C++ reading it as the enum would be undefined when it is
    // outside the enum's values, so the bytes are read as the integer they are.
    int code = 0;
    static_assert(sizeof code == sizeof status);
    std::memcpy(&code, &status, sizeof code);
    if (code < SCOUT_OK || code > SCOUT_INTERNAL) {
        return "unknown";
    }
    return scout::errc_name(static_cast<Errc>(code)).data();  // names are literals
}

const char* scout_last_error(void) {
    return scout::detail::last_error_text();
}

void scout_string_free(char* text) {
    std::free(text);
}

scout_status scout_catalog_create(const char* options_json, scout_catalog** out) {
    return guarded([&]() -> Status {
        if (out == nullptr) {
            return null_argument("out");
        }
        auto config = scout::detail::catalog_config_from_json(optional_text(options_json), true);
        if (!config) {
            return config.status();
        }
        auto catalog = scout::Catalog::create(config->options, config->embedder);
        if (!catalog) {
            return catalog.status();
        }
        *out = new scout_catalog{std::move(catalog.value()),
                                 scout::detail::default_search_mode(config->embedder != nullptr)};
        return {};
    });
}

scout_status scout_catalog_open(const char* path, const char* options_json, scout_catalog** out) {
    return guarded([&]() -> Status {
        if (path == nullptr) {
            return null_argument("path");
        }
        if (out == nullptr) {
            return null_argument("out");
        }
        auto config = scout::detail::catalog_config_from_json(optional_text(options_json), false);
        if (!config) {
            return config.status();
        }
        auto catalog = scout::Catalog::open(path, config->embedder);
        if (!catalog) {
            return catalog.status();
        }
        *out = new scout_catalog{std::move(catalog.value()),
                                 scout::detail::default_search_mode(config->embedder != nullptr)};
        return {};
    });
}

void scout_catalog_free(scout_catalog* catalog) {
    delete catalog;
}

scout_status scout_doctor(const char* servers_json, const char* options_json, char** report_json) {
    return guarded([&]() -> Status {
        if (servers_json == nullptr) {
            return null_argument("servers_json");
        }
        if (report_json == nullptr) {
            return null_argument("report_json");
        }
        auto report = scout::detail::doctor_json(servers_json, optional_text(options_json));
        if (!report) {
            return report.status();
        }
        return give_string(report.value(), report_json);
    });
}

scout_status scout_catalog_upsert_servers(scout_catalog* catalog, const char* servers_json) {
    return guarded([&]() -> Status {
        if (catalog == nullptr) {
            return null_argument("catalog");
        }
        if (servers_json == nullptr) {
            return null_argument("servers_json");
        }
        auto spec = scout::parse_catalog_json(servers_json);
        if (!spec) {
            return spec.status();
        }
        return catalog->catalog.upsert_servers(spec.value());
    });
}

scout_status scout_catalog_remove_server(scout_catalog* catalog, const char* server) {
    return guarded([&]() -> Status {
        if (catalog == nullptr) {
            return null_argument("catalog");
        }
        if (server == nullptr) {
            return null_argument("server");
        }
        return catalog->catalog.remove_server(server);
    });
}

scout_status scout_catalog_set_server_status(scout_catalog* catalog,
                                             const char* server,
                                             const char* status) {
    return guarded([&]() -> Status {
        if (catalog == nullptr) {
            return null_argument("catalog");
        }
        if (server == nullptr) {
            return null_argument("server");
        }
        if (status == nullptr) {
            return null_argument("status");
        }
        auto parsed = scout::parse_server_status(status);
        if (!parsed) {
            return {Errc::invalid_argument,
                    std::string("unknown server status '") + status +
                        "' (expected active, degraded, inactive or rejected)"};
        }
        return catalog->catalog.set_server_status(server, *parsed);
    });
}

scout_status scout_catalog_record_outcome(scout_catalog* catalog,
                                          const char* query,
                                          const char* server,
                                          const char* tool,
                                          int succeeded) {
    return guarded([&]() -> Status {
        if (catalog == nullptr) {
            return null_argument("catalog");
        }
        if (query == nullptr || server == nullptr || tool == nullptr) {
            return null_argument(query == nullptr    ? "query"
                                 : server == nullptr ? "server"
                                                     : "tool");
        }
        return catalog->catalog.record_outcome(
            query,
            {server, tool},
            succeeded != 0 ? scout::Outcome::success : scout::Outcome::failure);
    });
}

scout_status scout_catalog_commit(scout_catalog* catalog, char** info_json) {
    return guarded([&]() -> Status {
        if (catalog == nullptr) {
            return null_argument("catalog");
        }
        auto info = catalog->catalog.commit();
        if (!info) {
            return info.status();
        }
        if (info_json == nullptr) {
            return {};
        }
        return give_string(
            scout::detail::dump_json(scout::detail::commit_info_to_json(info.value())), info_json);
    });
}

scout_status scout_catalog_save(const scout_catalog* catalog, const char* path) {
    return guarded([&]() -> Status {
        if (catalog == nullptr) {
            return null_argument("catalog");
        }
        if (path == nullptr) {
            return null_argument("path");
        }
        return catalog->catalog.save(path);
    });
}

scout_status scout_catalog_stats(const scout_catalog* catalog, char** stats_json) {
    return guarded([&]() -> Status {
        if (catalog == nullptr) {
            return null_argument("catalog");
        }
        if (stats_json == nullptr) {
            return null_argument("stats_json");
        }
        return give_string(
            scout::detail::dump_json(scout::detail::search_stats_to_json(catalog->catalog.stats())),
            stats_json);
    });
}

scout_status scout_catalog_search(const scout_catalog* catalog,
                                  const char* query,
                                  const char* options_json,
                                  char** result_json) {
    return guarded([&]() -> Status {
        if (catalog == nullptr) {
            return null_argument("catalog");
        }
        return search_into(
            catalog->catalog.searcher(), catalog->default_mode, query, options_json, result_json);
    });
}

scout_status scout_searcher_create(const scout_catalog* catalog, scout_searcher** out) {
    return guarded([&]() -> Status {
        if (catalog == nullptr) {
            return null_argument("catalog");
        }
        if (out == nullptr) {
            return null_argument("out");
        }
        *out = new scout_searcher{catalog->catalog.searcher(), catalog->default_mode};
        return {};
    });
}

void scout_searcher_free(scout_searcher* searcher) {
    delete searcher;
}

uint64_t scout_searcher_generation(const scout_searcher* searcher) {
    return searcher == nullptr ? 0 : searcher->searcher.generation();
}

scout_status scout_searcher_search(const scout_searcher* searcher,
                                   const char* query,
                                   const char* options_json,
                                   char** result_json) {
    return guarded([&]() -> Status {
        if (searcher == nullptr) {
            return null_argument("searcher");
        }
        return search_into(
            searcher->searcher, searcher->default_mode, query, options_json, result_json);
    });
}

}  // extern "C"
