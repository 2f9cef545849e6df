// modern_protocol.cpp: see modern_protocol.hpp.
#include "modern_protocol.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

#include "base64url.hpp"
#include "printable.hpp"
#include "utf8.hpp"

namespace scout::gateway::modern {
namespace {

const Json* find_member(const Json& object, const char* key) {
    if (!object.is_object()) {
        return nullptr;
    }
    auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
}

const Json* meta_of(const Json& message) {
    const Json* params = find_member(message, "params");
    return params == nullptr ? nullptr : find_member(*params, "_meta");
}

ProtocolError invalid_params(std::string message) {
    return ProtocolError{kInvalidParams, "Invalid params: " + std::move(message), nullptr, 400};
}

ProtocolError header_mismatch(std::string message) {
    return ProtocolError{kHeaderMismatch, "Header mismatch: " + std::move(message), nullptr, 400};
}

bool is_log_level(const Json& v) {
    static constexpr std::array<std::string_view, 8> kLevels = {
        "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"};
    if (!v.is_string()) {
        return false;
    }
    const auto& s = v.get_ref<const std::string&>();
    for (std::string_view level : kLevels) {
        if (s == level) {
            return true;
        }
    }
    return false;
}

bool valid_ttl(const Json& v) {
    // A non-negative integer a JavaScript client reads exactly.
    constexpr std::int64_t kMaxSafeInteger = (std::int64_t{1} << 53) - 1;
    return (v.is_number_unsigned() && v.get<std::uint64_t>() <= kMaxSafeInteger) ||
           (v.is_number_integer() && v.get<std::int64_t>() >= 0 &&
            v.get<std::int64_t>() <= kMaxSafeInteger);
}

/// Canonical padded base64 (RFC 4648 section 4); nullopt otherwise.
std::optional<std::string> decode_base64(std::string_view in) {
    if (in.size() % 4 != 0) {
        return std::nullopt;
    }
    std::string out;
    out.reserve(in.size() / 4 * 3);
    for (std::size_t i = 0; i < in.size(); i += 4) {
        const bool last = i + 4 == in.size();
        const std::size_t pad = !last ? 0 : in[i + 3] != '=' ? 0 : in[i + 2] != '=' ? 1 : 2;
        std::uint32_t group = 0;
        for (std::size_t k = 0; k < 4; ++k) {
            const int d = k < 4 - pad ? base64_sextet(in[i + k], '+', '/') : 0;
            if (d < 0) {
                return std::nullopt;
            }
            group = (group << 6) | static_cast<std::uint32_t>(d);
        }
        // Canonical: the bits a padded group leaves over are zero.
        if ((pad == 1 && (group & 0xFFu) != 0) || (pad == 2 && (group & 0xFFFFu) != 0)) {
            return std::nullopt;
        }
        out.push_back(static_cast<char>((group >> 16) & 0xFFu));
        if (pad < 2) {
            out.push_back(static_cast<char>((group >> 8) & 0xFFu));
        }
        if (pad < 1) {
            out.push_back(static_cast<char>(group & 0xFFu));
        }
    }
    return out;
}

std::string encode_base64(std::string_view in) {
    constexpr std::string_view kDigits =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((in.size() + 2) / 3 * 4);
    for (std::size_t i = 0; i < in.size(); i += 3) {
        const std::size_t n = std::min<std::size_t>(3, in.size() - i);
        std::uint32_t group = 0;
        for (std::size_t k = 0; k < 3; ++k) {
            group = (group << 8) | (k < n ? static_cast<unsigned char>(in[i + k]) : 0u);
        }
        for (std::size_t k = 0; k < 4; ++k) {
            out.push_back(k <= n ? kDigits[(group >> (18 - 6 * k)) & 0x3Fu] : '=');
        }
    }
    return out;
}

/// The params member Mcp-Name mirrors for `method`, or nullptr when the method has none.
const char* name_field(std::string_view method) {
    return method == "tools/call" || method == "prompts/get" ? "name"
           : method == "resources/read"                      ? "uri"
                                                             : nullptr;
}

std::string_view trim_ows(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
        s.remove_prefix(1);
    }
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
        s.remove_suffix(1);
    }
    return s;
}

}  // namespace

