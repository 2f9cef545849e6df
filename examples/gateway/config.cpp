// config.cpp: see config.hpp.
#include "config.hpp"

#include "scout/catalog.hpp"
#include "scout/catalog_loader.hpp"

namespace scout::gateway {
namespace {

Status bad(const std::string& where, const std::string& what) {
    return Status{Errc::invalid_argument, where + ": " + what};
}

}  // namespace

Result<std::vector<BackendSpec>> parse_config(std::string_view json_text) {
    Json doc = Json::parse(json_text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
        return bad("config", "not a JSON object");
    }
    auto servers = doc.find("mcpServers");
    if (servers == doc.end() || !servers->is_object()) {
        return bad("config", "\"mcpServers\" must be an object of servers");
    }
    std::vector<BackendSpec> out;
    for (const auto& [name, entry] : servers->items()) {
        const std::string where = "mcpServers." + name;
        if (name.empty() || name.size() > kMaxNameBytes) {
            return bad(where, "a server name must have 1 to 256 bytes");
        }
        if (!entry.is_object()) {
            return bad(where, "must be an object");
        }
        if (entry.value("disabled", false) == true) {
            continue;
        }
        BackendSpec spec;
        spec.name = name;
        auto command = entry.find("command");
        if (command == entry.end() || !command->is_string() || command->get_ref<const std::string&>().empty()) {
            return bad(where, "\"command\" must be a non-empty string (only stdio servers are supported)");
        }
        spec.command = command->get<std::string>();
        if (auto args = entry.find("args"); args != entry.end()) {
            if (!args->is_array()) {
                return bad(where, "\"args\" must be an array of strings");
            }
            for (const auto& a : *args) {
                if (!a.is_string()) {
                    return bad(where, "\"args\" must be an array of strings");
                }
                spec.args.push_back(a.get<std::string>());
            }
        }
        if (auto env = entry.find("env"); env != entry.end()) {
            if (!env->is_object()) {
                return bad(where, "\"env\" must be an object of strings");
            }
            for (const auto& [k, v] : env->items()) {
                if (!v.is_string() || k.empty() || k.find('=') != std::string::npos) {
                    return bad(where, "\"env\" must map variable names to strings");
                }
                spec.env[k] = v.get<std::string>();
            }
        }
        if (auto label = entry.find("environment"); label != entry.end()) {
            if (!label->is_string()) {
                return bad(where, "\"environment\" must be a string");
            }
            spec.environment = label->get<std::string>();
        }
        out.push_back(std::move(spec));
    }
    return out;
}

Result<std::vector<BackendSpec>> load_config(const std::string& path) {
    auto text = read_text_file(path);
    if (!text) {
        return text.status();
    }
    auto parsed = parse_config(text.value());
    if (!parsed) {
        return Status{parsed.status().code(), path + ": " + parsed.status().message()};
    }
    return parsed;
}

}  // namespace scout::gateway
