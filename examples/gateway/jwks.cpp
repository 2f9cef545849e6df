// jwks.cpp: see jwks.hpp. Keys are built with OpenSSL 3's EVP_PKEY_fromdata from their
// parameters (n and e; the P-256 point x, y), and an EC point is checked to lie on the curve.
#include "jwks.hpp"

#include <set>

#include <nlohmann/json.hpp>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include "base64url.hpp"
#include "bounded_json.hpp"
#include "config_errors.hpp"
#include "file_io.hpp"
#include "printable.hpp"

namespace scout::gateway {
namespace {

constexpr int kMinRsaBits = 2048;
constexpr int kMaxRsaBits = 8192;
/// A key set is a flat list of flat objects; deeper nesting is not a key set.
constexpr std::size_t kMaxJwksDepth = 8;

struct PkeyCtxFree {
    void operator()(EVP_PKEY_CTX* p) const { EVP_PKEY_CTX_free(p); }
};
struct ParamBldFree {
    void operator()(OSSL_PARAM_BLD* p) const { OSSL_PARAM_BLD_free(p); }
};
struct ParamFree {
    void operator()(OSSL_PARAM* p) const { OSSL_PARAM_free(p); }
};
struct BnFree {
    void operator()(BIGNUM* p) const { BN_free(p); }
};
using BnPtr = std::unique_ptr<BIGNUM, BnFree>;

/// The EVP_PKEY of `type` ("RSA", "EC") that `params` describe, public part only; null on error.
std::shared_ptr<EVP_PKEY> key_from_params(const char* type, OSSL_PARAM_BLD& bld) {
    std::unique_ptr<OSSL_PARAM, ParamFree> params(OSSL_PARAM_BLD_to_param(&bld));
    std::unique_ptr<EVP_PKEY_CTX, PkeyCtxFree> ctx(
        EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
    EVP_PKEY* pkey = nullptr;
    if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
        EVP_PKEY_fromdata(ctx.get(), &pkey, EVP_PKEY_PUBLIC_KEY, params.get()) != 1) {
        return nullptr;
    }
    return std::shared_ptr<EVP_PKEY>(pkey, EVP_PKEY_free);
}

/// A base64url member `name` of key `k`, decoded; empty with `status` set when it is not.
std::string member_bytes(const nlohmann::json& k,
                         const std::string& where,
                         const char* name,
                         Status& status) {
    const auto it = k.find(name);
    if (it == k.end()) {
        status = config_error(where + "." + name, "is required");
        return {};
    }
    std::optional<std::string> bytes =
        it->is_string() ? base64url_decode(it->get_ref<const std::string&>()) : std::nullopt;
    if (!bytes || bytes->empty()) {
        status = config_error(where + "." + name, "must be a non-empty unpadded base64url string");
        return {};
    }
    return std::move(*bytes);
}

Result<std::shared_ptr<EVP_PKEY>> rsa_key(const nlohmann::json& k, const std::string& where) {
    Status status;
    const std::string n = member_bytes(k, where, "n", status);
    if (!status.ok()) {
        return status;
    }
    const std::string e = member_bytes(k, where, "e", status);
    if (!status.ok()) {
        return status;
    }
    if (n.size() > kMaxRsaBits / 8 + 1) {
        return config_error(where + ".n",
                            "the modulus is over " + std::to_string(kMaxRsaBits) + " bits");
    }
    BnPtr bn_n(BN_bin2bn(
        reinterpret_cast<const unsigned char*>(n.data()), static_cast<int>(n.size()), nullptr));
    BnPtr bn_e(BN_bin2bn(
        reinterpret_cast<const unsigned char*>(e.data()), static_cast<int>(e.size()), nullptr));
    std::unique_ptr<OSSL_PARAM_BLD, ParamBldFree> bld(OSSL_PARAM_BLD_new());
    if (!bn_n || !bn_e || !bld) {
        return Status{Errc::internal, where + ": out of memory"};
    }
    // An exponent of 3 or more, odd, at most 64 bits: anything else is not a real RSA key.
    if (e.size() > 8 || !BN_is_odd(bn_e.get()) || BN_num_bits(bn_e.get()) < 2) {
        return config_error(where + ".e", "is not a usable RSA public exponent");
    }
    const int bits = BN_num_bits(bn_n.get());
    if (bits < kMinRsaBits || bits > kMaxRsaBits) {
        return config_error(where + ".n",
                            "the modulus has " + std::to_string(bits) + " bits (RS256 keys need " +
                                std::to_string(kMinRsaBits) + " to " + std::to_string(kMaxRsaBits) +
                                ")");
    }
    if (OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_N, bn_n.get()) != 1 ||
        OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_E, bn_e.get()) != 1) {
        return Status{Errc::internal, where + ": out of memory"};
    }
    auto key = key_from_params("RSA", *bld);
    if (!key) {
        return config_error(where, "OpenSSL refused the RSA key (n, e)");
    }
    return key;
}

