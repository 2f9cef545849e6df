// gateway_jwt_test.cpp: JWT bearer tokens for scout-gateway callers: the base64url codec, the
// JWKS reader, the "jwt" section of the auth file, and the verifier against good tokens and
// every way a token can be wrong. Keys are made in-process, tokens signed with them.
#include <cstdint>
#include <ctime>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "auth.hpp"
#include "base64url.hpp"
#include "jwks.hpp"
#include "jwt.hpp"
#include "support/jwt_signer.hpp"
#include "support/temp_dir.hpp"

using namespace scout::gateway;
using scout::test::make_p256_key;
using scout::test::make_rsa_key;
using scout::test::Pkey;
using scout::test::public_jwk;
using scout::test::sign_jwt;
using Json = nlohmann::json;

using scout::test::kAudience;
using scout::test::kIssuer;

namespace {

constexpr std::int64_t kNow = 1'800'000'000;

/// One identity provider's keys, made once (RSA key generation takes a moment).
struct Idp {
    Pkey rsa = make_rsa_key();
    Pkey ec = make_p256_key();
    Pkey stranger = make_rsa_key();  // a key the gateway does not know
    Pkey stranger_ec = make_p256_key();

    Json jwks() const {
        return Json{{"keys", {public_jwk(rsa.get(), "r1"), public_jwk(ec.get(), "e1")}}};
    }
};

const Idp& idp() {
    static const Idp keys;
    return keys;
}

JwtRules rules() {
    JwtRules r;
    r.issuer = kIssuer;
    r.audience = kAudience;
    r.jwks_file = "jwks.json";
    return r;
}

JwtVerifier verifier(JwtRules r = rules(), const Json& jwks = idp().jwks()) {
    auto keys = KeySet::parse(jwks.dump());
    REQUIRE(keys.ok());
    return JwtVerifier(std::move(r), std::move(keys.value()));
}

Json claims() {
    return Json{{"iss", kIssuer},
                {"aud", kAudience},
                {"sub", "alice"},
                {"iat", kNow - 10},
                {"exp", kNow + 300},
                {"scope", "openid server:github server:teams"}};
}

Json rs_header(const std::string& kid = "r1") {
    Json h{{"alg", "RS256"}, {"typ", "JWT"}};
    if (!kid.empty()) {
        h["kid"] = kid;
    }
    return h;
}

Json es_header(const std::string& kid = "e1") {
    Json h{{"alg", "ES256"}, {"typ", "JWT"}};
    if (!kid.empty()) {
        h["kid"] = kid;
    }
    return h;
}

std::string rs_token(const Json& payload = claims(), const Json& header = rs_header()) {
    return sign_jwt(idp().rsa.get(), header, payload);
}

/// The refusal's message, or "" when the token was accepted.
std::string refusal(const JwtVerifier& v, const std::string& token, std::int64_t now = kNow) {
    auto r = v.verify(token, now);
    if (r.ok()) {
        return "";
    }
    CHECK(r.status().code() == scout::Errc::invalid_argument);
    return r.status().message();
}

std::string b64(const std::string& s) {
    return base64url_encode(s);
}

}  // namespace

TEST_CASE("base64url is strict: one spelling per byte string", "[gateway][jwt]") {
    for (const std::string s : {"", "f", "fo", "foo", "foob", "fooba", "foobar", "\xff\xfe\x00"}) {
        const std::string encoded = base64url_encode(s);
        CHECK(encoded.find('=') == std::string::npos);
        auto decoded = base64url_decode(encoded);
        REQUIRE(decoded);
        CHECK(*decoded == s);
    }
    CHECK(base64url_encode("\xfb\xff") == "-_8");
    CHECK_FALSE(base64url_decode("Zg=="));  // padding
    CHECK_FALSE(base64url_decode("Z"));     // 1 mod 4
    CHECK_FALSE(base64url_decode("Zh"));    // unused bits set: "Zg" is the one spelling of "f"
    CHECK_FALSE(base64url_decode("+/8"));   // the other alphabet
    CHECK_FALSE(base64url_decode("Zm 9v"));
}

