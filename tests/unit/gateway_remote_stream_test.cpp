// gateway_remote_stream_test.cpp: the GET stream of a remote backend: the incremental SSE reader
// (bytes cut anywhere, its bounds) and RemoteStream against small servers on 127.0.0.1 that
// refuse the stream, forget the session, drop it, flood it, or hold it open and never send.
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "remote_stream.hpp"
#include "sse_reader.hpp"

using namespace scout::gateway;
using namespace std::chrono_literals;

namespace {

std::vector<std::string> feed_all(SseReader& reader, std::string_view bytes, std::size_t step) {
    std::vector<std::string> events;
    for (std::size_t i = 0; i < bytes.size(); i += step) {
        REQUIRE(reader.feed(bytes.substr(i, step),
                            [&](std::string data) { events.push_back(std::move(data)); }));
    }
    return events;
}

/// An httplib server on 127.0.0.1 (a free port) on its own thread.
class LoopbackServer {
public:
    explicit LoopbackServer(const std::function<void(httplib::Server&)>& routes) {
        routes(server_);
        port_ = server_.bind_to_any_port("127.0.0.1");
        thread_ = std::thread([this] { server_.listen_after_bind(); });
        while (!server_.is_running()) {
            std::this_thread::sleep_for(1ms);
        }
    }
    ~LoopbackServer() {
        server_.stop();
        thread_.join();
    }
    [[nodiscard]] RemoteStreamSpec spec() const {
        return {"test",
                "http://127.0.0.1:" + std::to_string(port_),
                "/mcp",
                {{"Mcp-Session-Id", "s1"}}};
    }

private:
    httplib::Server server_;
    int port_ = 0;
    std::thread thread_;
};

RemoteStreamTimings quick() {
    RemoteStreamTimings t;
    t.connect_timeout = 2000ms;
    t.idle_timeout = 5000ms;
    t.initial_backoff = 20ms;
    t.max_backoff = 100ms;
    return t;
}

template <typename Predicate>
bool eventually(Predicate p, std::chrono::milliseconds within = 5000ms) {
    const auto deadline = std::chrono::steady_clock::now() + within;
    while (std::chrono::steady_clock::now() < deadline) {
        if (p()) {
            return true;
        }
        std::this_thread::sleep_for(10ms);
    }
    return p();
}

/// Collects what a RemoteStream reports, from its thread.
struct Seen {
    std::mutex mutex;
    std::vector<std::string> messages;
    std::vector<std::string> gone;
    std::size_t count() {
        std::lock_guard lock(mutex);
        return messages.size();
    }
};

RemoteStream open_stream(const LoopbackServer& server, Seen& seen) {
    return RemoteStream(
        server.spec(),
        [&seen](const std::string& data) {
            std::lock_guard lock(seen.mutex);
            seen.messages.push_back(data);
        },
        [&seen](const std::string& why) {
            std::lock_guard lock(seen.mutex);
            seen.gone.push_back(why);
        },
        quick());
}

}  // namespace

TEST_CASE("the SSE reader takes a stream cut at any byte", "[gateway][http]") {
    const std::string stream =
        ": keep-alive\r\nid: 1\r\ndata: {\"a\":1}\r\n\r\nevent: message\nid: 2\ndata: x\ndata: "
        "y\n\n"
        "data:z\r\rretry: 10\n\ndata: open";
    for (std::size_t step = 1; step <= stream.size(); ++step) {
        SseReader reader;
        const auto events = feed_all(reader, stream, step);
        REQUIRE(events.size() == 3);
        CHECK(events[0] == "{\"a\":1}");
        CHECK(events[1] == "x\ny");
        CHECK(events[2] == "z");
        CHECK(reader.last_event_id() == "2");
    }
}

TEST_CASE("the SSE reader refuses a line or an event over its bounds", "[gateway][http]") {
    SseReader::Limits limits;
    limits.max_line = 16;
    limits.max_event = 24;
    {
        SseReader reader(limits);
        CHECK(reader.feed("data: 0123456789", [](std::string) {}));
        CHECK_FALSE(reader.feed("abc", [](std::string) {}));  // the line grows past 16
        CHECK_FALSE(reader.error().empty());
        CHECK_FALSE(reader.feed("\n\n", [](std::string) {}));  // nothing more is taken
    }
    {
        SseReader reader(limits);
        std::size_t events = 0;
        CHECK(reader.feed("data: 0123456789\ndata: 0123456789\n", [&](std::string) { ++events; }));
        CHECK_FALSE(reader.feed("data: 0123\n\n", [&](std::string) { ++events; }));
        CHECK(events == 0);
    }
}