Result<std::shared_ptr<EVP_PKEY>> p256_key(const nlohmann::json& k, const std::string& where) {
    Status status;
    const std::string x = member_bytes(k, where, "x", status);
    if (!status.ok()) {
        return status;
    }
    const std::string y = member_bytes(k, where, "y", status);
    if (!status.ok()) {
        return status;
    }
    // RFC 7518 section 6.2.1.2: each coordinate is exactly the field size, 32 bytes for P-256.
    if (x.size() != 32) {
        return config_error(where + ".x",
                            "must be 32 bytes for P-256 (got " + std::to_string(x.size()) + ")");
    }
    if (y.size() != 32) {
        return config_error(where + ".y",
                            "must be 32 bytes for P-256 (got " + std::to_string(y.size()) + ")");
    }
    const std::string point = std::string(1, '\x04') + x + y;  // SEC 1 uncompressed point
    std::unique_ptr<OSSL_PARAM_BLD, ParamBldFree> bld(OSSL_PARAM_BLD_new());
    if (!bld ||
        OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, "P-256", 0) != 1 ||
        OSSL_PARAM_BLD_push_octet_string(
            bld.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size()) != 1) {
        return Status{Errc::internal, where + ": out of memory"};
    }
    auto key = key_from_params("EC", *bld);
    if (!key) {
        return config_error(where, "x, y is not a point on P-256");
    }
    // fromdata decodes the point; the public check also refuses the point at infinity and a
    // point outside the group, so a verification never runs on an invalid key.
    std::unique_ptr<EVP_PKEY_CTX, PkeyCtxFree> check(
        EVP_PKEY_CTX_new_from_pkey(nullptr, key.get(), nullptr));
    if (!check || EVP_PKEY_public_check(check.get()) != 1) {
        return config_error(where, "x, y is not a valid P-256 public key");
    }
    return key;
}

/// Members that carry a private key: a set holding them was exported wrongly and is refused,
/// so a private key is not left lying in the gateway's configuration unnoticed.
constexpr const char* kPrivateMembers[] = {"d", "p", "q", "dp", "dq", "qi", "oth", "k"};

}  // namespace

std::string_view jws_alg_name(JwsAlg alg) {
    return alg == JwsAlg::rs256 ? "RS256" : "ES256";
}

const PublicKey* KeySet::select(JwsAlg alg, const std::string* kid, std::string& why) const {
    if (kid != nullptr) {
        for (const PublicKey& k : keys_) {
            if (k.kid == *kid) {
                if (k.alg != alg) {
                    why = "the key '" + detail::clipped(*kid) + "' is for " +
                          std::string(jws_alg_name(k.alg)) + ", not " +
                          std::string(jws_alg_name(alg));
                    return nullptr;
                }
                return &k;
            }
        }
        why = "no key has kid '" + detail::clipped(*kid) + "'";
        return nullptr;
    }
    const PublicKey* only = nullptr;
    std::size_t count = 0;
    for (const PublicKey& k : keys_) {
        if (k.alg == alg) {
            only = &k;
            ++count;
        }
    }
    if (count != 1) {
        why = count == 0 ? "no " + std::string(jws_alg_name(alg)) + " key"
                         : "no kid and " + std::to_string(count) + " " +
                               std::string(jws_alg_name(alg)) + " keys to choose from";
        return nullptr;
    }
    return only;
}

