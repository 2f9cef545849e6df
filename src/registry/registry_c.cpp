// registry_c.cpp: the C ABI of include/scout/scout_registry.h over scout::registry::Replica, with
// the entry-point discipline of scout.h (capi/c_support.hpp).
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "scout/registry/registry.hpp"
#include "scout/scout_registry.h"

#include "capi/c_support.hpp"
#include "capi/json_bridge.hpp"

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
constexpr std::uint64_t kMaxTtlSeconds = std::uint64_t{30} * 24 * 3600;

/// `key` of `registry` as a whole number in [min, max] into `out`, when it is there.
Status read_number(const Json& registry,
                   const char* key,
                   std::uint64_t min,
                   std::uint64_t max,
                   std::uint64_t& out) {
    auto it = registry.find(key);
    if (it == registry.end()) {
        return {};
    }
    if (!it->is_number_unsigned() || it->get<std::uint64_t>() < min ||
        it->get<std::uint64_t>() > max) {
        return {Errc::invalid_argument,
                std::string("registry.") + key + " must be a whole number in " +
                    std::to_string(min) + ".." + std::to_string(max)};
    }
    out = it->get<std::uint64_t>();
    return {};
}

/// The "registry" object of the replica options into `options`.
Status read_registry_options(const Json& registry, scout::registry::ReplicaOptions& options) {
    if (!registry.is_object()) {
        return {Errc::invalid_argument, "registry must be an object"};
    }
    for (const auto& [key, value] : registry.items()) {
        if (key != "password_file" && key != "connect_timeout_ms" &&
            key != "statement_timeout_ms" && key != "poll_interval_ms" && key != "degraded_ttl_s") {
            return {Errc::invalid_argument, "registry: unknown key \"" + key + "\""};
        }
    }
    if (auto it = registry.find("password_file"); it != registry.end()) {
        if (!it->is_string()) {
            return {Errc::invalid_argument, "registry.password_file must be a string"};
        }
        options.connect.password_file = it->get<std::string>();
    }
    using std::chrono::milliseconds;
    std::uint64_t connect = static_cast<std::uint64_t>(options.connect.connect_timeout.count());
    std::uint64_t statement = static_cast<std::uint64_t>(options.connect.statement_timeout.count());
    std::uint64_t poll = static_cast<std::uint64_t>(options.poll_interval.count());
    std::uint64_t ttl = static_cast<std::uint64_t>(options.degraded_ttl.count());
    for (Status s : {read_number(registry, "connect_timeout_ms", 1, kMaxWaitMs, connect),
                     read_number(registry, "statement_timeout_ms", 1, kMaxWaitMs, statement),
                     read_number(registry, "poll_interval_ms", 10, kMaxWaitMs, poll),
                     read_number(registry, "degraded_ttl_s", 1, kMaxTtlSeconds, ttl)}) {
        if (!s.ok()) {
            return s;
        }
    }
    options.connect.connect_timeout = milliseconds(static_cast<milliseconds::rep>(connect));
    options.connect.statement_timeout = milliseconds(static_cast<milliseconds::rep>(statement));
    options.poll_interval = milliseconds(static_cast<milliseconds::rep>(poll));
    options.degraded_ttl = std::chrono::seconds(static_cast<std::chrono::seconds::rep>(ttl));
    return {};
}

Json stats_to_json(const scout::registry::ReplicaStats& s) {
    return Json{{"applied_seq", s.applied_seq},
                {"head_seq", s.head_seq},
                {"lag", s.head_seq > s.applied_seq ? s.head_seq - s.applied_seq : 0},
                {"batches", s.batches},
                {"gaps", s.gaps},
                {"resyncs", s.resyncs},
                {"notifications", s.notifications},
                {"reconnects", s.reconnects},
                {"failures", s.failures},
                {"vectors_fetched", s.vectors_fetched},
                {"model_id", s.model_id},
                {"degraded_served", s.degraded_served},
                {"degraded_expired", s.degraded_expired},
                {"last_error", s.last_error}};
}

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
                if (Status s = read_registry_options(*it, options); !s.ok()) {
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
        return give_string(stats_to_json(replica->replica->stats()).dump(), status_json);
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

}  // extern "C"
