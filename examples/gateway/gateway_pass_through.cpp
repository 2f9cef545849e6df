// gateway_pass_through.cpp: resources/* and prompts/* passed through to the backends in the
// caller's scope, their names and URIs prefixed with the server's name.
#include <algorithm>
#include <string>
#include <string_view>

#include "direct_names.hpp"
#include "gateway.hpp"
#include "gateway_internal.hpp"
#include "printable.hpp"

namespace scout::gateway {

using gateway_detail::kMaxPassThroughPages;
using gateway_detail::prefixed_uri;

namespace {
constexpr std::string_view kUriScheme = kResourceUriScheme;
}  // namespace

std::string gateway_detail::prefixed_uri(const std::string& server, const std::string& uri) {
    return std::string(kUriScheme) + server + "/" + uri;
}

std::vector<std::shared_ptr<Backend>> Gateway::backends_in_scope(const mcp::MetaTools& tools) {
    // The rule tool_search and execute_tool apply (SearchOptions of the caller's connector).
    const SearchOptions scope = tools.scope_options(mcp::Scope::all_servers);
    std::vector<std::shared_ptr<Backend>> out;
    const auto set = backends();
    for (const auto& b : *set) {
        const bool server_ok =
            !scope.servers || std::find(scope.servers->begin(), scope.servers->end(), b->name()) !=
                                  scope.servers->end();
        const bool environment_ok = !scope.environment || *scope.environment == b->environment();
        if (server_ok && environment_ok) {
            out.push_back(b);
        }
    }
    return out;
}

Json Gateway::pass_through(const Message& m,
                           const mcp::MetaTools& tools,
                           const std::shared_ptr<CancelToken>& cancel,
                           const std::string& client) {
    const Json params = m.body.value("params", Json::object());
    if (!params.is_object()) {
        return make_error(m.id, kInvalidParams, "params must be an object");
    }
    const auto in_scope = backends_in_scope(tools);
    // Listings: every backend in scope, names and URIs prefixed with the server's name. A
    // backend without the capability (or down) is left out rather than failing the listing.
    struct Listing {
        const char* method;
        const char* field;
        const char* key;  ///< the member that gets the prefix
    };
    static constexpr Listing kListings[] = {
        {"resources/list", "resources", "uri"},
        {"resources/templates/list", "resourceTemplates", "uriTemplate"},
        {"prompts/list", "prompts", "name"},
    };
    for (const Listing& l : kListings) {
        if (m.method != l.method) {
            continue;
        }
        Json items = Json::array();
        for (const auto& b : in_scope) {
            for (Json& item : listed(*b, l.method, l.field, l.key, cancel)) {
                Json& k = item[l.key];
                k = std::string(l.key) == "name" ? b->name() + "/" + k.get<std::string>()
                                                 : prefixed_uri(b->name(), k.get<std::string>());
                items.push_back(std::move(item));
            }
        }
        return make_result(m.id, Json{{l.field, std::move(items)}});
    }
    // One item: the prefix names the backend; it gets its own name or URI back.
    const bool subscription =
        m.method == "resources/subscribe" || m.method == "resources/unsubscribe";
    const bool is_read = m.method == "resources/read" || subscription;
    if (!is_read && m.method != "prompts/get") {
        return make_error(m.id, kMethodNotFound, "Method not found: " + detail::clipped(m.method));
    }
    const char* key = is_read ? "uri" : "name";
    auto given = params.find(key);
    if (given == params.end() || !given->is_string()) {
        return make_error(m.id, kInvalidParams, m.method + " needs params." + key + " (a string)");
    }
    const std::string& asked = given->get_ref<const std::string&>();
    std::string_view value = asked;
    // The gateway's own names: "server/name" for a prompt, "scout-gateway://server/uri" for a
    // resource. Anything else is the backend's own name, taken when one server in scope has it.
    const bool prefixed = !is_read || value.substr(0, kUriScheme.size()) == kUriScheme;
    if (is_read && prefixed) {
        value.remove_prefix(kUriScheme.size());
    }
    std::shared_ptr<Backend> owner;
    std::string inner;
    for (const auto& b : in_scope) {
        const std::string& server = b->name();
        if (prefixed && value.size() > server.size() && value.substr(0, server.size()) == server &&
            value[server.size()] == '/') {
            owner = b;
            inner = std::string(value.substr(server.size() + 1));
            break;
        }
    }
    if (!owner && !(is_read && prefixed)) {
        std::vector<std::shared_ptr<Backend>> owners =
            bare_owners(in_scope, is_read, asked, cancel);
        if (owners.size() > 1) {
            std::vector<std::string> qualified;
            qualified.reserve(owners.size());
            for (const auto& b : owners) {
                qualified.push_back(is_read ? prefixed_uri(b->name(), asked)
                                            : b->name() + "/" + asked);
            }
            return make_error(
                m.id,
                kInvalidParams,
                ambiguous_name_message(is_read ? "resource" : "prompt", asked, qualified));
        }
        if (owners.size() == 1) {
            owner = owners[0];
            inner = asked;
        }
    }
    if (owner) {
        const std::shared_ptr<Backend>& b = owner;
        const std::string& server = b->name();
        if (subscription) {
            return change_subscription(m, *b, inner, client, cancel);
        }
        Json ask = params;
        ask[key] = inner;
        auto got = b->request(m.method, std::move(ask), cancel);
        if (!got) {
            return make_error(m.id, kInternalError, got.status().message());
        }
        if (is_read && prefixed) {  // the contents name the URI the client asked for
            if (auto contents = got->find("contents");
                contents != got->end() && contents->is_array()) {
                for (Json& c : *contents) {
                    if (auto u = c.is_object() ? c.find("uri") : c.end();
                        c.is_object() && u != c.end() && u->is_string()) {
                        *u = prefixed_uri(server, u->get<std::string>());
                    }
                }
            }
        }
        return make_result(m.id, std::move(got.value()));
    }
    return make_error(m.id,
                      kInvalidParams,
                      std::string(is_read ? "Unknown resource" : "Unknown prompt") +
                          ": no server in scope owns '" + detail::clipped(asked) + "'");
}

std::vector<Json> Gateway::listed(Backend& backend,
                                  const char* method,
                                  const char* field,
                                  const char* key,
                                  const std::shared_ptr<CancelToken>& cancel) {
    std::vector<Json> items;
    Json cursor;
    for (int page = 0; page < kMaxPassThroughPages; ++page) {
        Json ask = Json::object();
        if (!cursor.is_null()) {
            ask["cursor"] = cursor;
        }
        auto got = backend.request(method, std::move(ask), cancel);
        if (!got) {
            break;
        }
        auto list = got->find(field);
        if (list != got->end() && list->is_array()) {
            for (Json& item : *list) {
                auto k = item.is_object() ? item.find(key) : item.end();
                if (item.is_object() && k != item.end() && k->is_string()) {
                    items.push_back(std::move(item));
                }
            }
        }
        auto next = got->find("nextCursor");
        if (next == got->end() || !next->is_string()) {
            break;
        }
        cursor = *next;
    }
    return items;
}

std::vector<std::shared_ptr<Backend>> Gateway::bare_owners(
    const std::vector<std::shared_ptr<Backend>>& in_scope,
    bool resource,
    const std::string& name,
    const std::shared_ptr<CancelToken>& cancel) {
    std::vector<std::shared_ptr<Backend>> owners;
    auto offers =
        [&](Backend& b, const char* method, const char* field, const char* key, bool templated) {
            for (const Json& item : listed(b, method, field, key, cancel)) {
                const std::string& listed_name = item[key].get_ref<const std::string&>();
                if (templated ? uri_template_matches(listed_name, name) : listed_name == name) {
                    return true;
                }
            }
            return false;
        };
    for (const auto& b : in_scope) {
        if (resource ? offers(*b, "resources/list", "resources", "uri", false)
                     : offers(*b, "prompts/list", "prompts", "name", false)) {
            owners.push_back(b);
        }
    }
    if (!resource || !owners.empty()) {
        return owners;
    }
    // A concrete URI of a resource template (a backend lists its templates, not their URIs).
    for (const auto& b : in_scope) {
        if (offers(*b, "resources/templates/list", "resourceTemplates", "uriTemplate", true)) {
            owners.push_back(b);
        }
    }
    return owners;
}

}  // namespace scout::gateway
