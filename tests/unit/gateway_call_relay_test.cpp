// gateway_call_relay_test.cpp: a backend's messages during a tool call reach that call's caller
// only (progress by token, logging and requests by the sole running call), with the caller's own
// token and level, and within the per-call bounds; unanswered requests end at the deadline.
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "call_relay.hpp"

using namespace scout::gateway;
using namespace std::chrono_literals;

namespace {

/// A caller that keeps what it is sent.
struct FakeCaller {
    std::mutex mutex;
    std::vector<Json> sent;
    std::shared_ptr<CallerAnswers> answers = std::make_shared<CallerAnswers>();

    CallerChannel channel(Json token, bool sampling = false, int severity = -1) {
        CallerChannel c;
        c.send = [this](const std::string& line) {
            std::lock_guard lock(mutex);
            sent.push_back(Json::parse(line));
            return true;
        };
        c.answers = answers;
        c.sampling = sampling;
        c.progress_token = std::move(token);
        c.log_severity = severity;
        return c;
    }
    std::vector<Json> received() {
        std::lock_guard lock(mutex);
        return sent;
    }
};

Message from_backend(const Json& body) {
    return classify(to_line(body));
}

auto far_deadline() {
    return std::chrono::steady_clock::now() + 30s;
}

}  // namespace

TEST_CASE("progress reaches only the caller whose token the backend names", "[gateway][relay]") {
    FakeCaller alice;
    FakeCaller bob;
    auto a = std::make_shared<CallRelay>(alice.channel("alice-token"), "srv", far_deadline());
    auto b = std::make_shared<CallRelay>(bob.channel(42), "srv", far_deadline());
    REQUIRE(a->backend_token() != b->backend_token());
    RelayRoutes routes;
    routes.add(a);
    routes.add(b);
    auto refused = [](const Json&) { FAIL("no reply expected"); };
    for (int i = 0; i < 3; ++i) {
        CHECK(route_to_call(routes,
                            from_backend(make_notification(
                                "notifications/progress",
                                Json{{"progressToken", a->backend_token()}, {"progress", i}})),
                            refused));
    }
    CHECK(route_to_call(routes,
                        from_backend(make_notification(
                            "notifications/progress",
                            Json{{"progressToken", b->backend_token()}, {"progress", 9}})),
                        refused));
    // A token no call carries is left to the session (not relayed to anyone).
    CHECK_FALSE(route_to_call(
        routes,
        from_backend(make_notification("notifications/progress",
                                       Json{{"progressToken", "unknown"}, {"progress", 1}})),
        refused));
    const auto to_alice = alice.received();
    const auto to_bob = bob.received();
    REQUIRE(to_alice.size() == 3);
    REQUIRE(to_bob.size() == 1);
    for (const Json& n : to_alice) {
        CHECK(n["params"]["progressToken"] == "alice-token");
    }
    CHECK(to_bob[0]["params"]["progressToken"] == 42);
    CHECK(to_bob[0]["params"]["progress"] == 9);
}

TEST_CASE("a flood of progress is cut at the per-call cap", "[gateway][relay]") {
    FakeCaller caller;
    CallRelay relay(caller.channel("t"), "srv", far_deadline());
    const std::size_t flood = kMaxRelayedProgress * 5;
    for (std::size_t i = 0; i < flood; ++i) {
        relay.progress(Json{{"progressToken", relay.backend_token()}, {"progress", i}});
    }
    CHECK(caller.received().size() == kMaxRelayedProgress);
    CHECK(relay.progress_dropped() == flood - kMaxRelayedProgress);
}

TEST_CASE("a caller without a progress token gets no progress", "[gateway][relay]") {
    FakeCaller caller;
    CallRelay relay(caller.channel(nullptr), "srv", far_deadline());
    relay.progress(Json{{"progressToken", relay.backend_token()}, {"progress", 1}});
    CHECK(caller.received().empty());
}