Json error_response(const Json& id, const ProtocolError& error) {
    Json response = make_error(id, error.code, error.message);
    if (!error.data.is_null()) {
        response["error"]["data"] = error.data;
    }
    return response;
}

bool carries_envelope(const Json& message) {
    const Json* meta = meta_of(message);
    return meta != nullptr && (find_member(*meta, kProtocolVersionKey) != nullptr ||
                               find_member(*meta, kClientCapabilitiesKey) != nullptr);
}

std::string envelope_version(const Json& message) {
    const Json* meta = meta_of(message);
    const Json* version = meta == nullptr ? nullptr : find_member(*meta, kProtocolVersionKey);
    return version != nullptr && version->is_string() ? version->get<std::string>() : std::string();
}

std::optional<ProtocolError> check_envelope(const Json& message) {
    const Json* params = find_member(message, "params");
    if (params == nullptr || !params->is_object()) {
        return invalid_params("a 2026-07-28 request needs params with a _meta object");
    }
    const Json* meta = find_member(*params, "_meta");
    if (meta == nullptr || !meta->is_object()) {
        return invalid_params("params._meta must be an object holding " +
                              std::string(kProtocolVersionKey) + " and " + kClientCapabilitiesKey);
    }
    const Json* version = find_member(*meta, kProtocolVersionKey);
    if (version == nullptr || !version->is_string()) {
        return invalid_params("_meta[\"" + std::string(kProtocolVersionKey) +
                              "\"] is required and must be a string");
    }
    if (*version != kProtocolVersion) {
        return ProtocolError{
            kUnsupportedProtocolVersion,
            "Unsupported protocol version: " + detail::clipped(version->get<std::string>(), 64),
            Json{{"supported", Json::array({kProtocolVersion})},
                 {"requested", detail::clipped(version->get<std::string>(), 64)}},
            400};
    }
    const Json* capabilities = find_member(*meta, kClientCapabilitiesKey);
    if (capabilities == nullptr || !capabilities->is_object()) {
        return invalid_params("_meta[\"" + std::string(kClientCapabilitiesKey) +
                              "\"] is required and must be an object");
    }
    if (const Json* info = find_member(*meta, kClientInfoKey);
        info != nullptr && !info->is_object()) {
        return invalid_params("_meta[\"" + std::string(kClientInfoKey) + "\"] must be an object");
    }
    if (const Json* level = find_member(*meta, kLogLevelKey);
        level != nullptr && !is_log_level(*level)) {
        return invalid_params("_meta[\"" + std::string(kLogLevelKey) +
                              "\"] must be a logging level (debug ... emergency)");
    }
    return std::nullopt;
}

bool serves_method(std::string_view method) {
    static constexpr std::array<std::string_view, 9> kMethods = {"server/discover",
                                                                 "tools/list",
                                                                 "tools/call",
                                                                 "resources/list",
                                                                 "resources/templates/list",
                                                                 "resources/read",
                                                                 "prompts/list",
                                                                 "prompts/get",
                                                                 "subscriptions/listen"};
    for (std::string_view m : kMethods) {
        if (m == method) {
            return true;
        }
    }
    return false;
}

bool is_cacheable(std::string_view method) {
    return method == "tools/list" || method == "prompts/list" || method == "resources/list" ||
           method == "resources/templates/list" || method == "resources/read" ||
           method == "server/discover";
}

void finish_result(std::string_view method, Json& result, bool per_caller) {
    if (!result.is_object()) {
        return;
    }
    result["resultType"] = "complete";
    if (!is_cacheable(method)) {
        return;
    }
    // The gateway's own listing gets its TTL; what an upstream returned is not cached.
    const int ttl = method == "tools/list" || method == "server/discover" ? kToolListTtlMs : 0;
    if (auto t = result.find("ttlMs"); t == result.end() || !valid_ttl(*t)) {
        result["ttlMs"] = ttl;
    }
    // Whatever an upstream said, an answer filtered by the caller's scope is theirs alone.
    if (auto s = result.find("cacheScope");
        per_caller || s == result.end() || !(*s == "public" || *s == "private")) {
        result["cacheScope"] = per_caller ? "private" : "public";
    }
}

