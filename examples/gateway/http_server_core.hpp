// http_server_core.hpp: the listener's internals its source files share (http_server.cpp,
// http_connection.cpp, http_messages.cpp): the server's state, a connection's interface, the
// server's side of an event stream and a Responder's state. Nothing outside the listener uses it.
#pragma once

#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>

#include "http_server.hpp"

namespace scout::gateway {

namespace net = boost::asio;
using tcp = net::ip::tcp;
using boost::system::error_code;

namespace server_detail {
/// ASCII case-insensitive equality, as header field names compare.
[[nodiscard]] bool iequals(std::string_view a, std::string_view b);
/// Closes `socket` once the client has read what was written to it (http_server.cpp).
void linger_close(std::shared_ptr<tcp::socket> socket, net::io_context& ioc);
}  // namespace server_detail

/// The server's side of an EventStream.
class EventStreamPump {
public:
    struct Taken {
        std::string data;
        bool finishing = false;
    };
    static bool attach(EventStream& s, std::function<void()> wake, std::size_t max_buffer) {
        std::lock_guard lock(s.mutex_);
        if (s.ended_) {
            return false;
        }
        s.wake_ = std::move(wake);
        s.max_buffer_ = max_buffer;
        return true;
    }
    static Taken take(EventStream& s) {
        std::lock_guard lock(s.mutex_);
        Taken t;
        t.data.reserve(s.queued_bytes_);
        for (const std::string& event : s.queued_) {
            t.data += event;
        }
        s.queued_.clear();
        s.queued_bytes_ = 0;
        s.wake_pending_ = false;
        t.finishing = s.finishing_;
        return t;
    }
    static bool finishing(const EventStream& s) {
        std::lock_guard lock(s.mutex_);
        return s.finishing_;
    }
    static void end(EventStream& s) {
        std::function<void()> on_end;
        {
            std::lock_guard lock(s.mutex_);
            if (s.ended_) {
                return;
            }
            s.ended_ = true;
            s.wake_ = nullptr;
            on_end = std::move(s.on_end_);
        }
        if (on_end) {
            on_end();
        }
    }
};

// ---------------------------------------------------------------------------------------------
// The server's shared state

class ConnectionBase;

struct HttpServer::Core : std::enable_shared_from_this<HttpServer::Core> {
    /// Errors are answered in plain text when the options name no error_response.
    explicit Core(HttpServerOptions o);

    void start_accepting();
    void on_accept(tcp::socket socket);
    [[nodiscard]] bool evict_one(const std::string* address);
    void shed(tcp::socket socket);
    void track(ConnectionBase* c);
    void untrack(ConnectionBase* c);
    void make_evictable(ConnectionBase* c);
    void make_busy(ConnectionBase* c);
    void stop_now();
    void note_freed(std::size_t bytes);

    HttpServerOptions options;
    std::optional<net::ssl::context> tls;
    std::string shed_text;  ///< the whole 503 answer of a connection over the caps

    // Touched on the I/O thread only.
    std::unordered_set<ConnectionBase*> all;
    std::list<ConnectionBase*> evictable;  ///< idle or still sending a head, oldest first
    std::unordered_map<std::string, std::size_t> per_address;
    std::size_t shedding = 0;
    std::size_t body_bytes_held = 0;  ///< charged beyond each body's free bytes
    std::size_t freed_since_trim = 0;
    bool stopping = false;

    std::atomic<std::uint64_t> accepted{0}, shed_count{0}, evicted{0}, timeouts{0}, too_large{0},
        bad_requests{0}, open{0};
    std::atomic<bool> stop_requested{false};
    int port = 0;

    // Declared last, destroyed first: the handlers it still holds (and the connections they
    // keep) are destroyed while the tables above are alive.
    net::io_context ioc{1};
    tcp::acceptor acceptor{ioc};
    net::steady_timer retry_timer{ioc};
    net::steady_timer trim_timer{ioc};
    net::steady_timer stop_timer{ioc};
};

/// One accepted connection, whatever its transport (plain TCP or TLS).
class ConnectionBase : public std::enable_shared_from_this<ConnectionBase> {
public:
    ConnectionBase(HttpServer::Core& core, std::string address)
        : core_(core), address_(std::move(address)) {}
    ConnectionBase(const ConnectionBase&) = delete;
    ConnectionBase& operator=(const ConnectionBase&) = delete;
    virtual ~ConnectionBase() = default;

    virtual void start() = 0;
    /// Closes at once (eviction, stop).
    virtual void close_now() = 0;
    /// The handler's answer (on the I/O thread).
    virtual void deliver(HttpResponse response) = 0;
    /// Writes what the event stream has queued (on the I/O thread).
    virtual void pump() = 0;
    /// Whether the connection carries an event stream that is finishing (flushed at stop).
    [[nodiscard]] virtual bool flushing() const = 0;

    [[nodiscard]] const std::string& address() const { return address_; }

    // Bookkeeping of HttpServer::Core.
    bool tracked = false;
    bool in_evictable = false;
    std::list<ConnectionBase*>::iterator evictable_at;

protected:
    HttpServer::Core& core_;
    std::string address_;
};

namespace server_detail {
/// A connection of `core` on an accepted socket, over TLS when the core has a TLS context, not
/// yet started (http_connection.cpp).
[[nodiscard]] std::shared_ptr<ConnectionBase> make_connection(HttpServer::Core& core,
                                                              std::string address,
                                                              tcp::socket socket);
}  // namespace server_detail

struct Responder::State {
    std::weak_ptr<HttpServer::Core> core;
    std::weak_ptr<ConnectionBase> connection;
    std::atomic<bool> used{false};
    std::function<void(HttpResponse&)> before;  ///< set before the Responder is shared

    State(std::weak_ptr<HttpServer::Core> c, std::weak_ptr<ConnectionBase> conn)
        : core(std::move(c)), connection(std::move(conn)) {}
    State(const State&) = delete;
    State& operator=(const State&) = delete;
    ~State() {
        if (!used.exchange(true)) {
            send(HttpResponse{500, {}, "text/plain", "Internal error: no answer\n", nullptr, true});
        }
    }

    void send(HttpResponse response) const {
        if (before) {
            before(response);
        }
        auto c = core.lock();
        if (!c) {
            if (response.stream) {
                EventStreamPump::end(*response.stream);
            }
            return;
        }
        net::post(c->ioc, [conn = connection, response = std::move(response)]() mutable {
            if (auto live = conn.lock()) {
                live->deliver(std::move(response));
            } else if (response.stream) {
                EventStreamPump::end(*response.stream);
            }
        });
    }
};

}  // namespace scout::gateway
