// gateway_jwt_fuzz.cpp: libFuzzer target for scout-gateway's JWT bearer tokens. The first byte
// picks what the rest is (its value mod 4, so '0'..'3' in a seed):
//   0  a JWKS document for KeySet::parse
//   1  a whole token for JwtVerifier::verify against a fixed RSA + P-256 key set
//   2  a token payload (claims), signed here with the P-256 key, so the claims are read
//   3  a token header, with fixed claims, signed here with the P-256 key
// Any bytes must give a clean refusal or a well-formed result; base64url must round-trip.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include "base64url.hpp"
#include "fuzz_check.hpp"
#include "jwks.hpp"
#include "jwt.hpp"

using scout::fuzz::check;
using namespace scout::gateway;

namespace {

constexpr std::int64_t kNow = 1'800'000'000;

std::string bn_bytes(const EVP_PKEY* key, const char* name, int width) {
    BIGNUM* bn = nullptr;
    check(EVP_PKEY_get_bn_param(key, name, &bn) == 1);
    const int size = width > 0 ? width : BN_num_bytes(bn);
    std::string out(static_cast<std::size_t>(size), '\0');
    BN_bn2binpad(bn, reinterpret_cast<unsigned char*>(out.data()), size);
    BN_free(bn);
    return out;
}

struct Fixture {
    EVP_PKEY* rsa = EVP_RSA_gen(2048);
    EVP_PKEY* ec = EVP_EC_gen("P-256");
    JwtVerifier verifier = make();

    JwtVerifier make() {
        check(rsa != nullptr && ec != nullptr);
        const nlohmann::json jwks = {
            {"keys",
             {{{"kty", "RSA"},
               {"kid", "r1"},
               {"n", base64url_encode(bn_bytes(rsa, OSSL_PKEY_PARAM_RSA_N, 0))},
               {"e", base64url_encode(bn_bytes(rsa, OSSL_PKEY_PARAM_RSA_E, 0))}},
              {{"kty", "EC"},
               {"crv", "P-256"},
               {"kid", "e1"},
               {"x", base64url_encode(bn_bytes(ec, OSSL_PKEY_PARAM_EC_PUB_X, 32))},
               {"y", base64url_encode(bn_bytes(ec, OSSL_PKEY_PARAM_EC_PUB_Y, 32))}}}}};
        auto keys = KeySet::parse(jwks.dump());
        check(keys.ok());
        JwtRules rules;
        rules.issuer = "https://id.example.test/";
        rules.audience = "scout-gateway";
        rules.environment_claim = "env";
        return JwtVerifier(std::move(rules), std::move(keys.value()));
    }

    /// header.payload signed with the P-256 key, the signature as JWS wants it (r || s).
    std::string sign(std::string_view header, std::string_view payload) const {
        const std::string input = base64url_encode(header) + "." + base64url_encode(payload);
        EVP_MD_CTX* ctx = EVP_MD_CTX_new();
        unsigned char der[128];
        std::size_t length = sizeof der;
        check(EVP_DigestSignInit(ctx, nullptr, EVP_sha256(), nullptr, ec) == 1);
        check(EVP_DigestSign(ctx,
                             der,
                             &length,
                             reinterpret_cast<const unsigned char*>(input.data()),
                             input.size()) == 1);
        EVP_MD_CTX_free(ctx);
        const unsigned char* p = der;
        ECDSA_SIG* sig = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(length));
        std::string raw(64, '\0');
        BN_bn2binpad(ECDSA_SIG_get0_r(sig), reinterpret_cast<unsigned char*>(raw.data()), 32);
        BN_bn2binpad(ECDSA_SIG_get0_s(sig), reinterpret_cast<unsigned char*>(raw.data()) + 32, 32);
        ECDSA_SIG_free(sig);
        return input + "." + base64url_encode(raw);
    }
};

const Fixture& fixture() {
    static const Fixture f;  // made once; the keys live as long as the process
    return f;
}

void check_scope(const scout::Result<scout::gateway::CallerScope>& scope) {
    if (!scope) {
        check(scope.status().code() == scout::Errc::invalid_argument);
        check(!scope.status().message().empty());
        return;
    }
    check(scope->name.rfind("jwt:", 0) == 0 && scope->name.size() > 4);
    check(!scope->environment.empty());
    if (scope->servers) {
        for (const std::string& s : *scope->servers) {
            check(!s.empty() && s != "*");
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) {
        return 0;
    }
    const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
    // One spelling per byte string: what decodes encodes back to the same text.
    if (auto decoded = base64url_decode(text)) {
        check(base64url_encode(*decoded) == text);
    }
    const Fixture& f = fixture();
    switch (data[0] % 4) {
        case 0: {
            auto keys = KeySet::parse(text);
            if (!keys) {
                check(keys.status().code() == scout::Errc::invalid_argument);
                check(!keys.status().message().empty());
            } else {
                check(!keys->keys().empty() && keys->keys().size() <= kMaxJwksKeys);
                for (const PublicKey& k : keys->keys()) {
                    check(k.key != nullptr && k.kid.size() <= kMaxKidBytes);
                }
            }
            break;
        }
        case 1:
            check_scope(f.verifier.verify(text, kNow));
            break;
        case 2:
            if (text.size() <= 2048) {  // signing costs; long payloads add nothing new
                check_scope(f.verifier.verify(f.sign(R"({"alg":"ES256","kid":"e1"})", text), kNow));
            }
            break;
        default:
            if (text.size() <= 2048) {
                check_scope(f.verifier.verify(
                    f.sign(text,
                           R"({"iss":"https://id.example.test/","aud":"scout-gateway",)"
                           R"("sub":"fuzz","exp":1800000600,"env":"dev","scope":"server:a"})"),
                    kNow));
            }
            break;
    }
    return 0;
}
