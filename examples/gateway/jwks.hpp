// jwks.hpp: the public keys JWT bearer tokens are checked against, read from a JSON Web Key Set
// (RFC 7517): {"keys": [{"kty": "RSA", "kid": "...", "n": "...", "e": "..."},
//                       {"kty": "EC", "crv": "P-256", "kid": "...", "x": "...", "y": "..."}]}.
// Only signature keys for RS256 (RSA of 2048 to 8192 bits) and ES256 (P-256) are kept; keys for
// encryption ("use": "enc"), other algorithms or other curves are skipped, since an identity
// provider's set mixes them. A kept key that is malformed is an error naming keys[i].member.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <openssl/types.h>

#include "scout/status.hpp"

namespace scout::gateway {

/// The two JWS algorithms the gateway verifies.
enum class JwsAlg { rs256, es256 };

/// "RS256" or "ES256".
[[nodiscard]] std::string_view jws_alg_name(JwsAlg alg);

/// A key set file is small; a larger one (or more keys) is refused, not read.
inline constexpr std::size_t kMaxJwksBytes = std::size_t{1} << 20;
inline constexpr std::size_t kMaxJwksKeys = 100;
inline constexpr std::size_t kMaxKidBytes = 256;

/// One verification key. The EVP_PKEY is shared and never changed after parsing, so copies are
/// cheap and threads may verify with it at once.
struct PublicKey {
    std::string kid;  ///< "" when the set names none
    JwsAlg alg = JwsAlg::rs256;
    std::shared_ptr<EVP_PKEY> key;
};

/// Immutable after parsing; thread-safe.
class KeySet {
public:
    /// The key a token's header picks: by `kid` when it has one, else the only key for `alg`.
    /// nullptr with `why` set when none or more than one fits, or the key is for another alg.
    [[nodiscard]] const PublicKey* select(JwsAlg alg,
                                          const std::string* kid,
                                          std::string& why) const;

    [[nodiscard]] const std::vector<PublicKey>& keys() const noexcept { return keys_; }
    /// How many entries of the set were not signature keys for RS256 or ES256.
    [[nodiscard]] std::size_t skipped() const noexcept { return skipped_; }

    /// invalid_argument naming keys[i].member; a set without one usable key is an error.
    [[nodiscard]] static Result<KeySet> parse(std::string_view json_text);
    /// Reads (at most kMaxJwksBytes) and parses a file; errors start with the path.
    [[nodiscard]] static Result<KeySet> load(const std::string& path);

private:
    std::vector<PublicKey> keys_;
    std::size_t skipped_ = 0;
};

}  // namespace scout::gateway