TEST_CASE("good RS256 and ES256 tokens give the scope their claims say", "[gateway][jwt]") {
    const JwtVerifier v = verifier();
    auto rs = v.verify(rs_token(), kNow);
    REQUIRE(rs.ok());
    CHECK(rs->name == "jwt:alice");
    REQUIRE(rs->servers);
    CHECK(*rs->servers == std::vector<std::string>{"github", "teams"});
    CHECK(rs->environment.empty());
    CHECK_FALSE(rs->rate);

    Json es_claims = claims();
    es_claims["sub"] = "bob";
    es_claims["scope"] = "server:warehouse-dev";
    auto es = v.verify(sign_jwt(idp().ec.get(), es_header(), es_claims), kNow);
    REQUIRE(es.ok());
    CHECK(es->name == "jwt:bob");
    CHECK(*es->servers == std::vector<std::string>{"warehouse-dev"});

    // Without a kid, the only key of the token's type is used.
    CHECK(refusal(v, rs_token(claims(), rs_header(""))).empty());
    CHECK(refusal(v, sign_jwt(idp().ec.get(), es_header(""), claims())).empty());
    // "aud" may be a list; "typ" may be at+jwt or absent; exp and nbf have the clock skew.
    Json c = claims();
    c["aud"] = Json::array({"other", kAudience});
    c["nbf"] = kNow + 30;
    c["exp"] = kNow - 30;
    CHECK(
        refusal(v, rs_token(c, Json{{"alg", "RS256"}, {"kid", "r1"}, {"typ", "at+jwt"}})).empty());
    CHECK(refusal(v, rs_token(claims(), Json{{"alg", "RS256"}, {"kid", "r1"}})).empty());
}

TEST_CASE("an accepted token is remembered until it expires, a refused one never",
          "[gateway][jwt]") {
    const JwtVerifier v = verifier();
    const std::string token = rs_token();  // exp kNow + 300, skew 60
    for (const std::int64_t at : {kNow, kNow, kNow + 359}) {
        auto scope = v.verify(token, at);
        REQUIRE(scope.ok());
        CHECK(scope->name == "jwt:alice");
        CHECK(*scope->servers == std::vector<std::string>{"github", "teams"});
    }
    CHECK(refusal(v, token, kNow + 360) == "the token has expired");
    // Before its nbf a token is refused, and stays refused until then, however often it comes.
    Json early = claims();
    early["nbf"] = kNow + 100;
    const std::string later = rs_token(early);
    CHECK(refusal(v, later) == "the token is not valid yet (nbf)");
    CHECK(refusal(v, later) == "the token is not valid yet (nbf)");
    CHECK(refusal(v, later, kNow + 40).empty());
    const std::string forged = sign_jwt(idp().stranger.get(), rs_header(), claims());
    CHECK(refusal(v, forged) == "the signature does not verify");
    CHECK(refusal(v, forged) == "the signature does not verify");
}

TEST_CASE("JWT claims map to servers, environment, caller name and rate as configured",
          "[gateway][jwt]") {
    JwtRules r = rules();
    r.scopes_claim = "scp";
    r.server_scope_prefix = "mcp.";
    r.caller_prefix = "idp/";
    r.environment_claim = "env";
    r.rate = RateLimit{2, 4};
    const JwtVerifier v = verifier(r);
    Json c = claims();
    c.erase("scope");
    c["scp"] = Json::array({"mcp.teams", "mcp.teams", "server:github", "mcp."});
    c["env"] = "prod";
    auto scope = v.verify(rs_token(c), kNow);
    REQUIRE(scope.ok());
    CHECK(scope->name == "idp/alice");
    CHECK(*scope->servers == std::vector<std::string>{"teams"});
    CHECK(scope->environment == "prod");
    REQUIRE(scope->rate);
    CHECK(scope->rate->requests_per_second == 2);

    c["scp"] = Json::array({"mcp.*"});  // every server
    scope = v.verify(rs_token(c), kNow);
    REQUIRE(scope.ok());
    CHECK_FALSE(scope->servers);

    c.erase("scp");  // no scopes: authenticated, but no server
    scope = v.verify(rs_token(c), kNow);
    REQUIRE(scope.ok());
    CHECK(scope->servers == std::vector<std::string>{});

    c.erase("env");  // the environment claim is then required
    CHECK(refusal(v, rs_token(c)).find("environment claim") != std::string::npos);
    c["env"] = 7;
    CHECK_FALSE(refusal(v, rs_token(c)).empty());
    c["env"] = "dev";
    c["scp"] = 5;
    CHECK(refusal(v, rs_token(c)).find("\"scp\" is neither") != std::string::npos);
    c["scp"] = Json::array({"mcp.teams", 1});
    CHECK_FALSE(refusal(v, rs_token(c)).empty());

    JwtRules fixed = rules();
    fixed.environment = "staging";
    auto staged = verifier(fixed).verify(rs_token(), kNow);
    REQUIRE(staged.ok());
    CHECK(staged->environment == "staging");
}

