// auth.cpp: see auth.hpp. Every key is type-checked before use: a wrong type is a message
// naming it, never an exception.
#include "auth.hpp"

#include <set>

#include <nlohmann/json.hpp>

#include "scout/catalog.hpp"

#include "config_file.hpp"
#include "util/json_limits.hpp"
#include "util/printable.hpp"

namespace scout::gateway {
namespace {

using Json = nlohmann::json;

Status bad(const std::string& where, const std::string& what) {
    return Status{Errc::invalid_argument, where + ": " + what};
}

bool valid_token(std::string_view t) {
    if (t.size() < kMinTokenBytes || t.size() > kMaxTokenBytes) {
        return false;
    }
    for (const char c : t) {
        if (c <= ' ' || c > '~') {
            return false;
        }
    }
    return true;
}

bool valid_name(const std::string& s) {
    if (s.empty() || s.size() > kMaxNameBytes) {
        return false;
    }
    for (const char c : s) {
        const auto b = static_cast<unsigned char>(c);
        if (b < 0x20 || b == 0x7f) {
            return false;
        }
    }
    return true;
}

}  // namespace

bool constant_time_equal(std::string_view a, std::string_view b) noexcept {
    // Walks the longer length in full; a length mismatch is folded in, not returned early.
    const std::size_t n = a.size() > b.size() ? a.size() : b.size();
    unsigned diff = a.size() == b.size() ? 0U : 1U;
    for (std::size_t i = 0; i < n; ++i) {
        const auto x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0U;
        const auto y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0U;
        diff |= x ^ y;
    }
    return diff == 0;
}

const CallerScope* AuthTable::authenticate(std::string_view authorization) const {
    constexpr std::string_view kScheme = "Bearer ";
    if (authorization.size() < kScheme.size() || authorization.size() > kMaxTokenBytes + 64) {
        return nullptr;
    }
    for (std::size_t i = 0; i < kScheme.size(); ++i) {  // the scheme is case-insensitive
        const char c = authorization[i];
        const char lower = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
        const char want = kScheme[i] >= 'A' && kScheme[i] <= 'Z'
                              ? static_cast<char>(kScheme[i] - 'A' + 'a')
                              : kScheme[i];
        if (lower != want) {
            return nullptr;
        }
    }
    std::string_view token = authorization.substr(kScheme.size());
    while (!token.empty() && token.front() == ' ') {
        token.remove_prefix(1);
    }
    while (!token.empty() && token.back() == ' ') {
        token.remove_suffix(1);
    }
    const CallerScope* found = nullptr;
    for (const Entry& e : entries_) {  // no early exit: every token costs the same
        if (constant_time_equal(e.token, token) && found == nullptr) {
            found = &e.scope;
        }
    }
    return found;
}

const std::vector<CallerScope>& AuthTable::callers() const {
    return scopes_;
}

Result<AuthTable> AuthTable::parse(std::string_view json_text) {
    auto doc = detail::parse_json(json_text);
    if (!doc) {
        return bad("auth", doc.status().message());
    }
    if (!doc->is_object()) {
        return bad("auth", "not a JSON object");
    }
    for (const auto& [key, value] : doc->items()) {
        if (key != "callers") {
            return bad("auth", "unknown key \"" + detail::clipped(key) + "\"");
        }
    }
    auto callers = doc->find("callers");
    if (callers == doc->end() || !callers->is_array() || callers->empty()) {
        return bad("auth", "\"callers\" must be a non-empty array");
    }
    AuthTable table;
    std::set<std::string> names;
    std::set<std::string> tokens;
    std::size_t index = 0;
    for (const Json& c : *callers) {
        const std::string where = "auth.callers[" + std::to_string(index++) + "]";
        if (!c.is_object()) {
            return bad(where, "must be an object");
        }
        Entry entry;
        for (const auto& [key, value] : c.items()) {
            if (key == "name") {
                if (!value.is_string() || !valid_name(value.get<std::string>())) {
                    return bad(where + ".name",
                               "must be a string of 1 to " + std::to_string(kMaxNameBytes) +
                                   " bytes without control characters");
                }
                entry.scope.name = value.get<std::string>();
            } else if (key == "token") {
                if (!value.is_string() || !valid_token(value.get_ref<const std::string&>())) {
                    return bad(where + ".token",
                               "must be printable ASCII without spaces, " +
                                   std::to_string(kMinTokenBytes) + " to " +
                                   std::to_string(kMaxTokenBytes) + " bytes");
                }
                entry.token = value.get<std::string>();
            } else if (key == "servers") {
                if (!value.is_array()) {
                    return bad(where + ".servers", "must be an array of server names");
                }
                std::vector<std::string> servers;
                for (const Json& s : value) {
                    if (!s.is_string() || !valid_name(s.get<std::string>())) {
                        return bad(where + ".servers", "must be an array of server names");
                    }
                    servers.push_back(s.get<std::string>());
                }
                entry.scope.servers = std::move(servers);
            } else if (key == "environment") {
                if (!value.is_string() || !valid_name(value.get<std::string>())) {
                    return bad(where + ".environment",
                               "must be a non-empty string without control characters");
                }
                entry.scope.environment = value.get<std::string>();
            } else {
                return bad(where, "unknown key \"" + detail::clipped(key) + "\"");
            }
        }
        if (entry.scope.name.empty()) {
            return bad(where + ".name", "is required");
        }
        if (entry.token.empty()) {
            return bad(where + ".token", "is required");
        }
        if (!names.insert(entry.scope.name).second) {
            return bad(where + ".name", "'" + entry.scope.name + "' is named twice");
        }
        if (!tokens.insert(entry.token).second) {
            return bad(where + ".token", "the same token is given to two callers");
        }
        table.scopes_.push_back(entry.scope);
        table.entries_.push_back(std::move(entry));
    }
    return table;
}

Result<AuthTable> AuthTable::load(const std::string& path) {
    return load_config_file(path, [](std::string_view text) { return parse(text); });
}

}  // namespace scout::gateway
