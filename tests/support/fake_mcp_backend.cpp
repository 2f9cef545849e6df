// fake_mcp_backend.cpp: a deliberately misbehaving MCP stdio server, the backend of the gateway
// fault tests. It speaks just enough MCP (initialize, tools/list, tools/call) and misbehaves on
// request:
//   --log FILE               append one line per message received ("<method> <id or requestId>")
//   --hang-at METHOD         never answer initialize or tools/list
//   --stop-reading           after the first tools/list, never read stdin again
//   --ignore-sigterm         survive SIGTERM (the gateway must fall back to SIGKILL)
//   --flood-list-changed N   after the first tools/list, send N notifications/tools/list_changed
//   --garbage                put malformed lines before every answer
//   --deep-schema            list one extra tool whose inputSchema is nested 100000 levels deep
//   --big-annotation         list one extra tool whose annotations take 1.5 MB
//   --endless-pages BYTES    tools/list never ends: every page has nextCursor and one tool
//                            whose description takes BYTES
//   --echo-delay-ms N        answer echo only after N ms (a call still in flight a while)
//   --helper-holding-stdout  start a helper process that keeps stdout open after this one exits
//                            (its pid goes to the log as "helper <pid>")
// Tools: echo {text}, hang (never answers), deep {depth} (a result nested that deep), scalar (a
// result that is not an object), die (half an answer, then exit), big {bytes} (a long text).
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

