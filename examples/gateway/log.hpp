// log.hpp: the gateway's logging. Everything goes to stderr: stdout carries only JSON-RPC.
#pragma once

#include <string_view>

namespace scout::gateway {

/// Writes "scout-gateway: <text>\n" to stderr as one write (lines from threads do not mix).
void log_line(std::string_view text);

}  // namespace scout::gateway
