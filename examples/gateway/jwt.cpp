// jwt.cpp: see jwt.hpp. The order of the checks is deliberate: the shape and size first, then
// the header (which key, which algorithm), then the signature, and only a token whose signature
// holds has its payload parsed, so claims are never read from a forged token.
#include "jwt.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>

#include "scout/catalog.hpp"

#include "base64url.hpp"
#include "bounded_json.hpp"
#include "printable.hpp"

namespace scout::gateway {
namespace {

using Json = nlohmann::json;

Status refused(const std::string& why) {
    return Status{Errc::invalid_argument, why};
}

/// A SAX pass that refuses a member name given twice in one object, so a token cannot say one
/// thing to this parser and another to a parser that keeps the first of two names.
class DuplicateKeyCheck : public nlohmann::json_sax<Json> {
public:
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return open(true); }
    bool start_array(std::size_t) override { return open(false); }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }
    bool key(string_t& k) override {
        if (!objects_.back().insert(k).second) {
            duplicate_ = k;
            return false;
        }
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
        return false;
    }
    [[nodiscard]] const std::optional<std::string>& duplicate() const { return duplicate_; }

private:
    bool open(bool object) {
        if (objects_.size() >= kMaxJwtJsonDepth) {
            return false;  // parse_json below names the depth
        }
        objects_.emplace_back();
        (void)object;  // an array's entry holds no names; it only counts toward the depth
        return true;
    }
    bool close() {
        objects_.pop_back();
        return true;
    }
    std::vector<std::set<std::string>> objects_;
    std::optional<std::string> duplicate_;
};

/// The SHA-256 of `text` as 32 raw bytes ("" should OpenSSL fail: nothing is remembered).
std::string sha256(std::string_view text) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_Digest(text.data(), text.size(), md, &length, EVP_sha256(), nullptr) != 1) {
        return {};
    }
    return std::string(reinterpret_cast<const char*>(md), length);
}

/// One base64url part of the token as a JSON object, or why not. `part` is "header" or
/// "payload".
Result<Json> json_part(std::string_view encoded, const char* part) {
    const std::optional<std::string> text = base64url_decode(encoded);
    if (!text) {
        return refused(std::string("the ") + part + " is not unpadded base64url");
    }
    DuplicateKeyCheck check;
    (void)Json::sax_parse(*text, &check, Json::input_format_t::json, false);
    if (check.duplicate()) {
        return refused(std::string("the ") + part + " names '" +
                       detail::clipped(*check.duplicate()) + "' twice");
    }
    auto doc = detail::parse_json(*text, kMaxJwtJsonDepth);
    if (!doc) {
        return refused(std::string("the ") + part + " is not JSON: " + doc.status().message());
    }
    if (!doc->is_object()) {
        return refused(std::string("the ") + part + " is not a JSON object");
    }
    return std::move(doc.value());
}

struct MdCtxFree {
    void operator()(EVP_MD_CTX* p) const { EVP_MD_CTX_free(p); }
};
struct EcdsaSigFree {
    void operator()(ECDSA_SIG* p) const { ECDSA_SIG_free(p); }
};

/// A JWS ES256 signature is r || s, 32 bytes each (RFC 7518 section 3.4); OpenSSL verifies the
/// DER SEQUENCE of two INTEGERs. "" when it cannot be converted.
std::string ecdsa_der(const std::string& raw) {
    std::unique_ptr<ECDSA_SIG, EcdsaSigFree> sig(ECDSA_SIG_new());
    const auto* bytes = reinterpret_cast<const unsigned char*>(raw.data());
    BIGNUM* r = BN_bin2bn(bytes, 32, nullptr);
    BIGNUM* s = BN_bin2bn(bytes + 32, 32, nullptr);
    if (!sig || r == nullptr || s == nullptr || ECDSA_SIG_set0(sig.get(), r, s) != 1) {
        BN_free(r);
        BN_free(s);
        return {};
    }
    const int length = i2d_ECDSA_SIG(sig.get(), nullptr);
    if (length <= 0) {
        return {};
    }
    std::string der(static_cast<std::size_t>(length), '\0');
    auto* out = reinterpret_cast<unsigned char*>(der.data());
    if (i2d_ECDSA_SIG(sig.get(), &out) != length) {
        return {};
    }
    return der;
}

