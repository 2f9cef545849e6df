// jwks_remote.hpp: a JWT key set fetched from the identity provider's URL (the "jwt" section's
// jwks_url) and kept fresh: fetched at start (a failure then is an error), again every refresh
// interval, and once more, at most every kUnknownKidRefreshInterval, when a token names a kid the
// set lacks (the provider rotated its keys). A failed refresh keeps the last good set, logs why
// and is counted for /metrics. Every fetch is bounded in size (kMaxJwksBytes) and time.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "jwks.hpp"

namespace scout::gateway {

/// How long after one unknown-kid refresh another may be asked.
inline constexpr std::chrono::seconds kUnknownKidRefreshInterval{30};

/// Where the keys come from and how often; the limits of one fetch.
struct JwksFetchOptions {
    std::string url;  ///< https://, or http:// to a loopback host
    std::chrono::seconds refresh{3600};
    std::chrono::milliseconds connect_timeout{5000};
    std::chrono::milliseconds total_timeout{10000};  ///< the whole fetch, body included
};

/// One fetch: the parsed key set, or an error saying why (HTTP status, timeout, over
/// kMaxJwksBytes, a set that does not parse). Never throws.
using JwksFetcher = std::function<Result<KeySet>(const JwksFetchOptions& options)>;

/// The fetcher over HTTP(S) (cpp-httplib, as for remote backends).
[[nodiscard]] Result<KeySet> fetch_jwks(const JwksFetchOptions& options);

/// Thread-safe. Owns the refreshing thread; the destructor stops it, waiting for a fetch in
/// progress at most its timeouts.
class RemoteKeySet {
public:
    /// Fetches once; an error (with the URL) when that fails. Then refreshes on a thread.
    [[nodiscard]] static Result<std::shared_ptr<RemoteKeySet>> start(
        JwksFetchOptions options, JwksFetcher fetch = fetch_jwks);
    ~RemoteKeySet();
    RemoteKeySet(const RemoteKeySet&) = delete;
    RemoteKeySet& operator=(const RemoteKeySet&) = delete;

    /// The last set fetched well.
    [[nodiscard]] std::shared_ptr<const KeySet> current() const;
    /// A token named a kid the current set lacks: refresh soon, unless such a refresh was asked
    /// within kUnknownKidRefreshInterval. Does not wait.
    void unknown_kid();

    struct Counts {
        std::uint64_t fetched = 0;  ///< fetches that replaced the set (the first one included)
        std::uint64_t failed = 0;   ///< fetches that kept the last good set
        std::uint64_t unknown_kid_refreshes = 0;
        std::size_t keys = 0;  ///< keys in the current set
    };
    [[nodiscard]] Counts counts() const;
    [[nodiscard]] const JwksFetchOptions& options() const noexcept { return options_; }

private:
    RemoteKeySet(JwksFetchOptions options, JwksFetcher fetch, KeySet first);
    void run();

    JwksFetchOptions options_;
    JwksFetcher fetch_;
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    std::shared_ptr<const KeySet> keys_;
    bool stopping_ = false;
    bool refresh_asked_ = false;
    std::chrono::steady_clock::time_point last_unknown_kid_{};
    bool unknown_kid_seen_ = false;
    Counts counts_;
    std::thread thread_;
};

/// The Prometheus series of a remote key set (fetches by result, unknown-kid refreshes, keys).
[[nodiscard]] std::string jwks_metrics(const RemoteKeySet::Counts& counts);

}  // namespace scout::gateway