Json discover_result(const Json& initialize_result, bool per_caller) {
    Json result{{"supportedVersions", Json::array({kProtocolVersion})},
                {"capabilities", initialize_result.value("capabilities", Json::object())}};
    if (auto i = initialize_result.find("instructions");
        i != initialize_result.end() && i->is_string()) {
        result["instructions"] = *i;
    }
    if (auto s = initialize_result.find("serverInfo"); s != initialize_result.end()) {
        result["_meta"] = Json{{kServerInfoKey, *s}};
    }
    finish_result("server/discover", result, per_caller);
    return result;
}

std::optional<ProtocolError> check_listen(const Json& message, Json& honoured) {
    const Json* params = find_member(message, "params");
    const Json* filter = params == nullptr ? nullptr : find_member(*params, "notifications");
    if (filter == nullptr || !filter->is_object()) {
        return invalid_params("subscriptions/listen needs params.notifications (an object)");
    }
    honoured = Json::object();
    for (const auto& [key, value] : filter->items()) {
        if (key == "resourceSubscriptions" ? !value.is_array() : !value.is_boolean()) {
            return invalid_params("params.notifications." + detail::clipped(key, 64) +
                                  " has the wrong type");
        }
    }
    // Only the tool list changes visibly; the pass-through lists announce nothing.
    if (auto t = filter->find("toolsListChanged"); t != filter->end() && *t == true) {
        honoured["toolsListChanged"] = true;
    }
    return std::nullopt;
}

Json acknowledged(const Json& id, const Json& honoured) {
    return make_notification(
        "notifications/subscriptions/acknowledged",
        Json{{"_meta", {{kSubscriptionIdKey, id}}}, {"notifications", honoured}});
}

Json tools_list_changed(const Json& id) {
    return make_notification("notifications/tools/list_changed",
                             Json{{"_meta", {{kSubscriptionIdKey, id}}}});
}

Json listen_closed(const Json& id) {
    return make_result(id, Json{{"_meta", {{kSubscriptionIdKey, id}}}, {"resultType", "complete"}});
}

Json client_envelope() {
    return Json{{kProtocolVersionKey, kProtocolVersion},
                {kClientCapabilitiesKey, Json::object()},
                {kClientInfoKey, {{"name", "scout-gateway"}, {"version", "0.1.0"}}}};
}

bool is_discover_result(const Json& result) {
    const Json* versions = find_member(result, "supportedVersions");
    const Json* capabilities = find_member(result, "capabilities");
    if (versions == nullptr || !versions->is_array() || capabilities == nullptr ||
        !capabilities->is_object()) {
        return false;
    }
    for (const Json& v : *versions) {
        if (v == kProtocolVersion) {
            return true;
        }
    }
    return false;
}

bool is_modern_error(const Json& error) {
    const Json* code = find_member(error, "code");
    if (code == nullptr || !code->is_number_integer()) {
        return false;
    }
    if (*code == kMissingClientCapability) {
        return true;
    }
    const Json* data = find_member(error, "data");
    const Json* supported = data == nullptr ? nullptr : find_member(*data, "supported");
    if (*code != kUnsupportedProtocolVersion || supported == nullptr || !supported->is_array()) {
        return false;
    }
    for (const Json& v : *supported) {
        // Revisions are dates; the modern era starts with kProtocolVersion.
        if (v.is_string() && v.get_ref<const std::string&>().size() == 10 &&
            v.get_ref<const std::string&>() >= std::string_view(kProtocolVersion)) {
            return true;
        }
    }
    return false;
}

Json initialize_view(const Json& discover) {
    Json view{{"protocolVersion", kProtocolVersion},
              {"capabilities", discover.value("capabilities", Json::object())}};
    if (const Json* meta = find_member(discover, "_meta")) {
        if (const Json* info = find_member(*meta, kServerInfoKey); info != nullptr) {
            view["serverInfo"] = *info;
        }
    }
    if (const Json* i = find_member(discover, "instructions"); i != nullptr && i->is_string()) {
        view["instructions"] = *i;
    }
    return view;
}

