// remote_stream.hpp: the GET stream of a 2025-11-25 session with a remote Streamable HTTP server,
// on which the server sends messages that answer no request (list_changed above all). A thread
// holds a GET on the MCP endpoint open and hands the data of each SSE event to the session;
// while the session lives, a dropped stream is opened again after a backoff that doubles up to a
// bound (a stream quiet for kIdleTimeout is reopened at once, since a dead peer looks the same).
// A 405 means the server offers no such stream: logged once, not retried. A 404 means the server
// forgot the session. stop() aborts the socket, so it returns at once whatever the server does.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace httplib {
class Client;
}

namespace scout::gateway {

struct RemoteStreamSpec {
    std::string name;    ///< the backend's, for logs
    std::string origin;  ///< "http://host:port"
    std::string path;
    /// The configured headers with the session's Mcp-Session-Id and MCP-Protocol-Version.
    std::map<std::string, std::string> headers;
};

/// Bounds of a stream (tests shorten them).
struct RemoteStreamTimings {
    std::chrono::milliseconds connect_timeout{10000};
    /// A stream with no bytes for this long is reopened.
    std::chrono::milliseconds idle_timeout{120000};
    std::chrono::milliseconds initial_backoff{500};
    std::chrono::milliseconds max_backoff{30000};
};

class RemoteStream {
public:
    using MessageFn = std::function<void(const std::string& data)>;
    /// The server ended the session (404); the stream stops.
    using GoneFn = std::function<void(const std::string& why)>;

    /// Starts the thread, which opens the stream at once.
    RemoteStream(RemoteStreamSpec spec,
                 MessageFn on_message,
                 GoneFn on_gone,
                 RemoteStreamTimings timings = {});
    RemoteStream(const RemoteStream&) = delete;
    RemoteStream& operator=(const RemoteStream&) = delete;
    ~RemoteStream();

    /// Closes the stream and joins the thread. Idempotent; not from a callback.
    void stop();

private:
    enum class Outcome { stopped, not_offered, gone, refused, unreachable, dropped, idle };
    void run();
    /// One GET; `why` says how it ended, `opened_at` when its 200 came (for a drop).
    Outcome attempt(std::string& why, std::chrono::steady_clock::time_point& opened_at);
    bool wait(std::chrono::milliseconds d);  ///< false once stopping

    RemoteStreamSpec spec_;
    MessageFn on_message_;
    GoneFn on_gone_;
    RemoteStreamTimings timings_;
    std::string last_event_id_;  ///< the thread's only
    std::mutex mutex_;
    std::condition_variable cv_;
    bool stopping_ = false;
    httplib::Client* client_ = nullptr;  ///< the open GET, aborted by stop()
    std::thread thread_;
};

}  // namespace scout::gateway
