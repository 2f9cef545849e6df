// log.cpp: see log.hpp.
#include "log.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <ctime>

#include "json_rpc.hpp"

namespace scout::gateway {
namespace {

std::atomic<LogLevel> g_level{LogLevel::info};
std::atomic<LogFormat> g_format{LogFormat::text};

const char* level_name(LogLevel level) {
    switch (level) {
        case LogLevel::error:
            return "error";
        case LogLevel::warn:
            return "warn";
        case LogLevel::info:
            return "info";
        case LogLevel::debug:
            return "debug";
    }
    return "info";
}

/// A JSON string: escaped, invalid UTF-8 replaced.
std::string json_string(std::string_view s) {
    return Json(std::string(s)).dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string iso8601_ms(std::chrono::system_clock::time_point when) {
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(when.time_since_epoch()).count();
    long long millis = static_cast<long long>(ms % 1000);
    auto whole = static_cast<std::time_t>(ms / 1000);
    if (millis < 0) {  // before 1970
        millis += 1000;
        --whole;
    }
    std::tm utc{};
    ::gmtime_r(&whole, &utc);
    char buf[40];
    const std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &utc);
    std::string out(buf, n);
    char frac[8];
    std::snprintf(frac, sizeof frac, ".%03lldZ", millis);
    return out + frac;
}

void write_log_line(const std::string& line) {
    std::size_t off = 0;
    while (off < line.size()) {
        const ssize_t n = ::write(STDERR_FILENO, line.data() + off, line.size() - off);
        if (n <= 0) {
            return;
        }
        off += static_cast<std::size_t>(n);
    }
}

}  // namespace

std::optional<LogLevel> parse_log_level(std::string_view name) {
    for (LogLevel l : {LogLevel::error, LogLevel::warn, LogLevel::info, LogLevel::debug}) {
        if (name == level_name(l)) {
            return l;
        }
    }
    return std::nullopt;
}

std::optional<LogFormat> parse_log_format(std::string_view name) {
    if (name == "text") {
        return LogFormat::text;
    }
    if (name == "json") {
        return LogFormat::json;
    }
    return std::nullopt;
}

void set_log_level(LogLevel level) {
    g_level.store(level, std::memory_order_relaxed);
}

void set_log_format(LogFormat format) {
    g_format.store(format, std::memory_order_relaxed);
}

bool log_enabled(LogLevel level) {
    return static_cast<int>(level) <= static_cast<int>(g_level.load(std::memory_order_relaxed));
}

std::string format_log_line(LogFormat format,
                            LogLevel level,
                            std::string_view text,
                            std::initializer_list<LogField> fields,
                            std::chrono::system_clock::time_point when) {
    std::string line;
    if (format == LogFormat::json) {
        line = "{\"ts\":\"" + iso8601_ms(when) + "\",\"level\":\"" + level_name(level) +
               "\",\"msg\":" + json_string(text);
        for (const LogField& f : fields) {
            line += ',';
            line += json_string(f.key);
            line += ':';
            line += json_string(f.value);
        }
        line += '}';
        return line;
    }
    line = "scout-gateway: ";
    line += text;
    const char* sep = " (";
    for (const LogField& f : fields) {
        line += sep;
        line += f.key;
        line += '=';
        line += f.value;
        sep = ", ";
    }
    if (fields.size() != 0) {
        line += ')';
    }
    return line;
}

void log_line(std::string_view text) {
    log_line(LogLevel::info, text);
}

void log_line(LogLevel level, std::string_view text, std::initializer_list<LogField> fields) {
    if (!log_enabled(level)) {
        return;
    }
    std::string line = format_log_line(g_format.load(std::memory_order_relaxed),
                                       level,
                                       text,
                                       fields,
                                       std::chrono::system_clock::now());
    line += '\n';
    write_log_line(line);
}

}  // namespace scout::gateway
