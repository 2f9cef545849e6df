// gateway.cpp: see gateway.hpp.
#include "gateway.hpp"

#include "log.hpp"

namespace scout::gateway {
namespace {

/// Calls in flight beyond this run on the reading thread, which pushes back on the client.
constexpr std::size_t kMaxWorkers = 32;

}  // namespace

Gateway::Gateway(Catalog& catalog,
                 std::vector<BackendSpec> backends,
                 mcp::Connector connector,
                 BackendTimings timings,
                 Writer write)
    : catalog_(catalog), meta_(std::move(connector)), write_(std::move(write)) {
    for (auto& spec : backends) {
        backends_.push_back(std::make_unique<Backend>(std::move(spec), catalog_, timings,
                                                      [this] { on_indexed(); }));
    }
}

Gateway::~Gateway() { shutdown(); }

void Gateway::start(std::chrono::milliseconds wait) {
    for (auto& b : backends_) {
        b->start();
    }
    const auto deadline = std::chrono::steady_clock::now() + wait;
    for (auto& b : backends_) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (!b->wait_first_attempt(std::max(left, std::chrono::milliseconds(0)))) {
            log_line("backend '" + b->name() + "' is still starting; serving without it for now");
        }
    }
    std::lock_guard lock(list_mutex_);
    last_list_ = meta_.list_tools(catalog_.searcher()).dump();
}

void Gateway::shutdown() {
    reap_workers(true);
    for (auto& b : backends_) {
        b->stop();
    }
}

void Gateway::reap_workers(bool all) {
    std::list<Worker> finished;
    {
        std::lock_guard lock(workers_mutex_);
        for (auto it = workers_.begin(); it != workers_.end();) {
            if (all || it->done->load()) {
                finished.splice(finished.end(), workers_, it++);
            } else {
                ++it;
            }
        }
    }
    for (auto& w : finished) {
        w.thread.join();
    }
}

void Gateway::on_indexed() {
    if (!client_initialized_.load()) {
        return;
    }
    // Clients re-fetch tools/list on this notification; send it only when the answer changed.
    std::string now = meta_.list_tools(catalog_.searcher()).dump();
    {
        std::lock_guard lock(list_mutex_);
        if (now == last_list_) {
            return;
        }
        last_list_ = std::move(now);
    }
    write_(to_line(make_notification("notifications/tools/list_changed")));
}

void Gateway::handle_line(const std::string& line) {
    reap_workers(false);
    Message m = classify(line);
    switch (m.kind) {
        case MessageKind::parse_error:
            write_(to_line(make_error(nullptr, kParseError, m.error)));
            return;
        case MessageKind::invalid:
            write_(to_line(make_error(m.id, kInvalidRequest, m.error)));
            return;
        case MessageKind::response:
            return;  // the gateway sends the client no requests
        case MessageKind::notification:
            if (m.method == "notifications/initialized") {
                client_initialized_.store(true);
            }
            return;  // notifications/cancelled and others need no answer
        case MessageKind::request:
            break;
    }
    if (m.method == "tools/call") {
        bool inline_call = false;
        {
            std::lock_guard lock(workers_mutex_);
            inline_call = workers_.size() >= kMaxWorkers;
            if (!inline_call) {
                auto done = std::make_shared<std::atomic<bool>>(false);
                workers_.push_back(Worker{std::thread([this, m, done] {
                                              write_(to_line(call_tool(m.id, m.body.value("params", Json::object()))));
                                              done->store(true);
                                          }),
                                          done});
            }
        }
        if (inline_call) {
            write_(to_line(call_tool(m.id, m.body.value("params", Json::object()))));
        }
        return;
    }
    write_(to_line(handle_request(m)));
}

Json Gateway::handle_request(const Message& m) {
    const Json params = m.body.value("params", Json::object());
    if (m.method == "initialize") {
        return make_result(m.id, initialize(params));
    }
    if (m.method == "ping") {
        return make_result(m.id, Json::object());
    }
    if (m.method == "tools/list") {
        return make_result(m.id, meta_.list_tools(catalog_.searcher()));
    }
    return make_error(m.id, kMethodNotFound, "Method not found: " + m.method);
}

Json Gateway::initialize(const Json& params) {
    std::string version = kSupportedProtocolVersions[0];
    if (auto asked = params.find("protocolVersion"); params.is_object() && asked != params.end()) {
        for (const char* v : kSupportedProtocolVersions) {
            if (*asked == v) {
                version = v;
            }
        }
    }
    return Json{{"protocolVersion", version},
                {"capabilities", {{"tools", {{"listChanged", true}}}}},
                {"serverInfo", {{"name", "scout-gateway"}, {"title", "scout MCP gateway"}, {"version", "0.1.0"}}},
                {"instructions",
                 "This gateway fronts many MCP servers. Use tool_search to find a tool, then "
                 "execute_tool with the exact tool_name and server_name it returns."}};
}

Json Gateway::call_tool(const Json& id, const Json& params) {
    auto name = params.find("name");
    if (!params.is_object() || name == params.end() || !name->is_string()) {
        return make_error(id, kInvalidParams, "tools/call needs params.name (a string)");
    }
    Json arguments = params.value("arguments", Json::object());
    auto executor = [this](const ToolKey& key, const Json& args) { return execute(key, args); };
    return make_result(id, meta_.call_tool(catalog_.searcher(), name->get<std::string>(), arguments, executor));
}

Result<Json> Gateway::execute(const ToolKey& key, const Json& arguments) {
    for (auto& b : backends_) {
        if (b->name() == key.server) {
            return b->call_tool(key.tool, arguments);
        }
    }
    return Status{Errc::not_found, "no backend named '" + key.server + "'"};
}

}  // namespace scout::gateway
