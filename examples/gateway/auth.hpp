// auth.hpp: the callers the HTTP listener accepts. An auth file names each caller, its bearer
// token and its scope (the servers it may use, an environment label):
//   {"callers": [{"name": "ci", "token": "...", "servers": ["filesystem"], "environment": "dev"},
//                {"name": "admin", "token_sha256": "<64 hex digits>"}]}
// A caller without "servers" may use every server; without "environment", every environment.
// "token_sha256" (the SHA-256 of the token, hex) keeps the token itself out of the file; a caller
// gives exactly one of "token" and "token_sha256". "rate": {"requests_per_second": R, "burst": B}
// bounds how often the caller may ask.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scout/status.hpp"

namespace scout::gateway {

/// A token bucket's parameters: `requests_per_second` on average, `burst` at once.
struct RateLimit {
    double requests_per_second = 0;
    double burst = 1;
};

/// What one authenticated caller may see and run.
struct CallerScope {
    std::string name;
    std::optional<std::vector<std::string>> servers;  ///< nullopt: every server
    std::string environment;                          ///< empty: the process-wide one
    std::optional<RateLimit> rate;                    ///< nullopt: the gateway's default
};

/// Tokens are printable ASCII without spaces, 16 to 4096 bytes.
inline constexpr std::size_t kMinTokenBytes = 16;
inline constexpr std::size_t kMaxTokenBytes = 4096;

/// Immutable after parsing; thread-safe.
class AuthTable {
public:
    /// The caller whose token `authorization` (an Authorization header value, "Bearer <token>")
    /// carries, or nullptr. The token is hashed (SHA-256) and compared with every entry's digest
    /// in full, so the answer's timing says nothing about how much of a token matched.
    [[nodiscard]] const CallerScope* authenticate(std::string_view authorization) const;
    [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }
    [[nodiscard]] const std::vector<CallerScope>& callers() const;

    /// invalid_argument naming the offending entry; duplicate names or tokens are refused.
    [[nodiscard]] static Result<AuthTable> parse(std::string_view json_text);
    /// Reads and parses a file (errors start with the path).
    [[nodiscard]] static Result<AuthTable> load(const std::string& path);

private:
    struct Entry {
        std::string digest;  ///< SHA-256 of the token, 32 bytes
        CallerScope scope;
    };
    std::vector<Entry> entries_;
    std::vector<CallerScope> scopes_;
};

/// Equal in time that depends only on the two lengths (never on where they first differ).
[[nodiscard]] bool constant_time_equal(std::string_view a, std::string_view b) noexcept;

}  // namespace scout::gateway