namespace {

using Json = nlohmann::json;

struct Options {
    std::string log;
    std::string hang_at;
    bool stop_reading = false;
    long flood = 0;
    bool garbage = false;
    bool deep_schema = false;
    bool big_annotation = false;
    bool helper = false;
    long endless_pages = 0;
    bool logging = false;  ///< advertise logging; answer logging/setLevel with two messages
    long echo_delay_ms = 0;
};

std::mutex out_mutex;

void write_all(const std::string& data) {
    std::lock_guard lock(out_mutex);
    std::size_t off = 0;
    while (off < data.size()) {
        const ssize_t n = ::write(STDOUT_FILENO, data.data() + off, data.size() - off);
        if (n <= 0) {
            std::_Exit(0);  // the gateway is gone
        }
        off += static_cast<std::size_t>(n);
    }
}

void send(const Json& message) {
    write_all(message.dump() + "\n");
}

std::string nested(std::size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
}

void log_message(const Options& o, const Json& m) {
    if (o.log.empty()) {
        return;
    }
    std::string line = m.value("method", std::string("response"));
    if (m.contains("id")) {
        line.append(" ").append(m["id"].dump());
    }
    if (auto p = m.find("params"); p != m.end() && p->is_object() && p->contains("requestId")) {
        line.append(" ").append((*p)["requestId"].dump());
        line.append(" ").append(p->value("reason", std::string()));
    }
    std::ofstream(o.log, std::ios::app) << line << "\n";
}

void send_garbage() {
    write_all("this is not json\n");
    write_all("\xff\xfe{\n");
    write_all("[1,2,3]\n");
    write_all("{}\n");
    write_all("\r\n");
    write_all(R"({"jsonrpc":"2.0","id":987654321,"result":{}})"
              "\n");
    write_all(R"({"jsonrpc":"2.0","id":"no-such-request","result":{}})"
              "\n");
    write_all(R"({"jsonrpc":"2.0","method":"notifications/message","params":"not an object"})"
              "\n");
    write_all(R"({"jsonrpc":"2.0","id":4242,"method":"sampling/createMessage","params":{}})"
              "\n");
    write_all(nested(200000) + "\n");
    write_all(std::string(1 << 20, 'x') + "\n");
}

Json tool(const std::string& name, const std::string& description) {
    return Json{
        {"name", name},
        {"description", description},
        {"inputSchema", {{"type", "object"}, {"properties", {{"text", {{"type", "string"}}}}}}}};
}

std::string tools_list_line(const Options& o, const Json& id) {
    Json tools = Json::array({tool("echo", "Echo the given text back"),
                              tool("hang", "Never answer"),
                              tool("deep", "Answer with a deeply nested result"),
                              tool("scalar", "Answer with a result that is not an object"),
                              tool("die", "Exit in the middle of the answer"),
                              tool("big", "Answer with a long text")});
    if (o.big_annotation) {
        Json t = tool("big_annotation_tool", "A tool with an oversized annotation");
        t["annotations"] = Json{{"title", std::string(1536 * 1024, 'a')}};
        tools.push_back(std::move(t));
    }
    std::string line = Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", {{"tools", tools}}}}.dump();
    if (o.deep_schema) {
        // Spliced in as text: dumping a value this deep would overflow this process's stack too.
        const std::string deep = R"({"name":"deep_schema_tool","description":"Nested too deep",)"
                                 R"("inputSchema":{"type":"object","x":)" +
                                 nested(100000) + "}},";
        line.insert(line.find("[{") + 1, deep);
    }
    return line + "\n";
}

void call(const Options& o, const Json& id, const Json& params) {
    const std::string name = params.value("name", std::string());
    const Json args = params.value("arguments", Json::object());
    auto text_result = [&](const std::string& text) {
        send(Json{{"jsonrpc", "2.0"},
                  {"id", id},
                  {"result", {{"content", Json::array({{{"type", "text"}, {"text", text}}})}}}});
    };
    if (name == "echo") {
        std::this_thread::sleep_for(std::chrono::milliseconds(o.echo_delay_ms));
        const Json text = args.is_object() ? args.value("text", Json("")) : Json("");
        text_result("echo: " + (text.is_string() ? text.get<std::string>() : text.dump()));
    } else if (name == "hang") {
        return;
    } else if (name == "deep") {
        const std::size_t depth = args.is_object() ? args.value("depth", 100000u) : 100000u;
        write_all(R"({"jsonrpc":"2.0","id":)" + id.dump() +
                  R"(,"result":{"content":[],"structuredContent":{"x":)" + nested(depth) + "}}}\n");
    } else if (name == "scalar") {
        send(Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", 42}});
    } else if (name == "die") {
        write_all(R"({"jsonrpc":"2.0","id":)" + id.dump() + R"(,"result":{"content":[{"type":"te)");
        std::_Exit(3);
    } else if (name == "big") {
        const std::size_t bytes = args.is_object() ? args.value("bytes", 1000u) : 1000u;
        text_result(std::string(bytes, 'b'));
    } else {
        send(Json{{"jsonrpc", "2.0"},
                  {"id", id},
                  {"error", {{"code", -32602}, {"message", "unknown tool " + name}}}});
    }
    (void)o;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
        if (arg == "--log") {
            o.log = value();
        } else if (arg == "--hang-at") {
            o.hang_at = value();
        } else if (arg == "--stop-reading") {
            o.stop_reading = true;
        } else if (arg == "--ignore-sigterm") {
            ::signal(SIGTERM, SIG_IGN);
        } else if (arg == "--flood-list-changed") {
            o.flood = std::atol(value().c_str());
        } else if (arg == "--garbage") {
            o.garbage = true;
        } else if (arg == "--deep-schema") {
            o.deep_schema = true;
        } else if (arg == "--big-annotation") {
            o.big_annotation = true;
        } else if (arg == "--endless-pages") {
            o.endless_pages = std::atol(value().c_str());
        } else if (arg == "--echo-delay-ms") {
            o.echo_delay_ms = std::atol(value().c_str());
        } else if (arg == "--logging") {
            o.logging = true;
        } else if (arg == "--helper-holding-stdout") {
            o.helper = true;
        } else {
            std::cerr << "fake_mcp_backend: unknown option " << arg << "\n";
            return 2;
        }
    }
    if (o.helper) {
        const pid_t helper = ::fork();
        if (helper == 0) {
            ::sleep(60);
            std::_Exit(0);
        }
        if (!o.log.empty()) {
            std::ofstream(o.log, std::ios::app) << "helper " << helper << "\n";
        }
    }
    bool listed = false;
    std::string line;
    while (std::getline(std::cin, line)) {
        Json m = Json::parse(line, nullptr, false);
        if (m.is_discarded() || !m.is_object()) {
            continue;
        }
        log_message(o, m);
        const std::string method = m.value("method", std::string());
        if (!m.contains("id") || method.empty() || method == o.hang_at) {
            continue;
        }
        const Json id = m["id"];
        if (o.garbage) {
            send_garbage();
        }
        if (method == "initialize") {
            Json capabilities{{"tools", {{"listChanged", true}}}};
            if (o.logging) {
                capabilities["logging"] = Json::object();
            }
            send(Json{{"jsonrpc", "2.0"},
                      {"id", id},
                      {"result",
                       {{"protocolVersion", "2025-06-18"},
                        {"capabilities", capabilities},
                        {"serverInfo", {{"name", "fake"}, {"version", "1"}}}}}});
        } else if (method == "logging/setLevel" && o.logging) {
            const Json params = m.value("params", Json::object());
            const std::string level = params.is_object() ? params.value("level", "") : "";
            send(Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", Json::object()}});
            // One message below any level a client would ask for but debug, one above.
            send(Json{{"jsonrpc", "2.0"},
                      {"method", "notifications/message"},
                      {"params", {{"level", "debug"}, {"data", "chatter"}}}});
            Json warning{{"level", "warning"}, {"logger", "fake"}, {"data", "level " + level}};
            send(Json{{"jsonrpc", "2.0"},
                      {"method", "notifications/message"},
                      {"params", std::move(warning)}});
        } else if (method == "tools/list" && o.endless_pages > 0) {
            const Json params = m.value("params", Json::object());
            const std::string cursor =
                params.is_object() ? params.value("cursor", std::string("0")) : "0";
            const std::string next = std::to_string(std::atol(cursor.c_str()) + 1);
            Json page =
                tool("page_" + next, std::string(static_cast<std::size_t>(o.endless_pages), 'p'));
            send(Json{{"jsonrpc", "2.0"},
                      {"id", id},
                      {"result", {{"tools", Json::array({page})}, {"nextCursor", next}}}});
        } else if (method == "tools/list") {
            write_all(tools_list_line(o, id));
            if (!listed && o.flood > 0) {
                std::thread([n = o.flood] {
                    const std::string note =
                        R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})"
                        "\n";
                    for (long k = 0; k < n; ++k) {
                        write_all(note);
                    }
                }).detach();
            }
            if (o.stop_reading) {
                for (;;) {
                    ::pause();
                }
            }
            listed = true;
        } else if (method == "tools/call") {
            call(o, id, m.value("params", Json::object()));
        } else if (method == "ping") {
            send(Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", Json::object()}});
        } else {
            send(Json{{"jsonrpc", "2.0"},
                      {"id", id},
                      {"error", {{"code", -32601}, {"message", "Method not found"}}}});
        }
    }
    return 0;
}