TEST_CASE("tokens that are expired, early, for someone else or unsigned are refused",
          "[gateway][jwt]") {
    const JwtVerifier v = verifier();
    const auto with = [](const char* key, const Json& value) {
        Json c = claims();
        c[key] = value;
        return c;
    };
    const auto without = [](const char* key) {
        Json c = claims();
        c.erase(key);
        return c;
    };
    CHECK(refusal(v, rs_token(with("exp", kNow - 61))).find("expired") != std::string::npos);
    CHECK(refusal(v, rs_token(with("exp", kNow - 60))).find("expired") != std::string::npos);
    CHECK(refusal(v, rs_token(without("exp"))).find("\"exp\" is required") != std::string::npos);
    CHECK(refusal(v, rs_token(with("exp", "tomorrow"))).find("\"exp\" is not a number") !=
          std::string::npos);
    CHECK(refusal(v, rs_token(with("nbf", kNow + 61))).find("not valid yet") != std::string::npos);
    CHECK(refusal(v, rs_token(with("iat", kNow + 61))).find("issued in the future") !=
          std::string::npos);
    CHECK(refusal(v, rs_token(with("iss", "https://evil.example.test/"))).find("issuer") !=
          std::string::npos);
    CHECK(refusal(v, rs_token(without("iss"))).find("issuer") != std::string::npos);
    CHECK(refusal(v, rs_token(with("aud", "another-service"))).find("audience") !=
          std::string::npos);
    CHECK(refusal(v, rs_token(with("aud", Json::array({"a", "b"})))).find("audience") !=
          std::string::npos);
    CHECK(refusal(v, rs_token(with("aud", Json::array({kAudience, 3})))).find("audience") !=
          std::string::npos);
    CHECK(refusal(v, rs_token(without("aud"))).find("audience") != std::string::npos);
    CHECK(refusal(v, rs_token(without("sub"))).find("\"sub\"") != std::string::npos);
    CHECK(refusal(v, rs_token(with("sub", ""))).find("\"sub\"") != std::string::npos);
    CHECK(refusal(v, rs_token(with("sub", "a\nb"))).find("\"sub\"") != std::string::npos);
    // The same token is good a minute earlier: the refusals above are the claims, not the key.
    CHECK(refusal(v, rs_token(with("exp", kNow - 61)), kNow - 30).empty());
}

