// registry_c.cpp: the C ABI of include/scout/scout_registry.h over scout::registry::Replica, with
// the entry-point discipline of scout.h (capi/c_support.hpp) and the option forms of
// registry/registry_json.hpp.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "scout/registry/registry.hpp"
#include "scout/scout_registry.h"

#include "capi/c_support.hpp"
#include "capi/json_bridge.hpp"
#include "registry/registry_json.hpp"

struct scout_replica {
    std::unique_ptr<scout::registry::Replica> replica;
    /// The mode of searches that name none: bm25 when the replica has no embedder.
    scout::Mode default_mode = scout::Mode::hybrid;
};

namespace {

using scout::Errc;
using scout::Status;
using scout::detail::give_string;
using scout::detail::guarded;
using scout::detail::null_argument;
using scout::detail::optional_text;
using Json = nlohmann::json;

constexpr std::uint64_t kMaxWaitMs = 600000;

}  // namespace

extern "C" {

scout_status scout_replica_open(const char* url, const char* options_json, scout_replica** out) {
    return guarded([&]() -> Status {
        if (url == nullptr) {
            return null_argument("url");
        }
        if (out == nullptr) {
            return null_argument("out");
        }
        if (Status s = scout::registry::check_url(url); !s.ok()) {
            return s;
        }
        // The "registry" object is the replica's own; the rest are the catalog options.
        Json catalog_options = Json::object();
        scout::registry::ReplicaOptions options;
        options.connect.url = url;
        if (const std::string_view text = optional_text(options_json); !text.empty()) {
            catalog_options = Json::parse(text, nullptr, false);
            if (catalog_options.is_discarded() || !catalog_options.is_object()) {
                return {Errc::invalid_argument, "replica options are not valid JSON object text"};
            }
            if (auto it = catalog_options.find("registry"); it != catalog_options.end()) {
                if (Status s = scout::registry::replica_options_from_json(*it, options); !s.ok()) {
                    return s;
                }
                catalog_options.erase(it);
            }
        }
        auto config = scout::detail::catalog_config_from_json(
            catalog_options.empty() ? std::string() : catalog_options.dump(), true);
        if (!config) {
            return config.status();
        }
        options.catalog = config->options;
        auto made = scout::registry::Replica::create(options, config->embedder);
        if (!made) {
            return made.status();
        }
        if (Status s = made.value()->sync(); !s.ok()) {
            return s;
        }
        made.value()->start();
        *out = new scout_replica{std::move(made.value()),
                                 scout::detail::default_search_mode(config->embedder != nullptr)};
        return {};
    });
}

void scout_replica_free(scout_replica* replica) {
    delete replica;  // the Replica's destructor stops its follower
}

scout_status scout_replica_status(const scout_replica* replica, char** status_json) {
    return guarded([&]() -> Status {
        if (replica == nullptr) {
            return null_argument("replica");
        }
        if (status_json == nullptr) {
            return null_argument("status_json");
        }
        return give_string(scout::registry::replica_stats_to_json(replica->replica->stats()).dump(),
                           status_json);
    });
}

scout_status scout_replica_search(const scout_replica* replica,
                                  const char* query,
                                  const char* options_json,
                                  uint64_t min_seq,
                                  uint32_t timeout_ms,
                                  char** result_json) {
    return guarded([&]() -> Status {
        if (replica == nullptr) {
            return null_argument("replica");
        }
        if (timeout_ms > kMaxWaitMs) {
            return {Errc::invalid_argument,
                    "timeout_ms must be at most " + std::to_string(kMaxWaitMs)};
        }
        auto searcher =
            replica->replica->searcher_at(min_seq, std::chrono::milliseconds(timeout_ms));
        if (!searcher) {
            return searcher.status();
        }
        return scout::detail::search_into(
            searcher.value(), replica->default_mode, query, options_json, result_json);
    });
}

scout_status scout_replica_record_outcome(scout_replica* replica,
                                          const char* query,
                                          const char* server,
                                          const char* tool,
                                          int succeeded) {
    return guarded([&]() -> Status {
        if (replica == nullptr) {
            return null_argument("replica");
        }
        if (query == nullptr || server == nullptr || tool == nullptr) {
            return null_argument(query == nullptr    ? "query"
                                 : server == nullptr ? "server"
                                                     : "tool");
        }
        return replica->replica->record_outcome(
            query,
            {server, tool},
            succeeded != 0 ? scout::Outcome::success : scout::Outcome::failure);
    });
}

}  // extern "C"
