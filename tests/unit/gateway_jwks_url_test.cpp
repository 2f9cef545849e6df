// gateway_jwks_url_test.cpp: the "jwt" section's jwks_url against a small key server of the
// test's own on 127.0.0.1: the keys are fetched at start, a rotation is picked up on schedule or
// by a token naming the new kid (one refresh however many such tokens come), and a server that
// hangs, answers garbage, an error or 50 MB neither blocks nor crashes the gateway: start-up
// fails with the reason, a refresh keeps the last good keys and is counted.
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <ctime>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "scout/catalog.hpp"

#include "auth.hpp"
#include "gateway.hpp"
#include "http_transport.hpp"
#include "jwks_remote.hpp"
#include "jwt_config.hpp"
#include "support/jwt_signer.hpp"
#include "support/served_gateway.hpp"

using namespace scout::gateway;
using Json = nlohmann::json;
using scout::test::Pkey;

using scout::test::kAudience;
using scout::test::kIssuer;
using scout::test::unix_now;

namespace {

/// What the key server answers at /jwks.
enum class Answer { keys, hang, garbage, error, huge };

/// An identity provider's key endpoint on 127.0.0.1 whose answer the test switches.
class KeyServer {
public:
    KeyServer() {
        server_.Get("/jwks", [this](const httplib::Request&, httplib::Response& res) {
            ++hits_;
            std::unique_lock lock(mutex_);
            switch (answer_) {
                case Answer::keys:
                    res.set_content(jwks_, "application/json");
                    break;
                case Answer::hang:  // until the test ends
                    cv_.wait(lock, [this] { return released_; });
                    res.status = 503;
                    break;
                case Answer::garbage:
                    res.set_content("<html>not a key set</html>", "text/html");
                    break;
                case Answer::error:
                    res.status = 500;
                    break;
                case Answer::huge: {
                    constexpr std::size_t kHuge = std::size_t{50} << 20;
                    res.set_content_provider(
                        kHuge,
                        "application/json",
                        [](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
                            static const std::string chunk(64 << 10, ' ');
                            const std::size_t n = std::min(length, chunk.size());
                            (void)offset;
                            return sink.write(chunk.data(), n);
                        });
                    break;
                }
            }
        });
        port_ = server_.bind_to_any_port("127.0.0.1");
        REQUIRE(port_ > 0);
        thread_ = std::thread([this] { server_.listen_after_bind(); });
        while (!server_.is_running()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }
    ~KeyServer() {
        {
            std::lock_guard lock(mutex_);
            released_ = true;
        }
        cv_.notify_all();
        server_.stop();
        thread_.join();
    }
    KeyServer(const KeyServer&) = delete;
    KeyServer& operator=(const KeyServer&) = delete;

    void serve(Answer answer, const Json& jwks = nullptr) {
        std::lock_guard lock(mutex_);
        answer_ = answer;
        if (!jwks.is_null()) {
            jwks_ = jwks.dump();
        }
    }
    [[nodiscard]] int hits() const { return hits_.load(); }
    [[nodiscard]] std::string url() const {
        return "http://127.0.0.1:" + std::to_string(port_) + "/jwks";
    }

private:
    httplib::Server server_;
    int port_ = 0;
    std::thread thread_;
    std::mutex mutex_;
    std::condition_variable cv_;
    bool released_ = false;
    Answer answer_ = Answer::keys;
    std::string jwks_;
    std::atomic<int> hits_{0};
};

std::string auth_json(const std::string& url, const std::string& extra = "") {
    return Json{{"jwt",
                 Json::parse(R"({"issuer": ")" + std::string(kIssuer) + R"(", "audience": ")" +
                             kAudience + R"(", "jwks_url": ")" + url + "\"" + extra + "}")}}
        .dump();
}

std::string token(EVP_PKEY* key, const std::string& kid) {
    return scout::test::sign_jwt(key,
                                 {{"alg", "RS256"}, {"kid", kid}},
                                 Json{{"iss", kIssuer},
                                      {"aud", kAudience},
                                      {"sub", "alice"},
                                      {"exp", unix_now() + 600},
                                      {"scope", "server:*"}});
}

bool accepted(const AuthTable& table, const std::string& jwt) {
    return table.identify("Bearer " + jwt, unix_now()).has_value();
}

/// Waits (at most 20 s, a bound against a hang, not a speed check) until `done` holds.
template <typename F>
bool eventually(F done) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!done()) {
        if (std::chrono::steady_clock::now() > until) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
}

}  // namespace

TEST_CASE("jwks_url: the keys are fetched at start and a token signed with them is accepted",
          "[gateway][jwt][jwks_url]") {
    KeyServer server;
    Pkey rsa = scout::test::make_rsa_key();
    server.serve(Answer::keys, Json{{"keys", {scout::test::public_jwk(rsa.get(), "r1")}}});
    auto table = AuthTable::parse(auth_json(server.url()));
    REQUIRE(table.ok());
    CHECK(server.hits() == 1);
    CHECK(accepted(*table, token(rsa.get(), "r1")));
    CHECK(jwt_summary(*table).find("fetched from " + server.url()) != std::string::npos);
    REQUIRE(table->jwt()->remote() != nullptr);
    const std::string metrics = jwks_metrics(table->jwt()->remote()->counts());
    CHECK(metrics.find("scout_jwks_fetches_total{result=\"ok\"} 1\n") != std::string::npos);
    CHECK(metrics.find("scout_jwks_keys 1\n") != std::string::npos);
}