TEST_CASE("forged, tampered and confused-algorithm tokens are refused", "[gateway][jwt]") {
    const JwtVerifier v = verifier();
    const std::string good = rs_token();
    const std::size_t dot1 = good.find('.');
    const std::size_t dot2 = good.rfind('.');
    const std::string header_part = good.substr(0, dot1);
    const std::string payload_part = good.substr(dot1 + 1, dot2 - dot1 - 1);
    const std::string sig_part = good.substr(dot2 + 1);

    // Signed by a key the gateway does not know, under a known kid.
    CHECK(refusal(v, sign_jwt(idp().stranger.get(), rs_header(), claims())) ==
          "the signature does not verify");
    CHECK(refusal(v, sign_jwt(idp().stranger_ec.get(), es_header(), claims())) ==
          "the signature does not verify");
    // A payload swapped for another (a different subject and every server), signature kept.
    Json admin = claims();
    admin["sub"] = "admin";
    admin["scope"] = "server:*";
    CHECK(refusal(v, header_part + "." + b64(admin.dump()) + "." + sig_part) ==
          "the signature does not verify");
    // One signature bit flipped; the signature cut short.
    std::string flipped = *base64url_decode(sig_part);
    flipped[10] = static_cast<char>(flipped[10] ^ 1);
    CHECK(refusal(v, header_part + "." + payload_part + "." + b64(flipped)) ==
          "the signature does not verify");
    CHECK(refusal(v, header_part + "." + payload_part + "." + sig_part.substr(0, 40)) ==
          "the signature does not verify");

    // alg none, with and without a signature.
    const std::string none = b64(R"({"alg":"none","typ":"JWT"})") + "." + payload_part;
    CHECK(refusal(v, none + ".").find("alg 'none' is not accepted") != std::string::npos);
    CHECK(refusal(v, none + "." + sig_part).find("alg 'none' is not accepted") !=
          std::string::npos);
    // HS256 with the RSA public key (PEM, or the JWK's n) as the shared secret.
    const std::string hs_input =
        scout::test::signing_input(R"({"alg":"HS256","kid":"r1","typ":"JWT"})", claims().dump());
    for (const std::string& secret : {scout::test::public_pem(idp().rsa.get()),
                                      public_jwk(idp().rsa.get(), "")["n"].get<std::string>()}) {
        CHECK(refusal(v, hs_input + "." + b64(scout::test::hmac_sha256(secret, hs_input)))
                  .find("alg 'HS256' is not accepted") != std::string::npos);
    }
    for (const char* alg : {"RS512", "PS256", "ES384", "EdDSA", "rs256", ""}) {
        INFO(alg);
        CHECK(refusal(v, rs_token(claims(), Json{{"alg", alg}, {"kid", "r1"}}))
                  .find("is not accepted") != std::string::npos);
    }
    CHECK(refusal(v, rs_token(claims(), Json{{"kid", "r1"}})).find("no \"alg\"") !=
          std::string::npos);
    CHECK(refusal(v, rs_token(claims(), Json{{"alg", 256}, {"kid", "r1"}})).find("no \"alg\"") !=
          std::string::npos);

    // The algorithm must fit the key the kid names: an ES256 token naming the RSA key, and an
    // RS256 token naming the EC key, are refused before any signature check.
    CHECK(refusal(v, sign_jwt(idp().ec.get(), es_header("r1"), claims())) ==
          "the key 'r1' is for RS256, not ES256");
    CHECK(refusal(v, rs_token(claims(), rs_header("e1"))) ==
          "the key 'e1' is for ES256, not RS256");
    CHECK(refusal(v, rs_token(claims(), rs_header("r2"))) == "no key has kid 'r2'");
    CHECK(refusal(v, rs_token(claims(), Json{{"alg", "RS256"}, {"kid", 1}})).find("kid") !=
          std::string::npos);
    // A key hint in the header is never followed: an embedded jwk of the forger's key is ignored.
    Json hint = rs_header();
    hint["jwk"] = public_jwk(idp().stranger.get(), "r1");
    hint["jku"] = "https://evil.example.test/jwks.json";
    CHECK(refusal(v, sign_jwt(idp().stranger.get(), hint, claims())) ==
          "the signature does not verify");
    // Without a kid, two keys of the type leave the choice open: refused.
    Json two = idp().jwks();
    two["keys"].push_back(public_jwk(idp().stranger.get(), "r2"));
    CHECK(refusal(verifier(rules(), two), rs_token(claims(), rs_header(""))) ==
          "no kid and 2 RS256 keys to choose from");
    Json rsa_only{{"keys", {public_jwk(idp().rsa.get(), "r1")}}};
    CHECK(refusal(verifier(rules(), rsa_only), sign_jwt(idp().ec.get(), es_header(""), claims())) ==
          "no ES256 key");
    // Extensions and other token types.
    Json crit = rs_header();
    crit["crit"] = Json::array({"exp"});
    CHECK(refusal(v, rs_token(claims(), crit)).find("crit") != std::string::npos);
    Json typ = rs_header();
    typ["typ"] = "JWE";
    CHECK(refusal(v, rs_token(claims(), typ)).find("typ") != std::string::npos);
}

