// resource_subscriptions.hpp: which client holds which backend resource subscription. Several
// clients subscribed to one URI share one subscription on the backend: the first subscribe goes
// upstream, the last unsubscribe (or the end of the last holder) goes upstream too. The gateway
// does the upstream requests; this class only keeps the counts.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace scout::gateway {

/// The stdio client's name in the registry (HTTP sessions are named by their session id).
inline constexpr const char* kStdioClient = "";

/// Thread-safe.
class ResourceSubscriptions {
public:
    /// A resource of one backend: its server's name and the backend's own URI.
    using Resource = std::pair<std::string, std::string>;

    enum class Added {
        first,     ///< the first holder: subscribe on the backend
        shared,    ///< another client holds it already
        held,      ///< this client holds it already
        too_many,  ///< over the client's limit; nothing changed
    };
    enum class Removed {
        last,      ///< no holder is left: unsubscribe on the backend
        shared,    ///< other clients still hold it
        not_held,  ///< this client did not hold it; nothing changed
    };

    explicit ResourceSubscriptions(std::size_t per_client = 1024) : per_client_(per_client) {}

    [[nodiscard]] std::size_t per_client() const noexcept { return per_client_; }
    [[nodiscard]] Added add(const std::string& client, const Resource& r);
    [[nodiscard]] Removed remove(const std::string& client, const Resource& r);
    /// Forgets every subscription of `client`; returns those that lost their last holder.
    [[nodiscard]] std::vector<Resource> end_client(const std::string& client);
    /// The clients subscribed to `r`.
    [[nodiscard]] std::vector<std::string> holders(const Resource& r) const;
    /// The URIs of `server` that some client holds (to subscribe again after a restart).
    [[nodiscard]] std::vector<std::string> held_uris(const std::string& server) const;
    /// How many subscriptions `client` holds.
    [[nodiscard]] std::size_t count(const std::string& client) const;

private:
    std::size_t per_client_;
    mutable std::mutex mutex_;
    std::map<Resource, std::set<std::string>> holders_;
    std::map<std::string, std::set<Resource>> by_client_;
};

}  // namespace scout::gateway
