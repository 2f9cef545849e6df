// gateway.hpp: the router between one MCP client (on stdio) and the backends. Answers
// initialize, ping, tools/list (the meta-tools, or every tool with --expose all) and tools/call,
// routing executions to the backend that owns the tool.
#pragma once

#include <atomic>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "backend.hpp"
#include "json_rpc.hpp"
#include "scout/catalog.hpp"
#include "scout/mcp/meta_tools.hpp"

namespace scout::gateway {

/// Protocol versions the gateway speaks; a client asking for another gets the newest.
inline constexpr const char* kSupportedProtocolVersions[] = {"2025-11-25", "2025-06-18",
                                                             "2025-03-26", "2024-11-05"};

/// Thread-safe. `write` sends one JSON-RPC line to the client; it is called from several
/// threads (responses, list_changed notifications) and must serialize itself.
class Gateway {
public:
    using Writer = std::function<void(const std::string& line)>;

    Gateway(Catalog& catalog,
            std::vector<BackendSpec> backends,
            mcp::Connector connector,
            BackendTimings timings,
            Writer write);
    Gateway(const Gateway&) = delete;
    Gateway& operator=(const Gateway&) = delete;
    ~Gateway();

    /// Starts every backend and waits (at most `wait`) for each one's first start attempt, so
    /// the first tools/list already sees the indexed tools.
    void start(std::chrono::milliseconds wait);
    /// Handles one line from the client. tools/call runs on a worker thread; everything else
    /// is answered before this returns.
    void handle_line(const std::string& line);
    /// Waits for calls in flight, then stops the backends.
    void shutdown();

private:
    Json handle_request(const Message& m);
    Json initialize(const Json& params);
    Json call_tool(const Json& id, const Json& params);
    Result<Json> execute(const ToolKey& key, const Json& arguments);
    void on_indexed();
    void reap_workers(bool all);

    Catalog& catalog_;
    mcp::MetaTools meta_;
    Writer write_;
    std::vector<std::unique_ptr<Backend>> backends_;

    std::atomic<bool> client_initialized_{false};
    std::mutex list_mutex_;
    std::string last_list_;  ///< the tools/list answer last announced, to notify only on change

    struct Worker {
        std::thread thread;
        std::shared_ptr<std::atomic<bool>> done;
    };
    std::mutex workers_mutex_;
    std::list<Worker> workers_;
};

}  // namespace scout::gateway