bool signature_holds(const PublicKey& key, std::string_view signed_part, const std::string& sig) {
    std::string der;
    std::string_view checked = sig;
    if (key.alg == JwsAlg::es256) {
        if (sig.size() != 64) {
            return false;
        }
        der = ecdsa_der(sig);
        if (der.empty()) {
            return false;
        }
        checked = der;
    } else if (sig.size() != static_cast<std::size_t>(EVP_PKEY_get_size(key.key.get()))) {
        return false;  // an RSA signature is exactly as long as the modulus
    }
    std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
    return ctx &&
           EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.key.get()) == 1 &&
           EVP_DigestVerify(ctx.get(),
                            reinterpret_cast<const unsigned char*>(checked.data()),
                            checked.size(),
                            reinterpret_cast<const unsigned char*>(signed_part.data()),
                            signed_part.size()) == 1;
}

bool valid_name(std::string_view s) {
    if (s.empty() || s.size() > kMaxNameBytes) {
        return false;
    }
    return std::none_of(s.begin(), s.end(), [](char c) {
        const auto b = static_cast<unsigned char>(c);
        return b < 0x20 || b == 0x7f;
    });
}

/// A NumericDate claim (seconds since the epoch, RFC 7519 section 2), or nullopt with `status`
/// set when it is present but not a finite number.
std::optional<double> time_claim(const Json& claims, const char* name, Status& status) {
    const auto it = claims.find(name);
    if (it == claims.end()) {
        return std::nullopt;
    }
    if (!it->is_number() || !std::isfinite(it->get<double>())) {
        status = refused(std::string("\"") + name + "\" is not a number of seconds");
        return std::nullopt;
    }
    return it->get<double>();
}

/// The scopes the token lists in `claim`: a space-separated string (RFC 8693 "scope") or an
/// array of strings (as "scp" often is). Absent: none.
Result<std::vector<std::string>> scopes(const Json& claims, const std::string& claim) {
    std::vector<std::string> out;
    const auto it = claims.find(claim);
    if (it == claims.end()) {
        return out;
    }
    if (it->is_string()) {
        const std::string& text = it->get_ref<const std::string&>();
        std::size_t start = 0;
        while (start < text.size()) {
            const std::size_t end = std::min(text.find(' ', start), text.size());
            if (end > start) {
                out.push_back(text.substr(start, end - start));
            }
            start = end + 1;
        }
    } else if (it->is_array()) {
        for (const Json& s : *it) {
            if (!s.is_string()) {
                return refused("\"" + detail::clipped(claim) + "\" lists a non-string");
            }
            out.push_back(s.get<std::string>());
        }
    } else {
        return refused("\"" + detail::clipped(claim) +
                       "\" is neither a space-separated string nor an array of strings");
    }
    if (out.size() > kMaxJwtListItems) {
        return refused("\"" + detail::clipped(claim) + "\" lists over " +
                       std::to_string(kMaxJwtListItems) + " scopes");
    }
    return out;
}

}  // namespace

bool looks_like_jwt(std::string_view token) noexcept {
    return std::count(token.begin(), token.end(), '.') == 2;
}

struct JwtVerifier::Accepted {
    std::mutex mutex;
    /// The set the tokens below were checked against: a new set (a refresh that may have
    /// dropped a key) forgets them.
    std::shared_ptr<const KeySet> keys;
    std::unordered_map<std::string, std::pair<double, CallerScope>> tokens;  ///< by SHA-256
};

JwtVerifier::JwtVerifier(JwtRules rules, KeySet keys)
    : rules_(std::move(rules)),
      keys_(std::make_shared<const KeySet>(std::move(keys))),
      accepted_(std::make_unique<Accepted>()) {}
JwtVerifier::JwtVerifier(JwtRules rules, std::shared_ptr<RemoteKeySet> remote)
    : rules_(std::move(rules)),
      remote_(std::move(remote)),
      accepted_(std::make_unique<Accepted>()) {}

