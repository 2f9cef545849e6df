// jwt_signer.hpp: an identity provider for tests: RSA-2048 and P-256 keys made in-process with
// OpenSSL 3, their JWKS, and tokens signed with them (or deliberately signed wrongly).
#pragma once

#include <cstdint>
#include <ctime>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include "base64url.hpp"

namespace scout::test {

/// The issuer and audience the tests' tokens name and their gateways expect.
inline constexpr const char* kIssuer = "https://id.example.test/";
inline constexpr const char* kAudience = "scout-gateway";

/// Seconds since the epoch, for tokens a running gateway checks against its clock.
inline std::int64_t unix_now() {
    return static_cast<std::int64_t>(std::time(nullptr));
}

struct PkeyDeleter {
    void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyDeleter>;

inline Pkey make_rsa_key(unsigned bits = 2048) {
    Pkey key(EVP_RSA_gen(bits));
    if (!key) {
        throw std::runtime_error("EVP_RSA_gen failed");
    }
    return key;
}

inline Pkey make_p256_key() {
    Pkey key(EVP_EC_gen("P-256"));
    if (!key) {
        throw std::runtime_error("EVP_EC_gen failed");
    }
    return key;
}

/// A BIGNUM parameter of `key` as big-endian bytes, left-padded to `width` when it is non-zero.
inline std::string bn_param(const EVP_PKEY* key, const char* name, int width = 0) {
    BIGNUM* bn = nullptr;
    if (EVP_PKEY_get_bn_param(key, name, &bn) != 1) {
        throw std::runtime_error(std::string("no parameter ") + name);
    }
    const int size = width > 0 ? width : BN_num_bytes(bn);
    std::string out(static_cast<std::size_t>(size), '\0');
    BN_bn2binpad(bn, reinterpret_cast<unsigned char*>(out.data()), size);
    BN_free(bn);
    return out;
}

/// The public JWK of an RSA or P-256 key.
inline nlohmann::json public_jwk(const EVP_PKEY* key, const std::string& kid) {
    nlohmann::json jwk;
    if (EVP_PKEY_is_a(key, "RSA")) {
        jwk = {{"kty", "RSA"},
               {"n", gateway::base64url_encode(bn_param(key, OSSL_PKEY_PARAM_RSA_N))},
               {"e", gateway::base64url_encode(bn_param(key, OSSL_PKEY_PARAM_RSA_E))}};
    } else {
        jwk = {{"kty", "EC"},
               {"crv", "P-256"},
               {"x", gateway::base64url_encode(bn_param(key, OSSL_PKEY_PARAM_EC_PUB_X, 32))},
               {"y", gateway::base64url_encode(bn_param(key, OSSL_PKEY_PARAM_EC_PUB_Y, 32))}};
    }
    if (!kid.empty()) {
        jwk["kid"] = kid;
    }
    return jwk;
}

/// The SubjectPublicKeyInfo PEM of `key` (what an HS256 forger would use as the secret).
inline std::string public_pem(EVP_PKEY* key) {
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
    PEM_write_bio_PUBKEY(bio.get(), key);
    char* data = nullptr;
    const long n = BIO_get_mem_data(bio.get(), &data);
    return std::string(data, static_cast<std::size_t>(n));
}

/// The SHA-256 signature of `input` with `key`: PKCS#1 v1.5 for RSA, raw r || s for P-256.
inline std::string sign_raw(EVP_PKEY* key, std::string_view input) {
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    std::size_t length = 0;
    if (EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key) != 1 ||
        EVP_DigestSign(ctx.get(),
                       nullptr,
                       &length,
                       reinterpret_cast<const unsigned char*>(input.data()),
                       input.size()) != 1) {
        throw std::runtime_error("EVP_DigestSign failed");
    }
    std::string sig(length, '\0');
    if (EVP_DigestSign(ctx.get(),
                       reinterpret_cast<unsigned char*>(sig.data()),
                       &length,
                       reinterpret_cast<const unsigned char*>(input.data()),
                       input.size()) != 1) {
        throw std::runtime_error("EVP_DigestSign failed");
    }
    sig.resize(length);
    if (EVP_PKEY_is_a(key, "RSA")) {
        return sig;
    }
    const auto* p = reinterpret_cast<const unsigned char*>(sig.data());
    ECDSA_SIG* der = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(sig.size()));
    std::string raw(64, '\0');
    BN_bn2binpad(ECDSA_SIG_get0_r(der), reinterpret_cast<unsigned char*>(raw.data()), 32);
    BN_bn2binpad(ECDSA_SIG_get0_s(der), reinterpret_cast<unsigned char*>(raw.data()) + 32, 32);
    ECDSA_SIG_free(der);
    return raw;
}

/// header.payload, base64url of each JSON text as given.
inline std::string signing_input(const std::string& header, const std::string& payload) {
    return gateway::base64url_encode(header) + "." + gateway::base64url_encode(payload);
}

/// A compact JWS of `header` and `payload` signed with `key`.
inline std::string sign_jwt(EVP_PKEY* key,
                            const nlohmann::json& header,
                            const nlohmann::json& payload) {
    const std::string input = signing_input(header.dump(), payload.dump());
    return input + "." + gateway::base64url_encode(sign_raw(key, input));
}

/// HS256 over header.payload with `secret`.
inline std::string hmac_sha256(std::string_view secret, std::string_view input) {
    unsigned char out[EVP_MAX_MD_SIZE];
    std::size_t length = 0;
    if (EVP_Q_mac(nullptr,
                  "HMAC",
                  nullptr,
                  "SHA256",
                  nullptr,
                  secret.data(),
                  secret.size(),
                  reinterpret_cast<const unsigned char*>(input.data()),
                  input.size(),
                  out,
                  sizeof out,
                  &length) == nullptr) {
        throw std::runtime_error("EVP_Q_mac failed");
    }
    return std::string(reinterpret_cast<const char*>(out), length);
}

}  // namespace scout::test