TEST_CASE("malformed, duplicated and oversize tokens are refused, never a crash",
          "[gateway][jwt]") {
    const JwtVerifier v = verifier();
    const std::string good = rs_token();
    const std::string input_rs = scout::test::signing_input(rs_header().dump(), claims().dump());
    for (const std::string& token :
         {std::string(""),
          std::string("."),
          std::string(".."),
          std::string("..."),
          std::string("a.b"),
          good + ".x",
          good.substr(0, good.find('.')) + "==." + good.substr(good.find('.') + 1),
          "!!!." + good.substr(good.find('.') + 1),
          b64("not json") + "." + good.substr(good.find('.') + 1),
          b64("[1,2]") + "." + good.substr(good.find('.') + 1),
          b64(R"({"alg":"RS256")") + "." + good.substr(good.find('.') + 1),
          input_rs + ".!!!",
          input_rs + ".AAA="}) {
        INFO(token);
        CHECK_FALSE(refusal(v, token).empty());
    }
    // Signed correctly, but the payload is not JSON, or not an object, or names a claim twice
    // (which one would count depends on the parser: refused).
    const auto signed_text = [](const std::string& header, const std::string& payload) {
        const std::string input = scout::test::signing_input(header, payload);
        return input + "." + b64(scout::test::sign_raw(idp().rsa.get(), input));
    };
    const std::string h = rs_header().dump();
    CHECK(refusal(v, signed_text(h, "{\"sub\":")).find("payload is not JSON") != std::string::npos);
    CHECK(refusal(v, signed_text(h, "[]")).find("payload is not a JSON object") !=
          std::string::npos);
    std::string twice = claims().dump();
    twice.insert(1, R"("sub":"admin",)");
    CHECK(refusal(v, signed_text(h, twice)) == "the payload names 'sub' twice");
    CHECK(refusal(v, signed_text(R"({"alg":"none","alg":"RS256","kid":"r1"})", claims().dump())) ==
          "the header names 'alg' twice");
    // Nested deeper than the bound.
    Json deep = claims();
    Json inner = 1;
    for (int i = 0; i < 20; ++i) {
        inner = Json::array({inner});
    }
    deep["x"] = inner;
    CHECK(refusal(v, signed_text(h, deep.dump())).find("nested deeper") != std::string::npos);
    // Oversize: refused by length before anything is decoded.
    Json big = claims();
    big["pad"] = std::string(kMaxJwtBytes, 'a');
    CHECK(refusal(v, rs_token(big)).find("over 8192 bytes") != std::string::npos);
    CHECK(refusal(v, std::string(kMaxJwtBytes + 1, '.')).find("over") != std::string::npos);
}