std::shared_ptr<const KeySet> JwtVerifier::keys() const {
    return remote_ ? remote_->current() : keys_;
}
JwtVerifier::~JwtVerifier() = default;
JwtVerifier::JwtVerifier(JwtVerifier&&) noexcept = default;
JwtVerifier& JwtVerifier::operator=(JwtVerifier&&) noexcept = default;

Result<CallerScope> JwtVerifier::verify(std::string_view token, std::int64_t now) const {
    if (token.size() > kMaxJwtBytes) {
        return refused("the token is over " + std::to_string(kMaxJwtBytes) + " bytes");
    }
    const std::string digest = sha256(token);
    const auto at = static_cast<double>(now);
    const std::shared_ptr<const KeySet> keys = this->keys();
    if (!digest.empty()) {
        std::lock_guard lock(accepted_->mutex);
        if (accepted_->keys != keys) {
            accepted_->tokens.clear();
            accepted_->keys = keys;
        }
        const auto it = accepted_->tokens.find(digest);
        if (it != accepted_->tokens.end() && at < it->second.first) {
            return it->second.second;
        }
    }
    double valid_until = 0;
    auto scope = check(token, now, *keys, valid_until);
    if (scope && !digest.empty()) {
        std::lock_guard lock(accepted_->mutex);
        if (accepted_->keys != keys) {
            return scope;  // checked against a set replaced meanwhile: not remembered
        }
        if (accepted_->tokens.size() >= kMaxRemembered) {
            accepted_->tokens.clear();  // many subjects at once: start over rather than track age
        }
        accepted_->tokens.insert_or_assign(digest, std::make_pair(valid_until, *scope));
    }
    return scope;
}

