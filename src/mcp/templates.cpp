// templates.cpp: loading operator-edited description templates and rendering placeholders.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "mcp/internal.hpp"

namespace scout::mcp {

Result<DescriptionTemplates> parse_templates(std::string_view json_text) {
    Json doc = Json::parse(json_text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
        return Status{Errc::invalid_argument, "description templates must be a JSON object"};
    }
    DescriptionTemplates out;
    const std::pair<const char*, std::string*> fields[] = {
        {"tool_search", &out.tool_search},
        {"query", &out.query},
        {"top_k", &out.top_k},
        {"alternatives", &out.alternatives},
        {"max_tokens", &out.max_tokens},
        {"scope", &out.scope},
        {"execute_tool", &out.execute_tool},
        {"tool_name", &out.tool_name},
        {"server_name", &out.server_name},
        {"arguments", &out.arguments},
    };
    for (const auto& [key, value] : doc.items()) {
        std::string* target = nullptr;
        for (const auto& [name, field] : fields) {
            if (key == name) {
                target = field;
            }
        }
        if (target == nullptr) {
            return Status{Errc::invalid_argument, "unknown description template '" + key + "'"};
        }
        if (!value.is_string()) {
            return Status{Errc::invalid_argument,
                          "description template '" + key + "' must be a string"};
        }
        *target = value.get<std::string>();
    }
    return out;
}

namespace {

/// Templates are a few kilobytes of text; a larger file is not one.
constexpr std::size_t kMaxTemplatesBytes = std::size_t{1} << 20;

/// The file's text, read bounded: opened with O_NONBLOCK and judged by fstat before any read,
/// so a FIFO, a device or a directory is refused at once instead of blocking or never ending.
/// (libscout's own reader is internal to the shared library, so this layer has its own.)
Result<std::string> read_templates_file(const std::string& path) {
    const auto fail = [&](const std::string& why) {
        return Status{Errc::io_error, "cannot read description templates '" + path + "': " + why};
    };
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        return fail(std::strerror(errno));
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return fail("not a regular file");
    }
    std::string text;
    char buf[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            const std::string why = std::strerror(errno);
            ::close(fd);
            return fail(why);
        }
        if (n == 0) {
            break;
        }
        text.append(buf, static_cast<std::size_t>(n));
        if (text.size() > kMaxTemplatesBytes) {
            ::close(fd);
            return fail("larger than the limit of " + std::to_string(kMaxTemplatesBytes) +
                        " bytes");
        }
    }
    ::close(fd);
    return text;
}

}  // namespace

Result<DescriptionTemplates> load_templates(const std::string& path) {
    auto text = read_templates_file(path);
    if (!text) {
        return text.status();
    }
    auto parsed = parse_templates(text.value());
    if (!parsed) {
        return Status{parsed.status().code(), path + ": " + parsed.status().message()};
    }
    return parsed;
}

namespace detail {

std::string render(std::string_view text, const TemplateValues& values) {
    const std::pair<std::string_view, std::string> subst[] = {
        {"{environment}", values.environment.empty() ? "any" : values.environment},
        {"{environment_note}", values.environment_note},
        {"{tool_count}", std::to_string(values.tool_count)},
        {"{server_count}", std::to_string(values.server_count)},
        {"{max_top_k}", std::to_string(SearchOptions::kMaxTopK)},
        {"{max_alternatives}", std::to_string(SearchOptions::kMaxAlternatives)},
    };
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        bool replaced = false;
        if (text[i] == '{') {
            for (const auto& [key, value] : subst) {
                if (text.substr(i, key.size()) == key) {
                    out += value;
                    i += key.size();
                    replaced = true;
                    break;
                }
            }
        }
        if (!replaced) {
            out += text[i++];
        }
    }
    return out;
}

}  // namespace detail
}  // namespace scout::mcp
