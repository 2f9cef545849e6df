// auth.hpp: the callers the HTTP listener accepts. An auth file names each caller, its bearer
// token and its scope (the servers it may use, an environment label):
//   {"callers": [{"name": "ci", "token": "...", "servers": ["filesystem"], "environment": "dev"},
//                {"name": "admin", "token_sha256": "<64 hex digits>"}]}
// A caller without "servers" may use every server; without "environment", every environment.
// "token_sha256" (the SHA-256 of the token, hex) keeps the token itself out of the file; a caller
// gives exactly one of "token" and "token_sha256". "rate": {"requests_per_second": R, "burst": B}
// bounds how often the caller may ask.
// A "jwt" section (jwt_config.hpp) also accepts JWT bearer tokens signed by an identity
// provider; the file then needs no "callers", and a token that is not a static one is checked as
// a JWT.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scout/status.hpp"

#include "caller_scope.hpp"
#include "jwt.hpp"

namespace scout::gateway {

/// Tokens are printable ASCII without spaces, 16 to 4096 bytes.
inline constexpr std::size_t kMinTokenBytes = 16;
inline constexpr std::size_t kMaxTokenBytes = 4096;

/// Immutable after parsing; thread-safe.
class AuthTable {
public:
    /// The caller whose token `authorization` (an Authorization header value, "Bearer <token>")
    /// carries, or nullptr. The token is hashed (SHA-256) and compared with every entry's digest
    /// in full, so the answer's timing says nothing about how much of a token matched.
    /// Static tokens only.
    [[nodiscard]] const CallerScope* authenticate(std::string_view authorization) const;
    /// The caller a static token or, with a "jwt" section, a JWT names, at Unix time `now`;
    /// nullopt otherwise, with `why` (when given) saying why a JWT was refused. `why` never
    /// quotes the token.
    [[nodiscard]] std::optional<CallerScope> identify(std::string_view authorization,
                                                      std::int64_t now,
                                                      std::string* why = nullptr) const;
    /// The static callers.
    [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }
    [[nodiscard]] const std::vector<CallerScope>& callers() const;
    /// The JWT rules and keys, or nullptr without a "jwt" section.
    [[nodiscard]] const JwtVerifier* jwt() const noexcept { return jwt_.get(); }
    /// Whether `name` is a JWT caller's (it starts with the section's caller_prefix).
    [[nodiscard]] bool is_jwt_caller(std::string_view name) const noexcept;

    /// invalid_argument naming the offending entry; duplicate names or tokens are refused. A
    /// "jwt" section's jwks_file is read relative to `base_dir` ("": the working directory); its
    /// jwks_url is fetched by `fetch` (an error when that fails), then kept fresh on a thread,
    /// unless `previous` (the table this one replaces) fetches the same URL with the same
    /// refresh and timeout: its key set is then shared, and nothing is fetched (a reload never
    /// waits on the identity provider for keys it already has).
    [[nodiscard]] static Result<AuthTable> parse(std::string_view json_text,
                                                 const std::string& base_dir = {},
                                                 const JwksFetcher& fetch = fetch_jwks,
                                                 const AuthTable* previous = nullptr);
    /// Reads and parses a file (errors start with the path); a relative jwks_file is found
    /// next to it.
    [[nodiscard]] static Result<AuthTable> load(const std::string& path,
                                                const AuthTable* previous = nullptr);

private:
    struct Entry {
        std::string digest;  ///< SHA-256 of the token, 32 bytes
        CallerScope scope;
    };
    std::vector<Entry> entries_;
    std::vector<CallerScope> scopes_;
    std::shared_ptr<const JwtVerifier> jwt_;
};

/// ", JWTs from <issuer> (K keys)" for a table with a "jwt" section, "" otherwise: what the
/// start-up, --check-config and SIGHUP lines add to the static callers' count.
[[nodiscard]] std::string jwt_summary(const AuthTable& table);

/// Equal in time that depends only on the two lengths (never on where they first differ).
[[nodiscard]] bool constant_time_equal(std::string_view a, std::string_view b) noexcept;

}  // namespace scout::gateway
