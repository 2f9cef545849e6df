// gateway_subscriptions_test.cpp: the registry of resource subscriptions the gateway passes
// through: one backend subscription per resource however many clients hold it, the per-client
// bound, a client's end, and the list a restarted backend is subscribed to again.
#include <algorithm>
#include <string>

#include <catch2/catch.hpp>

#include "resource_subscriptions.hpp"

using namespace scout::gateway;
using Added = ResourceSubscriptions::Added;
using Removed = ResourceSubscriptions::Removed;
using Resource = ResourceSubscriptions::Resource;

TEST_CASE("a resource held by several clients is subscribed upstream once", "[gateway]") {
    ResourceSubscriptions subs;
    const Resource r{"files", "file:///a"};
    CHECK(subs.add("s1", r) == Added::first);
    CHECK(subs.add("s2", r) == Added::shared);
    CHECK(subs.add("s1", r) == Added::held);
    auto holders = subs.holders(r);
    std::sort(holders.begin(), holders.end());
    CHECK(holders == std::vector<std::string>{"s1", "s2"});
    CHECK(subs.remove("s3", r) == Removed::not_held);
    CHECK(subs.remove("s1", r) == Removed::shared);
    CHECK(subs.remove("s1", r) == Removed::not_held);
    CHECK(subs.holders(r) == std::vector<std::string>{"s2"});
    CHECK(subs.remove("s2", r) == Removed::last);
    CHECK(subs.holders(r).empty());
    CHECK(subs.add("s2", r) == Added::first);  // a fresh upstream subscription
}

TEST_CASE("the same URI on two servers is two resources", "[gateway]") {
    ResourceSubscriptions subs;
    CHECK(subs.add(kStdioClient, {"a", "x://1"}) == Added::first);
    CHECK(subs.add(kStdioClient, {"b", "x://1"}) == Added::first);
    CHECK(subs.holders({"a", "x://1"}) == std::vector<std::string>{kStdioClient});
    CHECK(subs.remove(kStdioClient, {"a", "x://1"}) == Removed::last);
    CHECK(subs.holders({"b", "x://1"}).size() == 1);
}

TEST_CASE("a client holds at most its limit of subscriptions", "[gateway]") {
    ResourceSubscriptions subs(3);
    for (int i = 0; i < 3; ++i) {
        CHECK(subs.add("s1", {"a", "x://" + std::to_string(i)}) == Added::first);
    }
    CHECK(subs.add("s1", {"a", "x://3"}) == Added::too_many);
    CHECK(subs.holders({"a", "x://3"}).empty());
    CHECK(subs.count("s1") == 3);
    CHECK(subs.add("s1", {"a", "x://0"}) == Added::held);   // holding one again is no new one
    CHECK(subs.add("s2", {"a", "x://3"}) == Added::first);  // the bound is per client
    CHECK(subs.remove("s1", {"a", "x://0"}) == Removed::last);
    CHECK(subs.add("s1", {"a", "x://3"}) == Added::shared);
    CHECK(subs.count("s1") == 3);
}

TEST_CASE("a client's end releases what only it held", "[gateway]") {
    ResourceSubscriptions subs;
    CHECK(subs.add("s1", {"a", "x://only"}) == Added::first);
    CHECK(subs.add("s1", {"a", "x://both"}) == Added::first);
    CHECK(subs.add("s2", {"a", "x://both"}) == Added::shared);
    CHECK(subs.end_client("s1") == std::vector<Resource>{{"a", "x://only"}});
    CHECK(subs.count("s1") == 0);
    CHECK(subs.holders({"a", "x://both"}) == std::vector<std::string>{"s2"});
    CHECK(subs.end_client("s1").empty());
    CHECK(subs.end_client("s2") == std::vector<Resource>{{"a", "x://both"}});
    CHECK(subs.held_uris("a").empty());
}

TEST_CASE("a restarted backend is subscribed to what clients still hold", "[gateway]") {
    ResourceSubscriptions subs;
    CHECK(subs.add("s1", {"a", "x://1"}) == Added::first);
    CHECK(subs.add("s2", {"a", "x://1"}) == Added::shared);
    CHECK(subs.add("s2", {"a", "x://2"}) == Added::first);
    CHECK(subs.add("s2", {"ab", "x://3"}) == Added::first);
    CHECK(subs.add("s2", {"", "x://4"}) == Added::first);
    CHECK(subs.held_uris("a") == std::vector<std::string>{"x://1", "x://2"});
    CHECK(subs.held_uris("ab") == std::vector<std::string>{"x://3"});
    CHECK(subs.held_uris("b").empty());
    CHECK(subs.remove("s2", {"a", "x://2"}) == Removed::last);
    CHECK(subs.held_uris("a") == std::vector<std::string>{"x://1"});
}