Result<CallerScope> JwtVerifier::check(std::string_view token,
                                       std::int64_t now,
                                       const KeySet& keys,
                                       double& valid_until) const {
    if (token.size() > kMaxJwtBytes) {
        return refused("the token is over " + std::to_string(kMaxJwtBytes) + " bytes");
    }
    const std::size_t dot1 = token.find('.');
    const std::size_t dot2 = dot1 == std::string_view::npos ? dot1 : token.find('.', dot1 + 1);
    if (dot2 == std::string_view::npos || token.find('.', dot2 + 1) != std::string_view::npos) {
        return refused("not a compact JWS (header.payload.signature)");
    }

    // The header: which algorithm and which key.
    auto header = json_part(token.substr(0, dot1), "header");
    if (!header) {
        return header.status();
    }
    const auto alg = header->find("alg");
    if (alg == header->end() || !alg->is_string()) {
        return refused("the header has no \"alg\"");
    }
    JwsAlg want;
    if (*alg == "RS256") {
        want = JwsAlg::rs256;
    } else if (*alg == "ES256") {
        want = JwsAlg::es256;
    } else {  // "none", HS256 (a public key used as a shared secret), and everything else
        return refused("alg '" + detail::clipped(alg->get<std::string>(), 20) +
                       "' is not accepted (RS256 or ES256)");
    }
    if (header->contains("crit")) {
        return refused("the header has \"crit\" (no extension is understood)");
    }
    if (const auto typ = header->find("typ"); typ != header->end()) {
        std::string t = typ->is_string() ? typ->get<std::string>() : std::string();
        std::transform(t.begin(), t.end(), t.begin(), [](char c) {
            return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
        });
        if (t != "jwt" && t != "at+jwt" && t != "application/jwt" && t != "application/at+jwt") {
            return refused("typ is not JWT or at+jwt");
        }
    }
    const auto kid = header->find("kid");
    if (kid != header->end() && !kid->is_string()) {
        return refused("the header's \"kid\" is not a string");
    }
    std::string why;
    const std::string* kid_text =
        kid == header->end() ? nullptr : &kid->get_ref<const std::string&>();
    const PublicKey* key = keys.select(want, kid_text, why);
    if (key == nullptr) {
        if (remote_ && kid_text != nullptr &&
            std::none_of(keys.keys().begin(), keys.keys().end(), [&](const PublicKey& k) {
                return k.kid == *kid_text;
            })) {
            remote_->unknown_kid();  // the provider may have rotated its keys
        }
        return refused(why);
    }

    // The signature, over the first two parts exactly as sent.
    const std::optional<std::string> signature = base64url_decode(token.substr(dot2 + 1));
    if (!signature) {
        return refused("the signature is not unpadded base64url");
    }
    if (!signature_holds(*key, token.substr(0, dot2), *signature)) {
        return refused("the signature does not verify");
    }

    // The claims of an authentic token.
    auto claims = json_part(token.substr(dot1 + 1, dot2 - dot1 - 1), "payload");
    if (!claims) {
        return claims.status();
    }
    const auto skew = static_cast<double>(rules_.clock_skew_seconds);
    const auto at = static_cast<double>(now);
    Status status;
    const std::optional<double> exp = time_claim(*claims, "exp", status);
    const std::optional<double> nbf = time_claim(*claims, "nbf", status);
    const std::optional<double> iat = time_claim(*claims, "iat", status);
    if (!status.ok()) {
        return status;
    }
    if (!exp) {
        return refused("\"exp\" is required");
    }
    if (at - skew >= *exp) {
        return refused("the token has expired");
    }
    valid_until = *exp + skew;  // later checks of this token need only the clock
    if (nbf && *nbf > at + skew) {
        return refused("the token is not valid yet (nbf)");
    }
    if (iat && *iat > at + skew) {
        return refused("the token was issued in the future (iat)");
    }
    const auto iss = claims->find("iss");
    if (iss == claims->end() || !iss->is_string() || *iss != rules_.issuer) {
        return refused("the issuer is not the one configured");
    }
    const auto aud = claims->find("aud");
    bool audience_ok = false;
    if (aud != claims->end() && aud->is_string()) {
        audience_ok = *aud == rules_.audience;
    } else if (aud != claims->end() && aud->is_array() && aud->size() <= kMaxJwtListItems) {
        audience_ok =
            std::all_of(aud->begin(), aud->end(), [](const Json& a) { return a.is_string(); }) &&
            std::find(aud->begin(), aud->end(), Json(rules_.audience)) != aud->end();
    }
    if (!audience_ok) {
        return refused("the audience does not include the one configured");
    }
    const auto sub = claims->find("sub");
    if (sub == claims->end() || !sub->is_string() ||
        !valid_name(sub->get_ref<const std::string&>())) {
        return refused("\"sub\" must be a string of 1 to " + std::to_string(kMaxNameBytes) +
                       " bytes without control characters");
    }

    CallerScope scope;
    scope.name = rules_.caller_prefix + sub->get<std::string>();
    scope.rate = rules_.rate;
    auto granted = scopes(*claims, rules_.scopes_claim);
    if (!granted) {
        return granted.status();
    }
    // "<prefix><server>" grants one server, "<prefix>*" every server; other scopes are not ours.
    std::vector<std::string> servers;
    bool every = false;
    for (const std::string& s : *granted) {
        if (s.size() <= rules_.server_scope_prefix.size() ||
            s.compare(0, rules_.server_scope_prefix.size(), rules_.server_scope_prefix) != 0) {
            continue;
        }
        std::string server = s.substr(rules_.server_scope_prefix.size());
        if (server == "*") {
            every = true;
        } else if (valid_name(server)) {
            servers.push_back(std::move(server));
        }
    }
    if (!every) {
        std::sort(servers.begin(), servers.end());
        servers.erase(std::unique(servers.begin(), servers.end()), servers.end());
        scope.servers = std::move(servers);
    }
    if (!rules_.environment_claim.empty()) {
        const auto env = claims->find(rules_.environment_claim);
        if (env == claims->end() || !env->is_string() ||
            !valid_name(env->get_ref<const std::string&>())) {
            return refused("\"" + detail::clipped(rules_.environment_claim) +
                           "\" (the environment claim) must be a non-empty string");
        }
        scope.environment = env->get<std::string>();
    } else {
        scope.environment = rules_.environment;
    }
    return scope;
}

}  // namespace scout::gateway