TEST_CASE("jwks_url: a rotation is picked up on schedule", "[gateway][jwt][jwks_url]") {
    KeyServer server;
    Pkey old_key = scout::test::make_rsa_key();
    Pkey new_key = scout::test::make_rsa_key();
    server.serve(Answer::keys, Json{{"keys", {scout::test::public_jwk(old_key.get(), "old")}}});
    auto table = AuthTable::parse(auth_json(server.url(), R"(, "refresh_seconds": 1)"));
    REQUIRE(table.ok());
    CHECK(accepted(*table, token(old_key.get(), "old")));
    server.serve(Answer::keys, Json{{"keys", {scout::test::public_jwk(new_key.get(), "new")}}});
    // No token until the schedule has fetched: no unknown-kid refresh helps.
    CHECK(eventually([&] { return table->jwt()->remote()->counts().fetched >= 2; }));
    CHECK(table->jwt()->remote()->counts().unknown_kid_refreshes == 0);
    CHECK(accepted(*table, token(new_key.get(), "new")));
    CHECK_FALSE(accepted(*table, token(old_key.get(), "old")));  // a key dropped is refused
}

TEST_CASE("jwks_url: tokens naming an unknown kid ask one refresh, however many come",
          "[gateway][jwt][jwks_url]") {
    KeyServer server;
    Pkey old_key = scout::test::make_rsa_key();
    Pkey new_key = scout::test::make_rsa_key();
    server.serve(Answer::keys, Json{{"keys", {scout::test::public_jwk(old_key.get(), "old")}}});
    auto table = AuthTable::parse(auth_json(server.url()));  // refreshed hourly
    REQUIRE(table.ok());
    server.serve(Answer::keys,
                 Json{{"keys",
                       {scout::test::public_jwk(old_key.get(), "old"),
                        scout::test::public_jwk(new_key.get(), "new")}}});
    const std::string rotated = token(new_key.get(), "new");
    for (int i = 0; i < 50; ++i) {
        (void)accepted(*table, rotated);
        (void)accepted(*table, token(new_key.get(), "never-published"));
    }
    CHECK(eventually([&] { return accepted(*table, rotated); }));
    CHECK(eventually([&] { return table->jwt()->remote()->counts().fetched == 2; }));
    // Still more unknown kids within the interval: nothing more is fetched.
    for (int i = 0; i < 50; ++i) {
        CHECK_FALSE(accepted(*table, token(new_key.get(), "never-published")));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    CHECK(server.hits() == 2);
    CHECK(table->jwt()->remote()->counts().unknown_kid_refreshes == 1);
    CHECK(accepted(*table, token(old_key.get(), "old")));
}

TEST_CASE("jwks_url: a start without a reachable key set fails, naming why",
          "[gateway][jwt][jwks_url]") {
    KeyServer server;
    const auto refused = [&](Answer answer, const std::string& why) {
        server.serve(answer);
        auto table = AuthTable::parse(auth_json(server.url(), R"(, "fetch_timeout_seconds": 1)"));
        REQUIRE_FALSE(table.ok());
        INFO(table.status().message());
        CHECK(table.status().message().rfind("jwt.jwks_url: " + server.url(), 0) == 0);
        CHECK(table.status().message().find(why) != std::string::npos);
    };
    SECTION("a server that never answers") {
        refused(Answer::hang, "no answer within 1000 ms");
    }
    SECTION("garbage") {
        refused(Answer::garbage, "JSON");
    }
    SECTION("an HTTP error") {
        refused(Answer::error, "HTTP status 500");
    }
    SECTION("50 MB") {
        refused(Answer::huge, "over 1048576 bytes");
    }
    SECTION("nothing listening") {
        auto table = AuthTable::parse(auth_json("http://127.0.0.1:1/jwks"));
        REQUIRE_FALSE(table.ok());
        CHECK(table.status().message().rfind("jwt.jwks_url: ", 0) == 0);
    }
}

TEST_CASE("jwks_url: a failed refresh keeps the last good keys and is counted",
          "[gateway][jwt][jwks_url]") {
    KeyServer server;
    Pkey rsa = scout::test::make_rsa_key();
    server.serve(Answer::keys, Json{{"keys", {scout::test::public_jwk(rsa.get(), "r1")}}});
    auto table = AuthTable::parse(
        auth_json(server.url(), R"(, "refresh_seconds": 1, "fetch_timeout_seconds": 1)"));
    REQUIRE(table.ok());
    const RemoteKeySet& remote = *table->jwt()->remote();
    std::uint64_t failed = 0;
    for (const Answer answer : {Answer::garbage, Answer::error, Answer::huge, Answer::hang}) {
        server.serve(answer);
        CHECK(eventually([&] { return remote.counts().failed > failed; }));
        failed = remote.counts().failed;
        // Checked while the refresh fails (or hangs): never blocked, the old key still serves.
        CHECK(accepted(*table, token(rsa.get(), "r1")));
        CHECK(remote.counts().keys == 1);
    }
    CHECK(jwks_metrics(remote.counts())
              .find("scout_jwks_fetches_total{result=\"failed\"} " + std::to_string(failed)) !=
          std::string::npos);
    server.serve(Answer::keys);
    CHECK(eventually([&] { return remote.counts().fetched >= 2; }));
}

TEST_CASE("jwks_url and its options are checked with the section", "[gateway][jwt][jwks_url]") {
    const auto rules = [](const std::string& extra) {
        return parse_jwt_rules(Json::parse(R"({"issuer": "i", "audience": "a")" + extra + "}"));
    };
    CHECK(rules(R"(, "jwks_url": "https://id.example.com/keys")").ok());
    CHECK(rules(R"(, "jwks_url": "http://localhost:8080/keys", "refresh_seconds": 60,
                   "fetch_timeout_seconds": 5)")
              .ok());
    const auto refusal = [&](const std::string& extra) {
        auto r = rules(extra);
        return r.ok() ? std::string("accepted") : r.status().message();
    };
    CHECK(refusal(R"(, "jwks_url": "http://id.example.com/keys")") ==
          "jwt.jwks_url: must be https:// (http:// only to a loopback host)");
    CHECK(refusal(R"(, "jwks_url": "ftp://id.example.com/keys")") ==
          "jwt.jwks_url: must be an http:// or https:// URL");
    CHECK(refusal(R"(, "jwks_url": "https://a/k", "jwks_file": "k.json")")
              .find("give exactly one of") != std::string::npos);
    CHECK(refusal("").find("give exactly one of") != std::string::npos);
    CHECK(refusal(R"(, "jwks_file": "k.json", "refresh_seconds": 60)") ==
          "jwt.refresh_seconds: applies only with \"jwks_url\" (a jwks_file is read again on "
          "SIGHUP)");
    CHECK(refusal(R"(, "jwks_url": "https://a/k", "refresh_seconds": 0)") ==
          "jwt.refresh_seconds: must be a whole number from 1 to 604800");
    CHECK(refusal(R"(, "jwks_url": "https://a/k", "fetch_timeout_seconds": "5")") ==
          "jwt.fetch_timeout_seconds: must be a whole number from 1 to 120 (got string)");
}

TEST_CASE("jwks_url: /metrics of the HTTP listener carries the key set's series",
          "[gateway][jwt][jwks_url]") {
    KeyServer server;
    Pkey rsa = scout::test::make_rsa_key();
    server.serve(Answer::keys, Json{{"keys", {scout::test::public_jwk(rsa.get(), "r1")}}});
    auto auth = AuthTable::parse(auth_json(server.url()));
    REQUIRE(auth.ok());
    auto catalog = scout::Catalog::create({}, nullptr);
    REQUIRE(catalog.ok());
    const http_test::Served served(std::make_shared<scout::Catalog>(std::move(catalog.value())),
                                   std::make_shared<const AuthTable>(std::move(auth.value())));
    httplib::Client c = served.client();
    auto r = c.Get("/metrics", {{"Authorization", "Bearer " + token(rsa.get(), "r1")}});
    REQUIRE(r);
    CHECK(r->status == 200);
    CHECK(r->body.find("scout_jwks_fetches_total{result=\"ok\"} 1\n") != std::string::npos);
    CHECK(r->body.find("scout_jwks_keys 1\n") != std::string::npos);
}

TEST_CASE("jwks_url: a reload with the same jwks_url keeps the running key set, fetching nothing",
          "[gateway][jwt][jwks_url]") {
    KeyServer server;
    Pkey rsa = scout::test::make_rsa_key();
    server.serve(Answer::keys, Json{{"keys", {scout::test::public_jwk(rsa.get(), "r1")}}});
    const std::string timeout = R"(, "fetch_timeout_seconds": 1)";
    auto first = AuthTable::parse(auth_json(server.url(), timeout));
    REQUIRE(first.ok());
    REQUIRE(server.hits() == 1);
    // The provider now hangs: a reload that fetched would wait for it, then fail.
    server.serve(Answer::hang);
    auto reloaded = AuthTable::parse(auth_json(server.url(), timeout), {}, fetch_jwks, &*first);
    REQUIRE(reloaded.ok());
    CHECK(server.hits() == 1);
    CHECK(reloaded->jwt()->remote() == first->jwt()->remote());
    CHECK(accepted(*reloaded, token(rsa.get(), "r1")));
    // Another refresh or URL is another key set: fetched (and here refused, the provider hangs).
    auto changed = AuthTable::parse(
        auth_json(server.url(), timeout + R"(, "refresh_seconds": 60)"), {}, fetch_jwks, &*first);
    CHECK_FALSE(changed.ok());
    CHECK(server.hits() == 2);
    // Without the running table, the reload fetches (and is refused).
    auto plain = AuthTable::parse(auth_json(server.url(), timeout), {}, fetch_jwks, nullptr);
    CHECK_FALSE(plain.ok());
}