TEST_CASE("a remote GET stream delivers events and stops at once on a server that never closes",
          "[gateway][http]") {
    std::atomic<bool> done{false};
    std::atomic<int> gets{0};
    std::string session;
    LoopbackServer server([&](httplib::Server& s) {
        s.Get("/mcp", [&](const httplib::Request& req, httplib::Response& res) {
            session = req.get_header_value("Mcp-Session-Id");
            ++gets;
            res.set_chunked_content_provider(
                "text/event-stream",
                [&, sent = false](std::size_t, httplib::DataSink& sink) mutable {
                    if (!sent) {
                        sent = true;
                        const std::string events =
                            "data: {\"jsonrpc\":\"2.0\",\"method\":\"one\"}\n\ndata: two\n\n";
                        return sink.write(events.data(), events.size());
                    }
                    std::this_thread::sleep_for(20ms);  // holds the stream open, silent
                    return !done.load();
                });
        });
    });
    Seen seen;
    {
        RemoteStream stream = open_stream(server, seen);
        REQUIRE(eventually([&] { return seen.count() == 2; }));
        const auto started = std::chrono::steady_clock::now();
        stream.stop();
        CHECK(std::chrono::steady_clock::now() - started < 1s);
    }
    done = true;
    CHECK(seen.messages[0] == "{\"jsonrpc\":\"2.0\",\"method\":\"one\"}");
    CHECK(seen.messages[1] == "two");
    CHECK(gets.load() == 1);
    CHECK(session == "s1");
    CHECK(seen.gone.empty());
}

TEST_CASE("a remote GET stream answered 405 is not asked for again", "[gateway][http]") {
    std::atomic<int> gets{0};
    LoopbackServer server([&](httplib::Server& s) {
        s.Get("/mcp", [&](const httplib::Request&, httplib::Response& res) {
            ++gets;
            res.status = 405;
        });
    });
    Seen seen;
    RemoteStream stream = open_stream(server, seen);
    REQUIRE(eventually([&] { return gets.load() == 1; }));
    std::this_thread::sleep_for(300ms);  // several backoffs of quick()
    CHECK(gets.load() == 1);
    CHECK(seen.gone.empty());
}

TEST_CASE("a remote GET stream answered 404 reports the session gone", "[gateway][http]") {
    LoopbackServer server([&](httplib::Server& s) {
        s.Get("/mcp", [&](const httplib::Request&, httplib::Response& res) { res.status = 404; });
    });
    Seen seen;
    RemoteStream stream = open_stream(server, seen);
    REQUIRE(eventually([&] {
        std::lock_guard lock(seen.mutex);
        return seen.gone.size() == 1;
    }));
}

TEST_CASE("a dropped or flooding remote GET stream is opened again after a backoff",
          "[gateway][http]") {
    std::atomic<int> gets{0};
    LoopbackServer server([&](httplib::Server& s) {
        s.Get("/mcp", [&](const httplib::Request&, httplib::Response& res) {
            const int n = ++gets;
            if (n == 1) {  // ends the stream after one event
                res.set_content("data: first\n\n", "text/event-stream");
            } else if (n == 2) {  // one line without end, longer than any bound
                res.set_chunked_content_provider("text/event-stream",
                                                 [](std::size_t, httplib::DataSink& sink) {
                                                     const std::string junk(64 * 1024, 'x');
                                                     return sink.write(junk.data(), junk.size());
                                                 });
            } else if (n == 3) {
                res.status = 503;
            } else {
                res.set_content("data: again\n\n", "text/event-stream");
            }
        });
    });
    Seen seen;
    RemoteStream stream = open_stream(server, seen);
    REQUIRE(eventually(
        [&] {
            std::lock_guard lock(seen.mutex);
            return std::find(seen.messages.begin(), seen.messages.end(), "again") !=
                   seen.messages.end();
        },
        15000ms));
    stream.stop();
    CHECK(seen.messages.front() == "first");
    CHECK(gets.load() >= 4);
    CHECK(seen.gone.empty());
}

TEST_CASE("a remote GET stream silent past the idle timeout is opened again", "[gateway][http]") {
    std::atomic<bool> done{false};
    std::atomic<int> gets{0};
    LoopbackServer server([&](httplib::Server& s) {
        s.Get("/mcp", [&](const httplib::Request&, httplib::Response& res) {
            ++gets;
            res.set_chunked_content_provider("text/event-stream",
                                             [&](std::size_t, httplib::DataSink& sink) {
                                                 if (!sink.is_writable()) {
                                                     return false;
                                                 }
                                                 std::this_thread::sleep_for(20ms);  // open, silent
                                                 return !done.load();
                                             });
        });
    });
    Seen seen;
    RemoteStreamTimings timings = quick();
    timings.idle_timeout = 300ms;
    timings.initial_backoff = 5000ms;  // an idle stream is reopened at once, not after this
    {
        RemoteStream stream(
            server.spec(), [](const std::string&) {}, [](const std::string&) {}, timings);
        CHECK(eventually([&] { return gets.load() >= 3; }, 3000ms));
    }
    done = true;
}
