// log.hpp: the gateway's logging. Everything goes to stderr: stdout carries only JSON-RPC.
// Lines are text ("scout-gateway: <message>", the default) or, with --log-format json, one JSON
// object per line: {"ts","level","msg", and fields such as "request_id" or "server"}.
#pragma once

#include <chrono>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace scout::gateway {

enum class LogLevel { error, warn, info, debug };
enum class LogFormat { text, json };

/// One extra field of a log line ("request_id", "server", ...).
struct LogField {
    std::string_view key;
    std::string_view value;
};

/// "error", "warn", "info", "debug"; nullopt for anything else.
[[nodiscard]] std::optional<LogLevel> parse_log_level(std::string_view name);
/// "text" or "json"; nullopt for anything else.
[[nodiscard]] std::optional<LogFormat> parse_log_format(std::string_view name);
/// Process-wide; set at start-up (the flags), read by every thread.
void set_log_level(LogLevel level);
void set_log_format(LogFormat format);
/// Whether a line of `level` is written (lines above the set level are dropped).
[[nodiscard]] bool log_enabled(LogLevel level);

/// One line without its newline. Text: "scout-gateway: <text>", fields after it as
/// " (key=value, ...)". JSON: {"ts": ISO-8601 UTC with milliseconds, "level", "msg", fields...};
/// control characters are escaped and invalid UTF-8 bytes become U+FFFD, so it always parses.
[[nodiscard]] std::string format_log_line(LogFormat format,
                                          LogLevel level,
                                          std::string_view text,
                                          std::initializer_list<LogField> fields,
                                          std::chrono::system_clock::time_point when);

/// Writes one line (at info level) to stderr as one write (lines from threads do not mix).
void log_line(std::string_view text);
/// The same at `level`, with fields; nothing when the level is not enabled.
void log_line(LogLevel level, std::string_view text, std::initializer_list<LogField> fields = {});

}  // namespace scout::gateway
