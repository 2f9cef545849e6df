// registry_json.cpp: see registry_json.hpp.
#include "registry/registry_json.hpp"

#include <chrono>
#include <cstdint>
#include <string>

namespace scout::registry {
namespace {

using Json = nlohmann::json;

constexpr std::uint64_t kMaxWaitMs = 600000;  ///< the longest timeout or interval accepted
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

}  // namespace

Status replica_options_from_json(const Json& registry, scout::registry::ReplicaOptions& options) {
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

Json replica_stats_to_json(const scout::registry::ReplicaStats& s) {
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
                {"last_error", s.last_error},
                {"outcome_seq", s.outcome_seq},
                {"outcome_head_seq", s.outcome_head_seq},
                {"outcomes_recorded", s.outcomes_recorded},
                {"outcomes_pushed", s.outcomes_pushed},
                {"outcomes_dropped", s.outcomes_dropped},
                {"outcomes_queued", s.outcomes_queued},
                {"outcome_events_applied", s.outcome_events_applied},
                {"outcome_events_skipped", s.outcome_events_skipped}};
}

}  // namespace scout::registry