TEST_CASE("the JWKS reader keeps signature keys and refuses bad ones by path", "[gateway][jwt]") {
    const Idp& keys = idp();
    Json set = keys.jwks();
    set["keys"].push_back({{"kty", "RSA"}, {"use", "enc"}, {"n", "AQAB"}, {"e", "AQAB"}});
    set["keys"].push_back({{"kty", "oct"}, {"k", "c2VjcmV0"}, {"alg", "HS256"}, {"use", "sig"}});
    set["keys"].push_back({{"kty", "OKP"}, {"crv", "Ed25519"}, {"x", "AAAA"}});
    set["keys"].push_back({{"kty", "EC"}, {"crv", "P-384"}, {"x", "AAAA"}, {"y", "AAAA"}});
    // "k" is a private (symmetric) member: one such entry refuses the set.
    auto with_secret = KeySet::parse(set.dump());
    REQUIRE_FALSE(with_secret.ok());
    CHECK(with_secret.status().message().find("keys[3].k: a private key member") !=
          std::string::npos);
    set["keys"].erase(3);
    auto parsed = KeySet::parse(set.dump());
    REQUIRE(parsed.ok());
    CHECK(parsed->keys().size() == 2);
    CHECK(parsed->skipped() == 3);
    CHECK(parsed->keys()[0].kid == "r1");
    CHECK(parsed->keys()[0].alg == JwsAlg::rs256);
    CHECK(parsed->keys()[1].alg == JwsAlg::es256);

    Json rsa = public_jwk(keys.rsa.get(), "r1");
    Json ec = public_jwk(keys.ec.get(), "e1");
    const auto one = [](const Json& k) { return Json{{"keys", {k}}}.dump(); };
    const auto message = [](const std::string& text) {
        auto r = KeySet::parse(text);
        REQUIRE_FALSE(r.ok());
        CHECK(r.status().code() == scout::Errc::invalid_argument);
        return r.status().message();
    };
    Pkey small = make_rsa_key(1024);
    CHECK(message(one(public_jwk(small.get(), "s"))).find("keys[0].n: the modulus has 1024 bits") !=
          std::string::npos);
    Json priv = rsa;
    priv["d"] = "AQAB";
    CHECK(message(one(priv)).find("keys[0].d: a private key member") != std::string::npos);
    Json bad_e = rsa;
    bad_e["e"] = "AQ";  // 1
    CHECK(message(one(bad_e)).find("keys[0].e:") != std::string::npos);
    Json no_n = rsa;
    no_n.erase("n");
    CHECK(message(one(no_n)).find("keys[0].n: is required") != std::string::npos);
    Json padded = rsa;
    padded["n"] = padded["n"].get<std::string>() + "=";
    CHECK(message(one(padded)).find("keys[0].n: must be a non-empty unpadded base64url") !=
          std::string::npos);
    Json short_x = ec;
    short_x["x"] = b64(std::string(31, 'a'));
    CHECK(message(one(short_x)).find("keys[0].x: must be 32 bytes") != std::string::npos);
    Json off_curve = ec;
    off_curve["y"] = b64(std::string(32, '\x01'));
    CHECK(message(one(off_curve)).find("keys[0]: x, y is not") != std::string::npos);
    Json dup{{"keys", {rsa, public_jwk(keys.stranger.get(), "r1")}}};
    CHECK(message(dup.dump()).find("keys[1].kid: 'r1' is given twice") != std::string::npos);
    Json kid_type = rsa;
    kid_type["kid"] = 5;
    CHECK(message(one(kid_type)).find("keys[0].kid") != std::string::npos);
    CHECK(message(R"({"keys": []})").find("no RS256 (RSA) or ES256") != std::string::npos);
    CHECK(message(R"({"keys": {}})").find("keys: is required") != std::string::npos);
    CHECK(message("[]").find("not a JSON object") != std::string::npos);
    CHECK(message("{").find("jwks:") != std::string::npos);
    Json many{{"keys", Json::array()}};
    for (std::size_t i = 0; i <= kMaxJwksKeys; ++i) {
        many["keys"].push_back({{"kty", "oct"}});
    }
    CHECK(message(many.dump()).find("at most 100") != std::string::npos);
    CHECK(message(std::string(kMaxJwksBytes + 1, ' ')).find("over 1048576 bytes") !=
          std::string::npos);
}

