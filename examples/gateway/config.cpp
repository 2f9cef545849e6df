// config.cpp: see config.hpp. Every key is type-checked before use, so a wrong type is a
// message naming it by its path (mcpServers.github.args[2]), never an exception; a key the
// gateway does not know is an error too, since a misspelt one would otherwise be ignored.
#include "config.hpp"

#include <algorithm>
#include <filesystem>

#include "scout/catalog.hpp"
#include "scout/catalog_loader.hpp"

#include "bounded_json.hpp"
#include "config_errors.hpp"
#include "config_file.hpp"
#include "printable.hpp"
#include "remote_session.hpp"

namespace scout::gateway {
namespace {

bool has_control_character(std::string_view s) {
    for (const char c : s) {
        const auto b = static_cast<unsigned char>(c);
        if (b < 0x20 || b == 0x7f) {
            return true;
        }
    }
    return false;
}

/// exec() takes C strings: a NUL byte would silently cut the value short.
bool has_nul(std::string_view s) {
    return s.find('\0') != std::string_view::npos;
}

/// The first key of `object` that is not in `known`, as an error at `where`.KEY, or ok.
template <std::size_t N>
Status unknown_keys(const std::string& where, const Json& object, const char* const (&known)[N]) {
    for (const auto& item : object.items()) {
        const std::string& key = item.key();  // not a structured binding: lambdas capture it
        if (std::find_if(std::begin(known), std::end(known), [&](const char* k) {
                return key == k;
            }) == std::end(known)) {
            std::string list;
            for (const char* k : known) {
                list += list.empty() ? "" : ", ";
                list += k;
            }
            return config_error((where.empty() ? "" : where + ".") + detail::clipped(key),
                                "unknown key (known: " + list + ")");
        }
    }
    return {};
}

Status parse_server(const std::string& name, const Json& entry, GatewayConfig& config) {
    std::vector<BackendSpec>& out = config.backends;
    const std::string where = "mcpServers." + detail::clipped(name);
    if (name.empty() || name.size() > kMaxNameBytes) {
        return config_error(
            where, "a server name must have 1 to " + std::to_string(kMaxNameBytes) + " bytes");
    }
    if (has_control_character(name)) {
        return config_error(where, "a server name must not contain control characters");
    }
    if (!entry.is_object()) {
        return config_error(where, "must be an object" + got_type(entry));
    }
    static const char* const kServerKeys[] = {
        "command", "args", "env", "url", "headers", "environment", "disabled", "pin"};
    if (Status s = unknown_keys(where, entry, kServerKeys); !s.ok()) {
        return s;
    }
    if (auto disabled = entry.find("disabled"); disabled != entry.end()) {
        if (!disabled->is_boolean()) {
            return config_error(
                where + ".disabled",
                "must be true or false (got " + std::string(disabled->type_name()) + ")");
        }
        if (disabled->get<bool>()) {
            return {};
        }
    }
    BackendSpec spec;
    spec.name = name;
    auto command = entry.find("command");
    auto url = entry.find("url");
    if (url != entry.end()) {
        if (command != entry.end()) {
            return config_error(
                where, "give either \"command\" (stdio) or \"url\" (Streamable HTTP), not both");
        }
        if (!url->is_string() || !parse_http_url(url->get_ref<const std::string&>())) {
            return config_error(where + ".url", "must be an http:// or https:// URL");
        }
        spec.url = url->get<std::string>();
        if (auto headers = entry.find("headers"); headers != entry.end()) {
            if (!headers->is_object()) {
                return config_error(where + ".headers",
                                    "must be an object of strings" + got_type(*headers));
            }
            for (const auto& [k, v] : headers->items()) {
                if (!v.is_string() || k.empty() || has_control_character(k) ||
                    k.find_first_of(" :") != std::string::npos ||
                    has_control_character(v.get_ref<const std::string&>())) {
                    return config_error(
                        where + ".headers." + detail::clipped(k),
                        "must map header names (no spaces, ':' or control characters) to "
                        "strings without control characters");
                }
                spec.headers[k] = v.get<std::string>();
            }
        }
    } else {
        if (entry.contains("headers")) {
            return config_error(where + ".headers", "only a \"url\" (remote) server takes headers");
        }
        if (command == entry.end() || !command->is_string() ||
            command->get_ref<const std::string&>().empty()) {
            return config_error(where + ".command",
                                "must be a non-empty string (or give \"url\" for a remote server)");
        }
        spec.command = command->get<std::string>();
        if (has_nul(spec.command)) {
            return config_error(where + ".command", "must not contain a NUL character");
        }
    }
    if (auto args = entry.find("args"); args != entry.end()) {
        if (!args->is_array()) {
            return config_error(where + ".args", "must be an array of strings" + got_type(*args));
        }
        for (const auto& a : *args) {
            const std::string at = where + ".args[" + std::to_string(spec.args.size()) + "]";
            if (!a.is_string()) {
                return config_error(at, "must be a string" + got_type(a));
            }
            if (has_nul(a.get_ref<const std::string&>())) {
                return config_error(at, "must not contain a NUL character");
            }
            spec.args.push_back(a.get<std::string>());
        }
    }
    if (auto env = entry.find("env"); env != entry.end()) {
        if (!env->is_object()) {
            return config_error(where + ".env", "must be an object of strings" + got_type(*env));
        }
        for (const auto& [k, v] : env->items()) {
            if (!v.is_string() || k.empty() || k.find('=') != std::string::npos || has_nul(k) ||
                has_nul(v.get_ref<const std::string&>())) {
                return config_error(where + ".env." + detail::clipped(k),
                                    "must map variable names (no '=', no NUL) to strings");
            }
            spec.env[k] = v.get<std::string>();
        }
    }
    if (auto label = entry.find("environment"); label != entry.end()) {
        if (!label->is_string() || label->get_ref<const std::string&>().size() > kMaxNameBytes ||
            has_control_character(label->get_ref<const std::string&>())) {
            return config_error(where + ".environment",
                                "must be a string of at most " + std::to_string(kMaxNameBytes) +
                                    " bytes without control characters");
        }
        spec.environment = label->get<std::string>();
    }
    if (auto pin = entry.find("pin"); pin != entry.end()) {
        if (!pin->is_boolean()) {
            return config_error(where + ".pin", "must be true or false" + got_type(*pin));
        }
        if (pin->get<bool>()) {
            config.pinned.servers.push_back(name);
        }
    }
    out.push_back(std::move(spec));
    return {};
}

Status parse_pinned(const Json& pinned, GatewayConfig& config) {
    if (!pinned.is_array()) {
        return config_error("pinned",
                            "must be an array of \"server/tool\" strings" + got_type(pinned));
    }
    std::size_t index = 0;
    for (const Json& p : pinned) {
        const std::string where = "pinned[" + std::to_string(index++) + "]";
        if (!p.is_string()) {
            return config_error(where, "must be a \"server/tool\" string" + got_type(p));
        }
        const std::string& text = p.get_ref<const std::string&>();
        // The server is the longest configured name that prefixes the entry (names may hold '/').
        const BackendSpec* owner = nullptr;
        for (const BackendSpec& b : config.backends) {
            if (text.size() > b.name.size() + 1 && text.compare(0, b.name.size(), b.name) == 0 &&
                text[b.name.size()] == '/' &&
                (owner == nullptr || b.name.size() > owner->name.size())) {
                owner = &b;
            }
        }
        if (owner == nullptr) {
            std::string what = detail::clipped(text);  // appended, not "'" + ...: GCC 12 -Wrestrict
            what.insert(what.begin(), '\'');
            what += "' does not start with an enabled server's name and '/'";
            return config_error(where, what);
        }
        const std::string_view tool = std::string_view(text).substr(owner->name.size() + 1);
        config.pinned.tools.push_back(ToolKey{owner->name, std::string(tool)});
    }
    return {};
}

}  // namespace

Result<GatewayConfig> parse_gateway_config(std::string_view json_text) {
    auto doc = detail::parse_json(json_text);
    if (!doc) {
        return config_error("config", doc.status().message());
    }
    if (!doc->is_object()) {
        return config_error("config", "not a JSON object");
    }
    static const char* const kTopKeys[] = {"mcpServers", "pinned", "embedder", "calibration"};
    if (Status s = unknown_keys("", *doc, kTopKeys); !s.ok()) {
        return s;
    }
    auto servers = doc->find("mcpServers");
    if (servers == doc->end()) {
        return config_error("mcpServers", "is required (an object of servers)");
    }
    if (!servers->is_object()) {
        return config_error("mcpServers", "must be an object of servers" + got_type(*servers));
    }
    GatewayConfig out;
    try {
        for (const auto& [name, entry] : servers->items()) {
            if (Status s = parse_server(name, entry, out); !s.ok()) {
                return s;
            }
        }
        if (auto pinned = doc->find("pinned"); pinned != doc->end()) {
            if (Status s = parse_pinned(*pinned, out); !s.ok()) {
                return s;
            }
        }
        if (auto embedder = doc->find("embedder"); embedder != doc->end()) {
            out.embedder_json = embedder->dump();
        }
        if (auto calibration = doc->find("calibration"); calibration != doc->end()) {
            if (!calibration->is_string() || calibration->get_ref<const std::string&>().empty() ||
                has_nul(calibration->get_ref<const std::string&>())) {
                return config_error("calibration",
                                    "must be the path of a calibration file (`scout calibrate "
                                    "--out FILE`), a non-empty string without NUL" +
                                        (calibration->is_string() ? "" : got_type(*calibration)));
            }
            out.calibration_path = calibration->get<std::string>();
        }
    } catch (const std::exception& e) {  // every access above is checked; a slip is still no crash
        return config_error("config", std::string("unreadable: ") + e.what());
    }
    return out;
}

void resolve_config_paths(GatewayConfig& config, const std::string& config_path) {
    const std::filesystem::path file(config.calibration_path);
    if (!config.calibration_path.empty() && file.is_relative()) {
        config.calibration_path =
            (std::filesystem::path(config_path).parent_path() / file).lexically_normal().string();
    }
}

Result<GatewayConfig> load_gateway_config(const std::string& path) {
    auto config =
        load_config_file(path, [](std::string_view text) { return parse_gateway_config(text); });
    if (config) {
        resolve_config_paths(*config, path);
    }
    return config;
}

Result<std::vector<BackendSpec>> parse_config(std::string_view json_text) {
    auto parsed = parse_gateway_config(json_text);
    if (!parsed) {
        return parsed.status();
    }
    return std::move(parsed->backends);
}

Result<std::vector<BackendSpec>> load_config(const std::string& path) {
    auto parsed = load_gateway_config(path);
    if (!parsed) {
        return parsed.status();
    }
    return std::move(parsed->backends);
}

}  // namespace scout::gateway