std::optional<std::string> decode_header_value(std::string_view value) {
    constexpr std::string_view kPrefix = "=?base64?";
    constexpr std::string_view kSuffix = "?=";
    if (value.size() >= kPrefix.size() + kSuffix.size() &&
        value.substr(0, kPrefix.size()) == kPrefix &&
        value.substr(value.size() - kSuffix.size()) == kSuffix) {
        auto decoded = decode_base64(
            value.substr(kPrefix.size(), value.size() - kPrefix.size() - kSuffix.size()));
        if (!decoded || !detail::is_valid_utf8(*decoded)) {
            return std::nullopt;
        }
        return decoded;
    }
    for (char c : value) {  // a plain value is visible ASCII (and tabs)
        const auto u = static_cast<unsigned char>(c);
        if (!(u == '\t' || (u >= 0x20 && u <= 0x7E))) {
            return std::nullopt;
        }
    }
    return std::string(value);
}

std::string encode_header_value(std::string_view value) {
    bool plain = value == trim_ows(value) && !(value.starts_with("=?") && value.ends_with("?="));
    for (char c : value) {
        const auto u = static_cast<unsigned char>(c);
        plain = plain && u >= 0x20 && u <= 0x7E;
    }
    return plain ? std::string(value) : "=?base64?" + encode_base64(value) + "?=";
}

ModernHeaders request_headers(const Json& message) {
    ModernHeaders headers;
    const std::string version = envelope_version(message);
    if (version.empty() || !message.contains("id")) {
        return headers;
    }
    const std::string method = message.value("method", std::string());
    headers.protocol_version = version;
    headers.method = method;
    const Json* params = find_member(message, "params");
    const char* field = name_field(method);
    const Json* name =
        params == nullptr || field == nullptr ? nullptr : find_member(*params, field);
    if (name != nullptr && name->is_string()) {
        headers.name = encode_header_value(name->get_ref<const std::string&>());
    }
    return headers;
}

std::optional<ProtocolError> check_headers(const Json& message, const ModernHeaders& headers) {
    const bool is_request = message.is_object() && message.contains("id");
    const std::string version = envelope_version(message);
    // Notifications are exempt from the presence rules and may come without an envelope; what
    // they do carry must still agree.
    if (!is_request && (!headers.protocol_version || version.empty())) {
        return std::nullopt;
    }
    if (!headers.protocol_version) {
        return header_mismatch("the MCP-Protocol-Version header is required");
    }
    if (trim_ows(*headers.protocol_version) != version) {
        return header_mismatch("MCP-Protocol-Version " +
                               detail::clipped(std::string(*headers.protocol_version), 64) +
                               " differs from the body's " + detail::clipped(version, 64));
    }
    if (!is_request) {
        return std::nullopt;
    }
    const std::string method = message.value("method", std::string());
    if (!headers.method) {
        return header_mismatch("the Mcp-Method header is required");
    }
    if (trim_ows(*headers.method) != method) {
        return header_mismatch("Mcp-Method " + detail::clipped(std::string(*headers.method), 64) +
                               " differs from the body's " + detail::clipped(method, 64));
    }
    const char* field = name_field(method);
    if (field == nullptr) {
        return std::nullopt;
    }
    const Json* params = find_member(message, "params");
    const Json* body_value = params == nullptr ? nullptr : find_member(*params, field);
    if (body_value == nullptr || !body_value->is_string()) {
        return std::nullopt;  // the method's own params check answers
    }
    if (!headers.name) {
        return header_mismatch("the Mcp-Name header is required for " + method);
    }
    auto decoded = decode_header_value(trim_ows(*headers.name));
    if (!decoded) {
        return header_mismatch("the Mcp-Name header is not valid (bad =?base64?...?= value)");
    }
    if (*decoded != body_value->get_ref<const std::string&>()) {
        return header_mismatch("Mcp-Name differs from params." + std::string(field));
    }
    return std::nullopt;
}

}  // namespace scout::gateway::modern
