// events.cpp: event values, their JSON-lines rendering, the JSON-lines sink and the helpers
// that build the gateway-side events.
#include "scout/events.hpp"

#include <nlohmann/json.hpp>

#include "util/file_io.hpp"

namespace scout {

const EventValue* Event::find(std::string_view key) const noexcept {
    for (const auto& [field, value] : fields) {
        if (field == key) {
            return &value;
        }
    }
    return nullptr;
}

std::string event_to_json(const Event& event) {
    nlohmann::ordered_json line;
    line["event"] = event.name;
    for (const auto& [key, value] : event.fields) {
        std::visit([&, &k = key](const auto& v) { line[k] = v; }, value);
    }
    // `replace` turns invalid UTF-8 (a query is validated, but a tool name from a host may not
    // be) into U+FFFD instead of throwing.
    return line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

Result<std::shared_ptr<JsonLinesSink>> JsonLinesSink::open_file(const std::filesystem::path& path) {
    // Appending changes the file in place: an index file a reader has open is refused (its
    // lock is only checked here; two logs appending to one file stay allowed).
    if (auto lock = detail::lock_for_writing_in_place(path); !lock) {
        return lock.status();
    }
    std::shared_ptr<JsonLinesSink> sink(new JsonLinesSink());
    sink->file_.open(path, std::ios::app | std::ios::binary);
    if (!sink->file_) {
        return Status{Errc::io_error,
                      "cannot open event log '" + path.string() + "' for appending"};
    }
    sink->out_ = &sink->file_;
    return sink;
}

void JsonLinesSink::emit(const Event& event) {
    const std::string line = event_to_json(event) + "\n";
    std::lock_guard lock(mu_);
    out_->write(line.data(), static_cast<std::streamsize>(line.size()));
    out_->flush();
}

Event tools_list_event(bool meta_tools, std::size_t tool_count) {
    return {"tools_list",
            {{"meta_tools", meta_tools}, {"tool_count", static_cast<std::int64_t>(tool_count)}}};
}

Event tool_execute_completed_event(std::string_view server,
                                   std::string_view tool,
                                   double latency_ms) {
    return {
        "tool_execute_completed",
        {{"server", std::string(server)}, {"tool", std::string(tool)}, {"latency_ms", latency_ms}}};
}

Event tool_execute_failed_event(std::string_view server,
                                std::string_view tool,
                                double latency_ms,
                                std::string_view error_class) {
    return {"tool_execute_failed",
            {{"server", std::string(server)},
             {"tool", std::string(tool)},
             {"latency_ms", latency_ms},
             {"error_class", std::string(error_class)}}};
}

}  // namespace scout
