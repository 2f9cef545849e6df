// auth.cpp: see auth.hpp. Every key is type-checked before use: a wrong type or an unknown key is
// a message naming its path (callers[1].servers[0]), never an exception.
#include "auth.hpp"

#include <array>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>
#include <openssl/evp.h>

#include "scout/catalog.hpp"

#include "bounded_json.hpp"
#include "config_errors.hpp"
#include "config_file.hpp"
#include "jwt_config.hpp"
#include "printable.hpp"

namespace scout::gateway {
namespace {

using Json = nlohmann::json;

bool valid_token(std::string_view t) {
    if (t.size() < kMinTokenBytes || t.size() > kMaxTokenBytes) {
        return false;
    }
    for (const char c : t) {
        if (c <= ' ' || c > '~') {
            return false;
        }
    }
    return true;
}

/// The SHA-256 of `text` as 32 raw bytes ("" should OpenSSL fail, which matches no entry).
std::string token_sha256(std::string_view text) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
    unsigned int length = 0;
    if (EVP_Digest(text.data(), text.size(), md.data(), &length, EVP_sha256(), nullptr) != 1 ||
        length != 32) {
        return {};
    }
    return std::string(reinterpret_cast<const char*>(md.data()), length);
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/// 64 hex digits as 32 raw bytes, or "" when `hex` is not that.
std::string from_hex_sha256(std::string_view hex) {
    if (hex.size() != 64) {
        return {};
    }
    std::string out;
    for (std::size_t i = 0; i < hex.size(); i += 2) {
        const int hi = hex_value(hex[i]);
        const int lo = hex_value(hex[i + 1]);
        if (hi < 0 || lo < 0) {
            return {};
        }
        out += static_cast<char>((hi << 4) | lo);
    }
    return out;
}

bool valid_token_name(const std::string& s) {
    if (s.empty() || s.size() > kMaxNameBytes) {
        return false;
    }
    for (const char c : s) {
        const auto b = static_cast<unsigned char>(c);
        if (b < 0x20 || b == 0x7f) {
            return false;
        }
    }
    return true;
}

/// The token of an Authorization header value "Bearer <token>" (the scheme in any case, spaces
/// around the token trimmed), or nullopt.
std::optional<std::string_view> bearer_token(std::string_view authorization, std::size_t max) {
    constexpr std::string_view kScheme = "Bearer ";
    if (authorization.size() < kScheme.size() || authorization.size() > max + 64) {
        return std::nullopt;
    }
    for (std::size_t i = 0; i < kScheme.size(); ++i) {  // the scheme is case-insensitive
        const char c = authorization[i];
        const char lower = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
        const char want = kScheme[i] >= 'A' && kScheme[i] <= 'Z'
                              ? static_cast<char>(kScheme[i] - 'A' + 'a')
                              : kScheme[i];
        if (lower != want) {
            return std::nullopt;
        }
    }
    std::string_view token = authorization.substr(kScheme.size());
    while (!token.empty() && token.front() == ' ') {
        token.remove_prefix(1);
    }
    while (!token.empty() && token.back() == ' ') {
        token.remove_suffix(1);
    }
    if (token.empty()) {
        return std::nullopt;
    }
    return token;
}

}  // namespace

Status parse_rate_limit(const std::string& where, const Json& value, RateLimit& out) {
    if (!value.is_object()) {
        return config_error(
            where,
            "must be an object {\"requests_per_second\": R, \"burst\": B}" + got_type(value));
    }
    bool has_rate = false;
    bool has_burst = false;
    for (const auto& [key, v] : value.items()) {
        if (key == "requests_per_second") {
            if (!v.is_number() || !(v.get<double>() > 0) || v.get<double>() > 1e6) {
                return config_error(where + ".requests_per_second",
                                    "must be a number above 0 and at most 1000000" +
                                        (v.is_number() ? "" : got_type(v)));
            }
            out.requests_per_second = v.get<double>();
            has_rate = true;
        } else if (key == "burst") {
            if (!v.is_number() || !(v.get<double>() >= 1) || v.get<double>() > 1e6) {
                return config_error(
                    where + ".burst",
                    "must be a number from 1 to 1000000" + (v.is_number() ? "" : got_type(v)));
            }
            out.burst = v.get<double>();
            has_burst = true;
        } else {
            return config_error(where + "." + detail::clipped(key),
                                "unknown key (known: requests_per_second, burst)");
        }
    }
    if (!has_rate) {
        return config_error(where + ".requests_per_second", "is required");
    }
    if (!has_burst) {
        out.burst = out.requests_per_second > 1 ? out.requests_per_second : 1;
    }
    return {};
}

bool constant_time_equal(std::string_view a, std::string_view b) noexcept {
    // Walks the longer length in full; a length mismatch is folded in, not returned early.
    const std::size_t n = a.size() > b.size() ? a.size() : b.size();
    unsigned diff = a.size() == b.size() ? 0U : 1U;
    for (std::size_t i = 0; i < n; ++i) {
        const auto x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0U;
        const auto y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0U;
        diff |= x ^ y;
    }
    return diff == 0;
}

const CallerScope* AuthTable::authenticate(std::string_view authorization) const {
    const std::optional<std::string_view> token = bearer_token(authorization, kMaxTokenBytes);
    if (!token) {
        return nullptr;
    }
    // Every entry holds a digest: the presented token is hashed once and compared with each in
    // full, so neither where a token differs nor which entry it is says anything in the timing.
    const std::string digest = token_sha256(*token);
    const CallerScope* found = nullptr;
    for (const Entry& e : entries_) {  // no early exit: every entry costs the same
        if (constant_time_equal(e.digest, digest) && found == nullptr && !digest.empty()) {
            found = &e.scope;
        }
    }
    return found;
}

std::optional<CallerScope> AuthTable::identify(std::string_view authorization,
                                               std::int64_t now,
                                               std::string* why) const {
    if (const CallerScope* caller = authenticate(authorization); caller != nullptr) {
        return *caller;
    }
    if (!jwt_) {
        return std::nullopt;
    }
    const std::optional<std::string_view> token = bearer_token(authorization, kMaxJwtBytes);
    if (!token || !looks_like_jwt(*token)) {
        return std::nullopt;  // no token, or a static one that matched no caller
    }
    auto scope = jwt_->verify(*token, now);
    if (!scope) {
        if (why != nullptr) {
            *why = scope.status().message();
        }
        return std::nullopt;
    }
    return std::move(scope.value());
}

bool AuthTable::is_jwt_caller(std::string_view name) const noexcept {
    const std::string& prefix = jwt_ ? jwt_->rules().caller_prefix : std::string();
    return jwt_ && name.size() > prefix.size() && name.substr(0, prefix.size()) == prefix;
}

const std::vector<CallerScope>& AuthTable::callers() const {
    return scopes_;
}

namespace {

/// The running key set of `previous` when it fetches what `options` asks, else null.
std::shared_ptr<RemoteKeySet> reusable_key_set(const AuthTable* previous,
                                               const JwksFetchOptions& options) {
    const JwtVerifier* jwt = previous != nullptr ? previous->jwt() : nullptr;
    std::shared_ptr<RemoteKeySet> remote = jwt != nullptr ? jwt->shared_remote() : nullptr;
    if (!remote) {
        return nullptr;
    }
    const JwksFetchOptions& running = remote->options();
    const bool same = running.url == options.url && running.refresh == options.refresh &&
                      running.connect_timeout == options.connect_timeout &&
                      running.total_timeout == options.total_timeout;
    return same ? remote : nullptr;
}

}  // namespace

Result<AuthTable> AuthTable::parse(std::string_view json_text,
                                   const std::string& base_dir,
                                   const JwksFetcher& fetch,
                                   const AuthTable* previous) {
    auto doc = detail::parse_json(json_text);
    if (!doc) {
        return config_error("auth", doc.status().message());
    }
    if (!doc->is_object()) {
        return config_error("auth", "not a JSON object");
    }
    for (const auto& [key, value] : doc->items()) {
        if (key != "callers" && key != "jwt") {
            return config_error(detail::clipped(key), "unknown key (known: callers, jwt)");
        }
    }
    AuthTable table;
    // The "jwt" section first: its caller_prefix is kept free of static callers' names.
    if (auto section = doc->find("jwt"); section != doc->end()) {
        auto rules = parse_jwt_rules(*section);
        if (!rules) {
            return rules.status();
        }
        if (!rules->jwks_url.empty()) {
            JwksFetchOptions options;
            options.url = rules->jwks_url;
            options.refresh = std::chrono::seconds(rules->refresh_seconds);
            options.total_timeout = std::chrono::seconds(rules->fetch_timeout_seconds);
            std::shared_ptr<RemoteKeySet> keys = reusable_key_set(previous, options);
            if (!keys) {
                auto remote = RemoteKeySet::start(std::move(options), fetch);
                if (!remote) {
                    return Status{remote.status().code(),
                                  "jwt.jwks_url: " + remote.status().message()};
                }
                keys = std::move(remote.value());
            }
            table.jwt_ =
                std::make_shared<const JwtVerifier>(std::move(rules.value()), std::move(keys));
        } else {
            std::filesystem::path jwks(rules->jwks_file);
            if (jwks.is_relative() && !base_dir.empty()) {
                jwks = std::filesystem::path(base_dir) / jwks;
            }
            auto keys = KeySet::load(jwks.string());
            if (!keys) {
                return Status{keys.status().code(), "jwt.jwks_file: " + keys.status().message()};
            }
            table.jwt_ = std::make_shared<const JwtVerifier>(std::move(rules.value()),
                                                             std::move(keys.value()));
        }
    }
    auto callers = doc->find("callers");
    if (callers == doc->end()) {
        if (table.jwt_) {
            return table;
        }
        return config_error("callers",
                            "is required (a non-empty array of callers), or a \"jwt\" section");
    }
    if (!callers->is_array() || (callers->empty() && !table.jwt_)) {
        return config_error("callers", "must be a non-empty array" + got_type(*callers));
    }
    std::set<std::string> names;
    std::set<std::string> digests;
    std::size_t index = 0;
    for (const Json& c : *callers) {
        const std::string where = "callers[" + std::to_string(index++) + "]";
        if (!c.is_object()) {
            return config_error(where, "must be an object" + got_type(c));
        }
        Entry entry;
        bool has_token = false;
        bool has_digest = false;
        for (const auto& [key, value] : c.items()) {
            if (key == "name") {
                if (!value.is_string() || !valid_token_name(value.get<std::string>())) {
                    return config_error(where + ".name",
                                        "must be a string of 1 to " +
                                            std::to_string(kMaxNameBytes) +
                                            " bytes without control characters" +
                                            (value.is_string() ? "" : got_type(value)));
                }
                entry.scope.name = value.get<std::string>();
            } else if (key == "token") {
                if (!value.is_string() || !valid_token(value.get_ref<const std::string&>())) {
                    return config_error(where + ".token",
                                        "must be printable ASCII without spaces, " +
                                            std::to_string(kMinTokenBytes) + " to " +
                                            std::to_string(kMaxTokenBytes) + " bytes" +
                                            (value.is_string() ? "" : got_type(value)));
                }
                entry.digest = token_sha256(value.get_ref<const std::string&>());
                has_token = true;
            } else if (key == "token_sha256") {
                std::string digest =
                    value.is_string() ? from_hex_sha256(value.get_ref<const std::string&>()) : "";
                if (digest.empty()) {
                    return config_error(where + ".token_sha256",
                                        "must be the token's SHA-256 as 64 hex digits" +
                                            (value.is_string() ? "" : got_type(value)));
                }
                entry.digest = std::move(digest);
                has_digest = true;
            } else if (key == "servers") {
                if (!value.is_array()) {
                    return config_error(where + ".servers",
                                        "must be an array of server names" + got_type(value));
                }
                std::vector<std::string> servers;
                for (const Json& s : value) {
                    if (!s.is_string() || !valid_token_name(s.get<std::string>())) {
                        return config_error(
                            where + ".servers[" + std::to_string(servers.size()) + "]",
                            "must be a server name" + (s.is_string() ? "" : got_type(s)));
                    }
                    servers.push_back(s.get<std::string>());
                }
                entry.scope.servers = std::move(servers);
            } else if (key == "environment") {
                if (!value.is_string() || !valid_token_name(value.get<std::string>())) {
                    return config_error(where + ".environment",
                                        "must be a non-empty string without control characters" +
                                            (value.is_string() ? "" : got_type(value)));
                }
                entry.scope.environment = value.get<std::string>();
            } else if (key == "rate") {
                RateLimit rate;
                if (Status s = parse_rate_limit(where + ".rate", value, rate); !s.ok()) {
                    return s;
                }
                entry.scope.rate = rate;
            } else {
                return config_error(
                    where + "." + detail::clipped(key),
                    "unknown key (known: name, token, token_sha256, servers, environment, "
                    "rate)");
            }
        }
        if (entry.scope.name.empty()) {
            return config_error(where + ".name", "is required");
        }
        if (has_token == has_digest) {
            return config_error(where,
                                has_token ? "give either \"token\" or \"token_sha256\", not both"
                                          : "\"token\" or \"token_sha256\" is required");
        }
        if (table.is_jwt_caller(entry.scope.name)) {
            return config_error(where + ".name",
                                "starts with jwt.caller_prefix '" +
                                    table.jwt_->rules().caller_prefix +
                                    "', which names JWT callers");
        }
        if (!names.insert(entry.scope.name).second) {
            return config_error(where + ".name", "'" + entry.scope.name + "' is named twice");
        }
        if (!digests.insert(entry.digest).second) {
            return config_error(where + (has_token ? ".token" : ".token_sha256"),
                                "the same token is given to two callers");
        }
        table.scopes_.push_back(entry.scope);
        table.entries_.push_back(std::move(entry));
    }
    return table;
}

std::string jwt_summary(const AuthTable& table) {
    const JwtVerifier* jwt = table.jwt();
    if (jwt == nullptr) {
        return {};
    }
    const std::size_t keys = jwt->keys()->keys().size();
    return ", JWTs from " + detail::clipped(jwt->rules().issuer) + " (" + std::to_string(keys) +
           (keys == 1 ? " key" : " keys") +
           (jwt->remote() != nullptr ? ", fetched from " + detail::clipped(jwt->rules().jwks_url)
                                     : std::string()) +
           ")";
}

Result<AuthTable> AuthTable::load(const std::string& path, const AuthTable* previous) {
    const std::string dir = std::filesystem::path(path).parent_path().string();
    return load_config_file(path, [&dir, previous](std::string_view text) {
        return parse(text, dir, fetch_jwks, previous);
    });
}

}  // namespace scout::gateway
