// config_reload.cpp: see config_reload.hpp.
#include "config_reload.hpp"

#include "config_file.hpp"
#include "embedder_choice.hpp"
#include "embedder_options.hpp"
#include "printable.hpp"

namespace scout::gateway {
namespace {

/// "a, b, c": server names as a log may quote them.
std::string names(const std::vector<std::string>& servers) {
    std::string out;
    for (const std::string& s : servers) {
        out += (out.empty() ? "" : ", ") + detail::clipped(s);
    }
    return out;
}

}  // namespace

Result<GatewayConfig> load_reloadable_config(
    const std::string& path,
    const std::vector<std::pair<std::string, std::string>>& embedder_args) {
    auto loaded =
        load_config_file(path, [&embedder_args](std::string_view text) -> Result<GatewayConfig> {
            auto config = parse_gateway_config(text);
            if (!config) {
                return config.status();
            }
            EmbedderSettings embedder;
            Status s = parse_embedder_config(text, embedder);
            for (const auto& [name, value] : embedder_args) {
                if (s.ok()) {
                    s = apply_embedder_option(name, value, embedder);
                }
            }
            if (s.ok()) {
                s = check_embedder_settings(embedder);
            }
            if (!s.ok()) {
                return s;
            }
            return config;
        });
    if (loaded) {
        resolve_config_paths(*loaded, path);
    }
    return loaded;
}

std::string describe_reload(const ReloadReport& report) {
    const std::size_t servers = report.kept + report.added.size() + report.restarted.size();
    std::string changes;
    auto add = [&changes](const std::string& part) {
        changes += (changes.empty() ? "" : "; ") + part;
    };
    if (!report.added.empty()) {
        add("added " + names(report.added));
    }
    if (!report.removed.empty()) {
        add("removed " + names(report.removed));
    }
    if (!report.restarted.empty()) {
        add("restarted " + names(report.restarted));
    }
    if (report.pinned_changed) {
        add("pinned tools changed");
    }
    return "config reloaded, " + std::to_string(servers) +
           (servers == 1 ? " server: " : " servers: ") + (changes.empty() ? "no change" : changes);
}

std::string embedder_change(const std::string& running_json, const std::string& reloaded_json) {
    if (running_json == reloaded_json) {
        return "";
    }
    return "the config's \"embedder\" section changed, which needs a restart: the running "
           "embedder stays until then";
}

}  // namespace scout::gateway