TEST_CASE("logging during a call follows the caller's level and names the server",
          "[gateway][relay]") {
    FakeCaller caller;
    auto relay = std::make_shared<CallRelay>(
        caller.channel(nullptr, false, log_severity("warning")), "srv", far_deadline());
    RelayRoutes routes;
    CHECK_FALSE(route_to_call(
        routes,
        from_backend(make_notification("notifications/message", Json{{"level", "error"}})),
        [](const Json&) {}));  // no call running: the session's usual path
    routes.add(relay);
    for (const char* level : {"info", "error", "emergency"}) {
        CHECK(route_to_call(routes,
                            from_backend(make_notification(
                                "notifications/message",
                                Json{{"level", level}, {"logger", "db"}, {"data", level}})),
                            [](const Json&) {}));
    }
    const auto got = caller.received();
    REQUIRE(got.size() == 2);
    CHECK(got[0]["params"]["level"] == "error");
    CHECK(got[0]["params"]["logger"] == "srv/db");
    CHECK(got[1]["params"]["level"] == "emergency");
}

TEST_CASE("with two calls running, logging reaches nobody and requests are refused",
          "[gateway][relay]") {
    FakeCaller alice;
    FakeCaller bob;
    auto a = std::make_shared<CallRelay>(
        alice.channel(nullptr, true, log_severity("debug")), "srv", far_deadline());
    auto b = std::make_shared<CallRelay>(
        bob.channel(nullptr, true, log_severity("debug")), "srv", far_deadline());
    RelayRoutes routes;
    routes.add(a);
    routes.add(b);
    CHECK(route_to_call(
        routes,
        from_backend(make_notification("notifications/message", Json{{"level", "error"}})),
        [](const Json&) {}));
    Json reply;
    CHECK(route_to_call(routes,
                        from_backend(make_request(7, "sampling/createMessage", Json::object())),
                        [&](const Json& r) { reply = r; }));
    CHECK(reply["id"] == 7);
    CHECK(reply["error"]["code"] == kMethodNotFound);
    CHECK(alice.received().empty());
    CHECK(bob.received().empty());
}

TEST_CASE("a caller without the capability has the backend's request refused", "[gateway][relay]") {
    FakeCaller caller;
    CallRelay relay(caller.channel(nullptr, /*sampling=*/false), "srv", far_deadline());
    Json reply;
    relay.ask(3, "sampling/createMessage", Json::object(), [&](const Json& r) { reply = r; });
    CHECK(reply["id"] == 3);
    CHECK(reply["error"]["code"] == kMethodNotFound);
    CHECK(reply["error"]["message"].get<std::string>().find("sampling") != std::string::npos);
    relay.ask(4, "elicitation/create", Json::object(), [&](const Json& r) { reply = r; });
    CHECK(reply["id"] == 4);
    CHECK(reply["error"]["code"] == kMethodNotFound);
    CHECK(caller.received().empty());
}

TEST_CASE("the caller's answer goes back to the backend under the backend's id",
          "[gateway][relay]") {
    FakeCaller caller;
    CallRelay relay(caller.channel(nullptr, true), "srv", far_deadline());
    std::mutex mutex;
    Json reply;
    relay.ask("b-1", "sampling/createMessage", Json{{"maxTokens", 5}}, [&](const Json& r) {
        std::lock_guard lock(mutex);
        reply = r;
    });
    Json asked;
    for (int i = 0; i < 500 && asked.is_null(); ++i) {  // the relay's thread sends it
        if (auto got = caller.received(); !got.empty()) {
            asked = got[0];
        } else {
            std::this_thread::sleep_for(10ms);
        }
    }
    REQUIRE(asked["method"] == "sampling/createMessage");
    CHECK(asked["params"]["maxTokens"] == 5);
    CHECK_FALSE(caller.answers->deliver("someone-else", make_result("x", Json::object())));
    CHECK(caller.answers->deliver(asked["id"], make_result(asked["id"], Json{{"model", "m"}})));
    relay.finish();  // joins the request's thread
    CHECK(reply["id"] == "b-1");
    CHECK(reply["result"]["model"] == "m");
}

