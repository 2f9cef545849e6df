// gateway_jwt_http_test.cpp: JWT callers of the HTTP transport on 127.0.0.1: each sees only the
// servers its token grants in tool_search, hostile tokens get 401 with error="invalid_token"
// while legitimate callers keep being served, and each subject has its own rate limit.
#include <httplib.h>

#include <chrono>
#include <ctime>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "scout/catalog.hpp"

#include "auth.hpp"
#include "base64url.hpp"
#include "gateway.hpp"
#include "http_transport.hpp"
#include "support/jwt_signer.hpp"
#include "support/served_gateway.hpp"
#include "support/temp_dir.hpp"
#include "support/test_catalogs.hpp"

using namespace scout::gateway;
using Json = nlohmann::json;
using scout::test::Pkey;

using scout::test::kAudience;
using scout::test::kIssuer;
using scout::test::unix_now;

namespace {

constexpr const char* kAdminToken = "admin-token-0123456789";

Json claims(const std::string& sub, const std::string& scope) {
    return Json{{"iss", kIssuer},
                {"aud", kAudience},
                {"sub", sub},
                {"iat", unix_now()},
                {"exp", unix_now() + 600},
                {"scope", scope}};
}

/// A gateway over the small test catalog (github, teams, warehouse-*; no backends) behind an
/// HTTP transport whose auth file has one static caller and a jwt section.
struct JwtServed {
    scout::test::TempDir dir;
    Pkey rsa = scout::test::make_rsa_key();
    Pkey ec = scout::test::make_p256_key();
    std::unique_ptr<http_test::Served> served;

    explicit JwtServed(const std::string& jwt_extra = "") {
        auto created = scout::Catalog::create({}, nullptr);
        REQUIRE(created.ok());
        auto catalog = std::make_shared<scout::Catalog>(std::move(created.value()));
        REQUIRE(catalog->upsert_servers(scout::testing::small_catalog()).ok());
        REQUIRE(catalog->commit().ok());
        dir.write("jwks.json",
                  Json{{"keys",
                        {scout::test::public_jwk(rsa.get(), "r1"),
                         scout::test::public_jwk(ec.get(), "e1")}}}
                      .dump());
        auto auth = AuthTable::load(
            dir.write("auth.json",
                      std::string(R"({"callers": [{"name": "admin", "token": ")") + kAdminToken +
                          R"("}], "jwt": {"issuer": ")" + kIssuer + R"(", "audience": ")" +
                          kAudience + R"(", "jwks_file": "jwks.json")" + jwt_extra + "}}"));
        REQUIRE(auth.ok());
        served = std::make_unique<http_test::Served>(
            std::move(catalog), std::make_shared<const AuthTable>(std::move(auth.value())));
    }

    httplib::Client client() const {
        httplib::Client c = served->client();
        c.set_connection_timeout(5, 0);
        return c;
    }
};

const std::string kInitialize =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
    R"("capabilities":{},"clientInfo":{"name":"t","version":"1"}}})";

httplib::Headers bearer(const std::string& token, httplib::Headers extra = {}) {
    extra.emplace("Authorization", "Bearer " + token);
    extra.emplace("Accept", "application/json, text/event-stream");
    return extra;
}

/// initialize with `token`: the session id, or "" with the status in `status`.
std::string open_session(httplib::Client& c, const std::string& token, int* status = nullptr) {
    auto r = c.Post("/mcp", bearer(token), kInitialize, "application/json");
    REQUIRE(r);
    if (status != nullptr) {
        *status = r->status;
    }
    return r->status == 200 ? r->get_header_value("Mcp-Session-Id") : std::string();
}

