// http_transport_impl.hpp: HttpTransport::Impl, the state of the Streamable HTTP transport,
// shared by its source files: http_transport.cpp (start-up, auth reload, stop),
// http_transport_requests.cpp (admission and routing), http_transport_post.cpp (POSTed
// messages) and http_transport_sessions.cpp (sessions and event streams).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "call_pool.hpp"
#include "http_rules.hpp"
#include "http_transport.hpp"
#include "jwt_refusal_log.hpp"
#include "rate_limiter.hpp"

namespace scout::gateway {

class HttpTransport::Impl {
public:
    Impl(Gateway& gateway, HttpOptions options);

    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;
    ~Impl();

    Status bind();

    [[nodiscard]] int port() const { return server_.port(); }

    Status reload_auth(std::shared_ptr<const AuthTable> auth);

    void serve() { server_.serve(); }

    void stop();

private:
    /// How the gateway's list_changed listener reaches this transport while it exists.
    struct Link {
        std::mutex mutex;
        Impl* impl = nullptr;
    };
    static std::shared_ptr<Link> make_link(Impl* impl);

    struct Session {
        std::string id;
        std::string caller;  ///< who opened it (token name, or address without auth)
        std::mutex mutex;
        std::unordered_map<std::string, std::shared_ptr<CancelToken>> calls;  ///< by id text
        std::shared_ptr<EventStream> stream;  ///< the GET stream, while open
        bool closed = false;
        /// Its initialize declared sampling / elicitation: backends' requests are relayed to it.
        bool sampling = false;
        bool elicitation = false;
        /// Its answers to those requests (POSTed responses).
        std::shared_ptr<CallerAnswers> answers = std::make_shared<CallerAnswers>();
        std::chrono::steady_clock::time_point last_used = std::chrono::steady_clock::now();
    };

    /// One subscriptions/listen of a 2026-07-28 caller: the POST's response stays an event
    /// stream that carries the acknowledgement, tagged list changes and, at shutdown, the result.
    // nlohmann::json's default does not throw; the exception-escape check cannot see it.
    // NOLINTNEXTLINE(bugprone-exception-escape)
    struct Listen {
        Json id;
        std::shared_ptr<EventStream> stream;
    };

    /// The callers of one auth table and their scoped meta-tools, replaced whole on a reload.
    struct Callers {
        std::shared_ptr<const AuthTable> auth;
        std::map<std::string, std::shared_ptr<const mcp::MetaTools>> tools;
    };

    std::shared_ptr<const Callers> make_callers(std::shared_ptr<const AuthTable> auth) const;

    /// The fetched JWT key set's series, when the auth table has one (jwks_url).
    std::string key_set_metrics();

    std::shared_ptr<const Callers> current_callers();

    /// Who is calling: the caller's name and scope.
    struct Who {
        std::string name;  ///< the token's name ("" without auth)
        std::string key;   ///< whose share of sessions, streams and calls this request uses
        std::shared_ptr<const mcp::MetaTools> tools;
        std::optional<RateLimit> rate;  ///< the caller's own, or the gateway's default
    };

    HttpServerOptions server_options();

    /// On the server's I/O thread, before the body is read: everything that can be refused
    /// from the head alone is refused here, so no unwelcome body is ever read.
    std::optional<HttpResponse> check_head(const HttpRequest& head);

    /// On the I/O thread with a complete request: its work goes to the searches pool at once.
    void handle(HttpRequest request, const Responder& respond);

    void serve_request(const HttpRequest& req, const Responder& respond);

    std::optional<Who> authenticate(const HttpRequest& req, std::optional<HttpResponse>& refusal);

    bool is_stopping();

    /// The session a request names, or nullptr with the 400/404 to send.
    std::shared_ptr<Session> find_session(const HttpRequest& req,
                                          const Who& who,
                                          std::optional<HttpResponse>& refusal);

    std::optional<HttpResponse> check_protocol_version(const HttpRequest& req);

    /// A new session for `who`, or nullptr when every caller's sessions fill the table. A
    /// caller at its own cap gives up its least recently used session: one caller never ends
    /// another's.
    std::shared_ptr<Session> open_session(const Who& who);

    void close_session(Session& s);

    /// Runs `work` now when it cannot wait on a backend, else on the calls pool within the
    /// caller's share; the answer goes to `respond` either way.
    void run(const Message& m,
             const Who& who,
             const Responder& respond,
             std::function<HttpResponse()> work);

    void post(const HttpRequest& req, const Who& who, const Responder& respond);

    /// A request or notification of the stateless era: no session; every request carries its
    /// envelope and the standard headers that mirror it.
    void post_modern(const HttpRequest& req,
                     const std::shared_ptr<Message>& m,
                     const Who& who,
                     const AcceptedTypes& accept,
                     const Responder& respond);

    void cancel_modern(const Who& who, const Json& params);

    /// Takes one of the caller's event streams, or answers why not.
    std::optional<HttpResponse> take_stream(const Who& who, const Json& id);

    void give_back_stream(const std::string& key);

    /// subscriptions/listen: the response is an event stream until the client goes or the
    /// transport stops (then the subscription's result ends it).
    HttpResponse listen(const Message& m, const Who& who);

    static void cancel(Session& s, const Json& params);

    HttpResponse get(const HttpRequest& req, const Who& who);

    HttpResponse remove(const HttpRequest& req, const Who& who);

    void broadcast_list_changed();

    /// A resource update to the sessions subscribed to it, on their GET stream (dropped for a
    /// session without one, as list_changed is). A client reading slower than updates come
    /// loses the oldest unsent ones beyond HttpServerLimits::max_stream_buffer.
    void deliver(const std::vector<std::string>& ids, const std::string& line);

    Gateway& gateway_;
    HttpOptions options_;
    std::shared_ptr<Link> link_ = make_link(this);
    std::shared_ptr<const mcp::MetaTools> open_tools_;  ///< the scope without auth
    JwtRefusalLog jwt_refusals_;
    std::mutex callers_mutex_;                ///< guards callers_ alone
    std::shared_ptr<const Callers> callers_;  ///< null without an auth file
    std::mutex mutex_;  ///< guards everything below (before any Session::mutex)
    std::unordered_map<std::string, std::shared_ptr<Session>> sessions_;
    std::size_t open_streams_ = 0;
    std::unordered_map<std::string, std::size_t> streams_by_caller_;
    std::unordered_map<std::string, std::size_t> calls_by_caller_;
    bool stopping_ = false;
    /// The stateless era's calls in flight (caller and id) and open subscriptions.
    std::unordered_map<std::string, std::shared_ptr<CancelToken>> modern_calls_;
    std::map<std::uint64_t, std::shared_ptr<Listen>> listens_;
    std::uint64_t listen_count_ = 0;
    std::atomic<std::uint64_t> dropped_updates_{0};
    RateLimiter rates_;
    CallPool searches_;  ///< searches, listings, session requests: never wait on a backend
    CallPool calls_;     ///< requests that may wait on a backend
    // Last: destroyed first, while the streams' end callbacks can still reach the above.
    HttpServer server_;
};

}  // namespace scout::gateway
