// json_rpc.cpp: see json_rpc.hpp.
#include "json_rpc.hpp"

#include "bounded_json.hpp"

namespace scout::gateway {
namespace {

bool usable_id(const Json& id) {
    return id.is_string() || id.is_number_integer();
}

}  // namespace

Message classify(std::string_view line) {
    Message m;
    auto parsed = detail::parse_json_pruned(line);
    if (!parsed) {
        m.kind = MessageKind::parse_error;
        m.error = "Parse error: the line is not valid JSON";
        return m;
    }
    m.body = std::move(parsed->value);
    m.too_deep = parsed->pruned > 0;
    if (!m.body.is_object()) {
        m.error = m.body.is_array() ? "Invalid Request: batches are not supported"
                                    : "Invalid Request: a message must be a JSON object";
        return m;
    }
    auto id = m.body.find("id");
    const bool has_id = id != m.body.end();
    if (has_id && usable_id(*id)) {
        m.id = *id;
    }
    auto version = m.body.find("jsonrpc");
    if (version == m.body.end() || *version != "2.0") {
        m.error = "Invalid Request: \"jsonrpc\" must be \"2.0\"";
        return m;
    }
    if (has_id && !usable_id(*id)) {
        m.error = "Invalid Request: \"id\" must be a string or an integer";
        return m;
    }
    auto method = m.body.find("method");
    if (method == m.body.end()) {
        if (has_id && (m.body.contains("result") || m.body.contains("error"))) {
            m.kind = MessageKind::response;
            return m;
        }
        m.error = "Invalid Request: missing \"method\"";
        return m;
    }
    if (!method->is_string()) {
        m.error = "Invalid Request: \"method\" must be a string";
        return m;
    }
    if (auto params = m.body.find("params");
        params != m.body.end() && !params->is_object() && !params->is_array()) {
        m.error = "Invalid Request: \"params\" must be an object";
        return m;
    }
    if (m.too_deep) {
        m.error = "Invalid Request: " + detail::too_deep_message();
        m.body = nullptr;  // holds placeholders; nothing may serialize it
        return m;
    }
    m.method = method->get<std::string>();
    m.kind = has_id ? MessageKind::request : MessageKind::notification;
    return m;
}

Json make_result(const Json& id, Json result) {
    return Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

Json make_error(const Json& id, int code, std::string message) {
    return Json{{"jsonrpc", "2.0"},
                {"id", id},
                {"error", {{"code", code}, {"message", std::move(message)}}}};
}

Json make_notification(std::string method, Json params) {
    Json n{{"jsonrpc", "2.0"}, {"method", std::move(method)}};
    if (!params.is_null()) {
        n["params"] = std::move(params);
    }
    return n;
}

Json make_request(const Json& id, std::string method, Json params) {
    return Json{{"jsonrpc", "2.0"},
                {"id", id},
                {"method", std::move(method)},
                {"params", std::move(params)}};
}

std::string to_line(const Json& message) {
    return message.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace scout::gateway