/// The servers of the tools tool_search returns for `query`, in the session `session`.
std::vector<std::string> searched_servers(httplib::Client& c,
                                          const std::string& token,
                                          const std::string& session,
                                          const std::string& query) {
    const Json call{
        {"jsonrpc", "2.0"},
        {"id", 2},
        {"method", "tools/call"},
        {"params", {{"name", "tool_search"}, {"arguments", {{"query", query}, {"top_k", 20}}}}}};
    auto r = c.Post(
        "/mcp", bearer(token, {{"Mcp-Session-Id", session}}), call.dump(), "application/json");
    REQUIRE(r);
    INFO(r->body);
    REQUIRE(r->status == 200);
    const Json answer = Json::parse(r->body);
    REQUIRE(answer.contains("result"));
    const Json matches = Json::parse(answer["result"]["content"][0]["text"].get<std::string>());
    std::vector<std::string> servers;
    const Json& list = matches.is_array() ? matches : matches.value("matches", Json::array());
    for (const Json& m : list) {
        servers.push_back(m.value("server", ""));
    }
    std::sort(servers.begin(), servers.end());
    servers.erase(std::unique(servers.begin(), servers.end()), servers.end());
    return servers;
}

constexpr const char* kQuery = "open a pull request, send a chat message, run a warehouse query";

}  // namespace