TEST_CASE("the auth file's jwt section: keys checked by path, jwks_file beside the file",
          "[gateway][jwt]") {
    scout::test::TempDir dir;
    dir.write("jwks.json", idp().jwks().dump());
    const std::string auth = dir.write("auth.json", R"({
        "callers": [{"name": "admin", "token": "admin-token-0123456789"}],
        "jwt": {"issuer": "https://id.example.test/", "audience": "scout-gateway",
                "jwks_file": "jwks.json", "clock_skew_seconds": 30,
                "rate": {"requests_per_second": 3}}})");
    auto table = AuthTable::load(auth);
    REQUIRE(table.ok());
    CHECK(table->size() == 1);
    REQUIRE(table->jwt() != nullptr);
    CHECK(table->jwt()->rules().clock_skew_seconds == 30);
    CHECK(jwt_summary(*table) == ", JWTs from https://id.example.test/ (2 keys)");
    // The static token and a JWT, side by side; a JWT caller's name is recognised as one.
    auto admin = table->identify("Bearer admin-token-0123456789", kNow);
    REQUIRE(admin);
    CHECK(admin->name == "admin");
    std::string why;
    auto alice = table->identify("Bearer " + rs_token(), kNow, &why);
    REQUIRE(alice);
    CHECK(alice->name == "jwt:alice");
    REQUIRE(alice->rate);
    CHECK(alice->rate->requests_per_second == 3);
    CHECK(table->is_jwt_caller("jwt:alice"));
    CHECK_FALSE(table->is_jwt_caller("admin"));
    CHECK_FALSE(table->identify("Bearer " + rs_token(), kNow + 1000, &why));
    CHECK(why == "the token has expired");
    why.clear();
    CHECK_FALSE(table->identify("Bearer not-a-jwt-and-no-caller", kNow, &why));
    CHECK(why.empty());  // an unknown static token is not reported as a JWT refusal
    CHECK_FALSE(table->identify("Basic " + rs_token(), kNow));
    CHECK_FALSE(table->identify("Bearer " + std::string(kMaxJwtBytes + 1, 'a') + ".b.c", kNow));

    // Only JWT callers: "callers" may be left out.
    REQUIRE(
        AuthTable::parse(R"({"jwt": {"issuer": "i", "audience": "a", "jwks_file": "jwks.json"}})",
                         dir.file(""))
            .ok());

    const std::string base = dir.file("");
    const auto message = [&base](const std::string& jwt) {
        auto r = AuthTable::parse(R"({"jwt": )" + jwt + "}", base);
        REQUIRE_FALSE(r.ok());
        return r.status().message();
    };
    const std::string ok_keys = R"("issuer": "i", "audience": "a", "jwks_file": "jwks.json")";
    CHECK(message("{" + ok_keys + R"(, "issuer_url": "x"})") ==
          "jwt.issuer_url: unknown key (known: issuer, audience, jwks_file, jwks_url, "
          "refresh_seconds, fetch_timeout_seconds, clock_skew_seconds, scopes_claim, "
          "server_scope_prefix, caller_prefix, environment_claim, environment, rate)");
    CHECK(message("{" + ok_keys + R"(, "clock_skew_seconds": "60"})")
              .find("jwt.clock_skew_seconds: must be a whole number from 0 to 600 (got string)") !=
          std::string::npos);
    CHECK(
        message("{" + ok_keys + R"(, "clock_skew_seconds": 601})").find("jwt.clock_skew_seconds") !=
        std::string::npos);
    CHECK(message("{" + ok_keys + R"(, "scopes_claim": ["scp"]})")
              .find("jwt.scopes_claim: must be a string") != std::string::npos);
    CHECK(message("{" + ok_keys + R"(, "server_scope_prefix": ""})")
              .find("jwt.server_scope_prefix") != std::string::npos);
    CHECK(message("{" + ok_keys + R"(, "environment": "a", "environment_claim": "env"})")
              .find("not both") != std::string::npos);
    CHECK(message("{" + ok_keys + R"(, "rate": {"requests_per_second": 0}})")
              .find("jwt.rate.requests_per_second") != std::string::npos);
    CHECK(message("{" + ok_keys + R"(, "rate": {"rps": 1}})").find("jwt.rate.rps: unknown key") !=
          std::string::npos);
    CHECK(message("{" + ok_keys + R"(, "jwks_url": "https://id.example.test/jwks"})")
              .find("jwt.jwks_file: give exactly one of") != std::string::npos);
    CHECK(message(R"({"audience": "a", "jwks_file": "jwks.json"})") ==
          "jwt.issuer: is required (the \"iss\" every token must carry)");
    CHECK(
        message(R"({"issuer": "i", "jwks_file": "jwks.json"})").find("jwt.audience: is required") !=
        std::string::npos);
    CHECK(
        message(R"({"issuer": "i", "audience": "a"})").find("jwt.jwks_file: give exactly one of") !=
        std::string::npos);
    CHECK(message(R"({"issuer": 1, "audience": "a", "jwks_file": "jwks.json"})")
              .find("jwt.issuer: must be a string") != std::string::npos);
    CHECK(message("[]").find("jwt: must be an object") != std::string::npos);
    CHECK(message(R"({"issuer": "i", "audience": "a", "jwks_file": "missing.json"})")
              .find("jwt.jwks_file:") != std::string::npos);
    dir.write("bad.json", R"({"keys": [{"kty": "RSA", "n": "AQAB", "e": "AQAB"}]})");
    CHECK(message(R"({"issuer": "i", "audience": "a", "jwks_file": "bad.json"})")
              .find("jwt.jwks_file: " + dir.file("bad.json") + ": keys[0].n: the modulus has") !=
          std::string::npos);
    // A static caller may not take a name JWT callers are given.
    auto clash = AuthTable::parse(
        R"({"callers": [{"name": "jwt:alice", "token": "admin-token-0123456789"}],
            "jwt": {)" +
            ok_keys + "}}",
        base);
    REQUIRE_FALSE(clash.ok());
    CHECK(clash.status().message().find("callers[0].name: starts with jwt.caller_prefix") !=
          std::string::npos);
    CHECK_FALSE(AuthTable::parse(R"({"callers": []})").ok());  // still: no callers, no jwt
}