Result<KeySet> KeySet::parse(std::string_view json_text) {
    if (json_text.size() > kMaxJwksBytes) {
        return config_error("jwks", "over " + std::to_string(kMaxJwksBytes) + " bytes");
    }
    auto doc = detail::parse_json(json_text, kMaxJwksDepth);
    if (!doc) {
        return config_error("jwks", doc.status().message());
    }
    if (!doc->is_object()) {
        return config_error("jwks", "not a JSON object");
    }
    const auto keys = doc->find("keys");
    if (keys == doc->end() || !keys->is_array()) {
        return config_error("keys", "is required: an array of keys");
    }
    if (keys->size() > kMaxJwksKeys) {
        return config_error("keys",
                            "holds " + std::to_string(keys->size()) + " keys (at most " +
                                std::to_string(kMaxJwksKeys) + ")");
    }
    KeySet set;
    std::set<std::string> kids;
    std::size_t index = 0;
    for (const nlohmann::json& k : *keys) {
        const std::string where = "keys[" + std::to_string(index++) + "]";
        if (!k.is_object()) {
            return config_error(where, "must be an object");
        }
        for (const char* member : kPrivateMembers) {
            if (k.contains(member)) {
                return config_error(where + "." + member,
                                    "a private key member: the set must hold public keys only");
            }
        }
        const auto kty = k.find("kty");
        if (kty == k.end() || !kty->is_string()) {
            return config_error(where + ".kty", "is required: a string");
        }
        const auto use = k.find("use");
        if (use != k.end() && !use->is_string()) {
            return config_error(where + ".use", "must be a string");
        }
        const auto alg = k.find("alg");
        if (alg != k.end() && !alg->is_string()) {
            return config_error(where + ".alg", "must be a string");
        }
        const auto kid = k.find("kid");
        if (kid != k.end() && (!kid->is_string() || kid->get_ref<const std::string&>().empty() ||
                               kid->get_ref<const std::string&>().size() > kMaxKidBytes)) {
            return config_error(
                where + ".kid",
                "must be a string of 1 to " + std::to_string(kMaxKidBytes) + " bytes");
        }
        const std::string& type = kty->get_ref<const std::string&>();
        const bool for_signing = use == k.end() || *use == "sig";
        const bool rsa = type == "RSA" && (alg == k.end() || *alg == "RS256");
        const bool ec = type == "EC" && (alg == k.end() || *alg == "ES256") && k.contains("crv") &&
                        k["crv"] == "P-256";
        if (!for_signing || (!rsa && !ec)) {
            ++set.skipped_;  // another use, algorithm or curve: not for these tokens
            continue;
        }
        auto key = rsa ? rsa_key(k, where) : p256_key(k, where);
        if (!key) {
            return key.status();
        }
        PublicKey pk;
        pk.alg = rsa ? JwsAlg::rs256 : JwsAlg::es256;
        pk.key = std::move(key.value());
        if (kid != k.end()) {
            pk.kid = kid->get<std::string>();
            if (!kids.insert(pk.kid).second) {
                return config_error(where + ".kid",
                                    "'" + detail::clipped(pk.kid) + "' is given twice");
            }
        }
        set.keys_.push_back(std::move(pk));
    }
    if (set.keys_.empty()) {
        return config_error("keys", "holds no RS256 (RSA) or ES256 (EC P-256) signature key");
    }
    return set;
}

Result<KeySet> KeySet::load(const std::string& path) {
    auto text = detail::read_text_file(path, kMaxJwksBytes);
    if (!text) {
        return text.status();
    }
    auto parsed = parse(*text);
    if (!parsed) {
        return Status{parsed.status().code(), path + ": " + parsed.status().message()};
    }
    return parsed;
}

}  // namespace scout::gateway
