// jwt.hpp: bearer tokens that are JWTs (RFC 7519) signed with RS256 or ES256, checked against a
// key set and turned into a caller's scope. Only the compact form "header.payload.signature" is
// read; the header's key hints (jku, x5u, jwk, x5c) are ignored, so a token never picks its own
// key, and a header with "crit" is refused since no extension is understood.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "caller_scope.hpp"
#include "jwks.hpp"
#include "jwks_remote.hpp"

namespace scout::gateway {

/// A JWT bearer token is at most this long; its header and payload nest at most this deep.
inline constexpr std::size_t kMaxJwtBytes = 8192;
inline constexpr std::size_t kMaxJwtJsonDepth = 8;
/// A token names at most this many scopes and audiences.
inline constexpr std::size_t kMaxJwtListItems = 256;

/// What a token must say and how its claims map to a scope (the auth file's "jwt" section).
struct JwtRules {
    std::string issuer;                           ///< "iss" must equal it
    std::string audience;                         ///< "aud" must equal it or list it
    std::string jwks_file;                        ///< where the keys were read from, or
    std::string jwks_url;                         ///< where they are fetched from
    std::int64_t refresh_seconds = 3600;          ///< jwks_url: how often it is fetched again
    std::int64_t fetch_timeout_seconds = 10;      ///< jwks_url: the bound of one fetch
    std::int64_t clock_skew_seconds = 60;         ///< leeway for exp, nbf and iat
    std::string scopes_claim = "scope";           ///< a space-separated string or an array
    std::string server_scope_prefix = "server:";  ///< "server:files" grants server "files"
    std::string caller_prefix = "jwt:";           ///< the caller's name is this + "sub"
    std::string environment_claim;                ///< "": the environment below
    std::string environment;                      ///< "": the process-wide one
    std::optional<RateLimit> rate;                ///< nullopt: the gateway's default
};

/// True when `token` has the compact JWS shape (two dots); a static token never has it.
[[nodiscard]] bool looks_like_jwt(std::string_view token) noexcept;

/// Checks tokens against one set of rules and keys. Immutable; thread-safe.
class JwtVerifier {
public:
    JwtVerifier(JwtRules rules, KeySet keys);
    /// Keys that change (jwks_url): each check uses the current set, and a token naming a kid
    /// it lacks asks the set to refresh.
    JwtVerifier(JwtRules rules, std::shared_ptr<RemoteKeySet> remote);
    ~JwtVerifier();
    JwtVerifier(JwtVerifier&&) noexcept;
    JwtVerifier& operator=(JwtVerifier&&) noexcept;
    JwtVerifier(const JwtVerifier&) = delete;  ///< its cache of accepted tokens is its own
    JwtVerifier& operator=(const JwtVerifier&) = delete;

    /// The scope a valid token grants, or invalid_argument saying why it is refused (the
    /// message never quotes the token, its signature or its claims' values beyond a name).
    /// `now` is Unix time in seconds.
    [[nodiscard]] Result<CallerScope> verify(std::string_view token, std::int64_t now) const;

    [[nodiscard]] const JwtRules& rules() const noexcept { return rules_; }
    /// The keys in use now.
    [[nodiscard]] std::shared_ptr<const KeySet> keys() const;
    /// The fetched key set (jwks_url), or nullptr (jwks_file).
    [[nodiscard]] const RemoteKeySet* remote() const noexcept { return remote_.get(); }
    /// The same, shared: a reloaded table with the same jwks_url keeps it.
    [[nodiscard]] std::shared_ptr<RemoteKeySet> shared_remote() const noexcept { return remote_; }

    /// Accepted tokens remembered at most (then forgotten all at once).
    static constexpr std::size_t kMaxRemembered = 4096;

private:
    Result<CallerScope> check(std::string_view token,
                              std::int64_t now,
                              const KeySet& keys,
                              double& valid_until) const;

    JwtRules rules_;
    std::shared_ptr<const KeySet> keys_;  ///< jwks_file's; null with remote_
    std::shared_ptr<RemoteKeySet> remote_;
    /// Tokens already accepted, by SHA-256, with the time they stop being valid: a client sends
    /// one token with many requests and each request is checked twice (head, then worker), so
    /// most checks cost a hash instead of a signature verification.
    struct Accepted;
    std::unique_ptr<Accepted> accepted_;
};

}  // namespace scout::gateway
