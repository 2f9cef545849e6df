// config_reload.hpp: what SIGHUP takes from the config file. The servers ("mcpServers") and the
// pinned tools change at runtime (Gateway::reload); the "embedder" section needs a restart, since
// the catalog's vectors were made by the running embedder, so a change to it is reported and
// left for the next start.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "scout/status.hpp"

#include "config.hpp"
#include "gateway.hpp"

namespace scout::gateway {

/// Reads the config file once and checks it whole as a start would: servers, pinned tools and
/// the "embedder" section with the command line's embedder options (`embedder_args`) over it.
/// The first error, naming the file and key, when any part is bad.
[[nodiscard]] Result<GatewayConfig> load_reloadable_config(
    const std::string& path, const std::vector<std::pair<std::string, std::string>>& embedder_args);

/// The log line of an applied reload: the server count and what changed ("added a, b; removed
/// c; restarted d; pinned tools changed"), or "no change" when nothing did.
[[nodiscard]] std::string describe_reload(const ReloadReport& report);

/// The line that says a reloaded "embedder" section differs from the running one and waits for
/// a restart, or "" when it is the same.
[[nodiscard]] std::string embedder_change(const std::string& running_json,
                                          const std::string& reloaded_json);

}  // namespace scout::gateway
