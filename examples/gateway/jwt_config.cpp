// jwt_config.cpp: see jwt_config.hpp.
#include "jwt_config.hpp"

#include <nlohmann/json.hpp>

#include "scout/catalog.hpp"

#include "config_errors.hpp"
#include "http_rules.hpp"
#include "printable.hpp"
#include "remote_session.hpp"

namespace scout::gateway {
namespace {

using Json = nlohmann::json;

constexpr std::size_t kMaxClaimValueBytes = 1024;
constexpr std::size_t kMaxPrefixBytes = 64;
constexpr std::int64_t kMaxClockSkewSeconds = 600;
constexpr std::int64_t kMaxRefreshSeconds = 604800;  // a week
constexpr std::int64_t kMaxFetchTimeoutSeconds = 120;

Status bad_jwt_setting(const std::string& key, const std::string& what) {
    return Status{Errc::invalid_argument, "jwt." + key + ": " + what};
}

/// A string member of 1 to `max` bytes without control characters, into `out`.
Status jwt_text(const std::string& key, const Json& value, std::size_t max, std::string& out) {
    bool ok = value.is_string();
    if (ok) {
        const std::string& s = value.get_ref<const std::string&>();
        ok = !s.empty() && s.size() <= max;
        for (const char c : s) {
            const auto b = static_cast<unsigned char>(c);
            ok = ok && b >= 0x20 && b != 0x7f;
        }
    }
    if (!ok) {
        return bad_jwt_setting(key,
                               "must be a string of 1 to " + std::to_string(max) +
                                   " bytes without control characters" +
                                   (value.is_string() ? "" : got_type(value)));
    }
    out = value.get<std::string>();
    return {};
}

/// A whole number from `min` to `max`, into `out`.
Status whole(const std::string& key,
             const Json& value,
             std::int64_t min,
             std::int64_t max,
             std::int64_t& out) {
    if (!value.is_number_integer() || value.get<std::int64_t>() < min ||
        value.get<std::int64_t>() > max) {
        return bad_jwt_setting(key,
                               "must be a whole number from " + std::to_string(min) + " to " +
                                   std::to_string(max) +
                                   (value.is_number() ? "" : got_type(value)));
    }
    out = value.get<std::int64_t>();
    return {};
}

/// https:// anywhere, http:// only to this machine: keys fetched in clear over a network could
/// be swapped by anyone on the path.
Status check_jwks_url(const std::string& url) {
    const auto parsed = parse_http_url(url);
    if (!parsed) {
        return bad_jwt_setting("jwks_url", "must be an http:// or https:// URL");
    }
    if (parsed->origin.rfind("https://", 0) != 0 && !origin_allowed(parsed->origin, {})) {
        return bad_jwt_setting("jwks_url", "must be https:// (http:// only to a loopback host)");
    }
    return {};
}

}  // namespace

Result<JwtRules> parse_jwt_rules(const Json& section) {
    if (!section.is_object()) {
        return Status{Errc::invalid_argument, "jwt: must be an object" + got_type(section)};
    }
    JwtRules rules;
    bool has_issuer = false;
    bool has_audience = false;
    for (const auto& [key, value] : section.items()) {
        Status s;
        if (key == "issuer") {
            s = jwt_text(key, value, kMaxClaimValueBytes, rules.issuer);
            has_issuer = true;
        } else if (key == "audience") {
            s = jwt_text(key, value, kMaxClaimValueBytes, rules.audience);
            has_audience = true;
        } else if (key == "jwks_file") {
            s = jwt_text(key, value, 4096, rules.jwks_file);
        } else if (key == "jwks_url") {
            s = jwt_text(key, value, 4096, rules.jwks_url);
            if (s.ok()) {
                s = check_jwks_url(rules.jwks_url);
            }
        } else if (key == "refresh_seconds") {
            s = whole(key, value, 1, kMaxRefreshSeconds, rules.refresh_seconds);
        } else if (key == "fetch_timeout_seconds") {
            s = whole(key, value, 1, kMaxFetchTimeoutSeconds, rules.fetch_timeout_seconds);
        } else if (key == "clock_skew_seconds") {
            s = whole(key, value, 0, kMaxClockSkewSeconds, rules.clock_skew_seconds);
        } else if (key == "scopes_claim") {
            s = jwt_text(key, value, kMaxPrefixBytes, rules.scopes_claim);
        } else if (key == "server_scope_prefix") {
            s = jwt_text(key, value, kMaxPrefixBytes, rules.server_scope_prefix);
        } else if (key == "caller_prefix") {
            s = jwt_text(key, value, kMaxPrefixBytes, rules.caller_prefix);
        } else if (key == "environment_claim") {
            s = jwt_text(key, value, kMaxPrefixBytes, rules.environment_claim);
            if (s.ok() && !rules.environment.empty()) {
                s = bad_jwt_setting(
                    key, "give either \"environment_claim\" or \"environment\", not both");
            }
        } else if (key == "environment") {
            s = jwt_text(key, value, kMaxNameBytes, rules.environment);
            if (s.ok() && !rules.environment_claim.empty()) {
                s = bad_jwt_setting(
                    key, "give either \"environment_claim\" or \"environment\", not both");
            }
        } else if (key == "rate") {
            RateLimit rate;
            s = parse_rate_limit("jwt.rate", value, rate);
            rules.rate = rate;
        } else {
            s = bad_jwt_setting(
                detail::clipped(key),
                "unknown key (known: issuer, audience, jwks_file, jwks_url, "
                "refresh_seconds, fetch_timeout_seconds, clock_skew_seconds, scopes_claim, "
                "server_scope_prefix, caller_prefix, environment_claim, environment, rate)");
        }
        if (!s.ok()) {
            return s;
        }
    }
    if (!has_issuer) {
        return bad_jwt_setting("issuer", "is required (the \"iss\" every token must carry)");
    }
    if (!has_audience) {
        return bad_jwt_setting("audience", "is required (what every token's \"aud\" must name)");
    }
    if (rules.jwks_file.empty() == rules.jwks_url.empty()) {
        return bad_jwt_setting(
            "jwks_file",
            "give exactly one of \"jwks_file\" (a JWKS file) and \"jwks_url\" (where "
            "the identity provider publishes its keys)");
    }
    if (rules.jwks_url.empty() &&
        (section.contains("refresh_seconds") || section.contains("fetch_timeout_seconds"))) {
        return bad_jwt_setting(
            section.contains("refresh_seconds") ? "refresh_seconds" : "fetch_timeout_seconds",
            "applies only with \"jwks_url\" (a jwks_file is read again on SIGHUP)");
    }
    return rules;
}

}  // namespace scout::gateway
