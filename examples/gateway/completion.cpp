// completion.cpp: completion/complete routed to the server that owns the reference (gateway.hpp).
#include <string>
#include <string_view>

#include "gateway.hpp"
#include "printable.hpp"

namespace scout::gateway {
namespace {

/// The answer when no server can suggest anything: completions are hints, so "none" is a
/// complete answer (and says nothing of what lies outside the caller's scope).
Json no_suggestions() {
    return Json{{"completion", {{"values", Json::array()}, {"total", 0}, {"hasMore", false}}}};
}

/// "server/rest" split at the server in `in_scope` it names, or nullptr.
Backend* owner_of(std::string_view name,
                  const std::vector<std::shared_ptr<Backend>>& in_scope,
                  std::string& rest) {
    for (const auto& b : in_scope) {
        const std::string& server = b->name();
        if (name.size() > server.size() + 1 && name.substr(0, server.size()) == server &&
            name[server.size()] == '/') {
            rest.assign(name.substr(server.size() + 1));
            return b.get();
        }
    }
    return nullptr;
}

}  // namespace

Json Gateway::complete(const Message& m,
                       const mcp::MetaTools& tools,
                       const std::shared_ptr<CancelToken>& cancel) {
    const Json params = m.body.value("params", Json::object());
    auto ref = params.is_object() ? params.find("ref") : params.end();
    auto argument = params.is_object() ? params.find("argument") : params.end();
    if (!params.is_object() || ref == params.end() || !ref->is_object() ||
        argument == params.end() || !argument->is_object() ||
        !argument->value("name", Json()).is_string() ||
        !argument->value("value", Json()).is_string()) {
        return make_error(m.id,
                          kInvalidParams,
                          "completion/complete needs params.ref (an object) and params.argument "
                          "{name, value} (strings)");
    }
    const Json type = ref->value("type", Json());
    const bool prompt = type == "ref/prompt";
    if (!prompt && type != "ref/resource") {
        return make_error(
            m.id,
            kInvalidParams,
            "completion/complete: params.ref.type must be ref/prompt or ref/resource");
    }
    const char* key = prompt ? "name" : "uri";
    const Json named = ref->value(key, Json());
    if (!named.is_string()) {
        return make_error(
            m.id,
            kInvalidParams,
            std::string("completion/complete: params.ref.") + key + " must be a string");
    }
    std::string_view value = named.get_ref<const std::string&>();
    if (!prompt) {
        if (value.substr(0, kResourceUriScheme.size()) != kResourceUriScheme) {
            return make_result(m.id, no_suggestions());
        }
        value.remove_prefix(kResourceUriScheme.size());
    }
    std::string inner;
    const auto in_scope = backends_in_scope(tools);  // holds the owner while it is asked
    Backend* owner = owner_of(value, in_scope, inner);
    if (owner == nullptr || !owner->supports_completions()) {
        return make_result(m.id, no_suggestions());
    }
    Json ask = params;
    ask["ref"][key] = inner;
    auto got = owner->request("completion/complete", std::move(ask), cancel);
    if (!got) {
        return make_error(m.id, kInternalError, got.status().message());
    }
    auto completion = got->is_object() ? got->find("completion") : got->end();
    if (completion == got->end() || !completion->is_object() ||
        !completion->value("values", Json()).is_array()) {
        return make_error(m.id,
                          kInternalError,
                          "server '" + detail::printable(owner->name()) +
                              "' answered completion/complete without completion.values");
    }
    return make_result(m.id, std::move(got.value()));
}

}  // namespace scout::gateway