TEST_CASE("a caller that never answers fails the request at the call's deadline",
          "[gateway][relay]") {
    FakeCaller caller;
    CallRelay relay(caller.channel(nullptr, true), "srv", std::chrono::steady_clock::now() + 200ms);
    Json reply;
    relay.ask(5, "sampling/createMessage", Json::object(), [&](const Json& r) { reply = r; });
    // The deadline, not finish(), ends the wait: the withdrawal reaches the caller first.
    for (int i = 0; i < 1000 && caller.received().size() < 2; ++i) {
        std::this_thread::sleep_for(10ms);
    }
    relay.finish();
    CHECK(reply["id"] == 5);
    CHECK(reply["error"]["code"] == kInternalError);
    CHECK(caller.answers->awaited() == 0);
    const auto got = caller.received();
    REQUIRE(got.size() == 2);  // the request, then its withdrawal
    CHECK(got[1]["method"] == "notifications/cancelled");
    CHECK(got[1]["params"]["requestId"] == got[0]["id"]);
}

TEST_CASE("the end of the call ends an open request at once", "[gateway][relay]") {
    FakeCaller caller;
    CallRelay relay(caller.channel(nullptr, true), "srv", far_deadline());
    Json reply;
    relay.ask(6, "sampling/createMessage", Json::object(), [&](const Json& r) { reply = r; });
    // The caller would never answer; finish() must not wait for the 30 s deadline. (No clock
    // assertion: a hang here is caught by the test's own timeout.)
    relay.finish();
    CHECK(reply["error"]["code"] == kInternalError);
    Json late;
    relay.ask(8, "sampling/createMessage", Json::object(), [&](const Json& r) { late = r; });
    CHECK(late["error"]["code"] == kInternalError);
}

TEST_CASE("a backend asking too many requests in one call is refused beyond the cap",
          "[gateway][relay]") {
    FakeCaller caller;
    CallRelay relay(caller.channel(nullptr, true), "srv", far_deadline());
    std::mutex mutex;
    std::vector<Json> replies;
    for (std::size_t i = 0; i < kMaxRelayedRequests + 3; ++i) {
        relay.ask(
            static_cast<int>(i), "sampling/createMessage", Json::object(), [&](const Json& r) {
                std::lock_guard lock(mutex);
                replies.push_back(r);
            });
    }
    {
        std::lock_guard lock(mutex);
        REQUIRE(replies.size() == 3);  // refused at once; the others wait for the caller
        for (const Json& r : replies) {
            CHECK(r["error"]["code"] == kServerBusy);
        }
    }
    relay.finish();
    CHECK(replies.size() == kMaxRelayedRequests + 3);
}

TEST_CASE("progress tokens and capabilities are read from the caller's messages",
          "[gateway][relay]") {
    CHECK(progress_token_of(from_backend(make_request(
              1, "tools/call", Json{{"name", "x"}, {"_meta", {{"progressToken", "p"}}}}))) == "p");
    CHECK(progress_token_of(from_backend(make_request(
              1, "tools/call", Json{{"name", "x"}, {"_meta", {{"progressToken", 3}}}}))) == 3);
    CHECK(progress_token_of(from_backend(make_request(
                                1, "tools/call", Json{{"_meta", {{"progressToken", 1.5}}}})))
              .is_null());
    CHECK(progress_token_of(from_backend(make_request(1, "tools/call", Json{{"name", "x"}})))
              .is_null());
    CHECK(declares_capability(Json{{"capabilities", {{"sampling", Json::object()}}}}, "sampling"));
    CHECK_FALSE(declares_capability(Json{{"capabilities", {{"sampling", true}}}}, "sampling"));
    CHECK_FALSE(declares_capability(Json::object(), "elicitation"));
    CHECK(log_severity("debug") == 0);
    CHECK(log_severity("emergency") == 7);
    CHECK(log_severity("loud") == -1);
}

TEST_CASE("malformed lines and responses are left to the session", "[gateway][relay]") {
    FakeCaller caller;
    auto relay = std::make_shared<CallRelay>(
        caller.channel("t", true, log_severity("debug")), "srv", far_deadline());
    RelayRoutes routes;
    routes.add(relay);
    auto no_reply = [](const Json&) { FAIL("no reply expected"); };
    for (const char* line :
         {"this is not json",
          "[1,2,3]",
          "{}",
          "\xff\xfe{",
          R"({"jsonrpc":"2.0","id":1,"result":{}})",
          R"({"jsonrpc":"2.0","method":"notifications/progress","params":7})",
          R"({"jsonrpc":"2.0","method":"notifications/message","params":"x"})"}) {
        CHECK_FALSE(route_to_call(routes, classify(line), no_reply));
    }
    CHECK(caller.received().empty());
}