TEST_CASE("over HTTP a JWT caller sees only its servers, and hostile JWTs get 401",
          "[gateway][jwt][http]") {
    JwtServed served;
    httplib::Client c = served.client();

    // The static caller sees every server.
    const std::string admin = open_session(c, kAdminToken);
    REQUIRE_FALSE(admin.empty());
    const std::vector<std::string> all = searched_servers(c, kAdminToken, admin, kQuery);
    CHECK(std::find(all.begin(), all.end(), "github") != all.end());
    CHECK(std::find(all.begin(), all.end(), "teams") != all.end());

    // RS256 alice may use github; ES256 bob may use teams and warehouse-dev.
    const std::string alice =
        scout::test::sign_jwt(served.rsa.get(),
                              {{"alg", "RS256"}, {"kid", "r1"}, {"typ", "JWT"}},
                              claims("alice", "openid server:github"));
    const std::string bob =
        scout::test::sign_jwt(served.ec.get(),
                              {{"alg", "ES256"}, {"kid", "e1"}},
                              claims("bob", "server:teams server:warehouse-dev"));
    const std::string alice_session = open_session(c, alice);
    REQUIRE_FALSE(alice_session.empty());
    CHECK(searched_servers(c, alice, alice_session, kQuery) == std::vector<std::string>{"github"});
    const std::string bob_session = open_session(c, bob);
    REQUIRE_FALSE(bob_session.empty());
    CHECK(searched_servers(c, bob, bob_session, kQuery) ==
          std::vector<std::string>{"teams", "warehouse-dev"});
    // Another subject's session is not found, even with a valid token.
    {
        const Json ping{{"jsonrpc", "2.0"}, {"id", 3}, {"method", "ping"}};
        auto r = c.Post("/mcp",
                        bearer(bob, {{"Mcp-Session-Id", alice_session}}),
                        ping.dump(),
                        "application/json");
        REQUIRE(r);
        CHECK(r->status == 404);
    }

    // Hostile tokens, each answered 401 invalid_token; alice is served between every two.
    const std::string good_input = alice.substr(0, alice.rfind('.'));
    const std::string payload =
        alice.substr(alice.find('.') + 1, good_input.size() - alice.find('.') - 1);
    Json expired = claims("alice", "server:*");
    expired["exp"] = unix_now() - 3600;
    Json admin_claims = claims("alice", "server:*");
    const std::string hs_input =
        scout::test::signing_input(R"({"alg":"HS256","kid":"r1"})", admin_claims.dump());
    Pkey forger = scout::test::make_rsa_key();
    const std::vector<std::pair<std::string, std::string>> hostile = {
        {"expired",
         scout::test::sign_jwt(served.rsa.get(), {{"alg", "RS256"}, {"kid", "r1"}}, expired)},
        {"alg none",
         base64url_encode(R"({"alg":"none"})") + "." + base64url_encode(admin_claims.dump()) + "."},
        {"HS256 with the public key",
         hs_input + "." +
             base64url_encode(
                 scout::test::hmac_sha256(scout::test::public_pem(served.rsa.get()), hs_input))},
        {"forged signature",
         scout::test::sign_jwt(forger.get(), {{"alg", "RS256"}, {"kid", "r1"}}, admin_claims)},
        {"tampered payload",
         alice.substr(0, alice.find('.')) + "." + base64url_encode(admin_claims.dump()) +
             alice.substr(alice.rfind('.'))},
        {"wrong audience",
         scout::test::sign_jwt(served.rsa.get(),
                               {{"alg", "RS256"}, {"kid", "r1"}},
                               [] {
                                   Json j = claims("alice", "server:*");
                                   j["aud"] = "another-service";
                                   return j;
                               }())},
        {"unknown kid",
         scout::test::sign_jwt(served.rsa.get(), {{"alg", "RS256"}, {"kid", "r9"}}, admin_claims)},
        {"malformed", "eyJhbGciOiJSUzI1NiJ9.%%%." + payload},
        {"oversize", alice + std::string(kMaxJwtBytes, 'A')},
    };
    for (const auto& [what, token] : hostile) {
        INFO(what);
        auto r = c.Post("/mcp", bearer(token), kInitialize, "application/json");
        REQUIRE(r);
        CHECK(r->status == 401);
        CHECK(r->get_header_value("WWW-Authenticate") ==
              "Bearer realm=\"scout-gateway\", error=\"invalid_token\"");
        CHECK(r->body.find(token.substr(0, 20)) == std::string::npos);
        CHECK(searched_servers(c, alice, alice_session, kQuery) ==
              std::vector<std::string>{"github"});
    }
    // Two Authorization fields, even two good ones, are refused as ambiguous.
    for (const std::string& second : {std::string(kAdminToken), alice}) {
        httplib::Headers two = bearer(alice);
        two.emplace("Authorization", "Bearer " + second);
        auto r = c.Post("/mcp", two, kInitialize, "application/json");
        REQUIRE(r);
        CHECK(r->status == 400);
        CHECK(r->get_header_value("WWW-Authenticate") ==
              "Bearer realm=\"scout-gateway\", error=\"invalid_request\"");
    }
    // Without a token: 401 without an error code (RFC 6750 section 3.1).
    auto none = c.Post("/mcp", kInitialize, "application/json");
    REQUIRE(none);
    CHECK(none->status == 401);
    CHECK(none->get_header_value("WWW-Authenticate") == "Bearer realm=\"scout-gateway\"");
    // The static caller was served throughout.
    CHECK(searched_servers(c, kAdminToken, admin, kQuery) == all);
}

TEST_CASE("each JWT subject has its own rate limit from the jwt section", "[gateway][jwt][http]") {
    JwtServed served(R"(, "rate": {"requests_per_second": 0.01, "burst": 2})");
    httplib::Client c = served.client();
    const auto token = [&served](const std::string& sub) {
        return scout::test::sign_jwt(
            served.rsa.get(), {{"alg", "RS256"}, {"kid", "r1"}}, claims(sub, "server:github"));
    };
    const std::string carol = token("carol");
    int status = 0;
    CHECK_FALSE(open_session(c, carol, &status).empty());
    CHECK_FALSE(open_session(c, carol, &status).empty());
    CHECK(open_session(c, carol, &status).empty());
    CHECK(status == 429);
    // A fresh token of the same subject shares the bucket; another subject has its own.
    CHECK(open_session(c, token("carol"), &status).empty());
    CHECK(status == 429);
    CHECK_FALSE(open_session(c, token("dave"), &status).empty());
    CHECK(status == 200);
    // The static caller has no rate of its own here and is not limited by theirs.
    CHECK_FALSE(open_session(c, kAdminToken, &status).empty());
}
