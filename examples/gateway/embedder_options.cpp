// embedder_options.cpp: see embedder_options.hpp. Every key is type-checked before use, so a
// wrong type is a message naming it, never an exception.
#include "embedder_options.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <utility>

#include "bounded_json.hpp"
#include "config_errors.hpp"
#include "config_file.hpp"
#include "printable.hpp"

namespace scout::gateway {
namespace {

using Json = nlohmann::json;

Status parse_dimensions(const std::string& text, std::size_t& out) {
    std::size_t n = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || ptr != text.data() + text.size() || n == 0 || n > 65536) {
        return config_error("--embedder-dimensions", "needs 1 <= N <= 65536");
    }
    out = n;
    return {};
}

/// The string at `key` of `object` into `out`; absent leaves `out` as it is.
Status read_string(const Json& object, const char* key, std::string& out) {
    auto it = object.find(key);
    if (it == object.end()) {
        return {};
    }
    if (!it->is_string()) {
        return config_error(std::string("embedder.") + key,
                            "must be a string (got " + std::string(it->type_name()) + ")");
    }
    out = it->get<std::string>();
    return {};
}

Status parse_object(const Json& e, EmbedderSettings& settings) {
    static const char* const kKeys[] = {"type",
                                        "url",
                                        "model",
                                        "dimensions",
                                        "api_version",
                                        "headers",
                                        "ca_file",
                                        "api_key_env",
                                        "allow_cleartext_key"};
    for (const auto& [key, value] : e.items()) {
        (void)value;
        if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys)) {
            return config_error(
                "embedder." + detail::clipped(key),
                "unknown key (known: type, url, model, dimensions, api_version, headers, "
                "ca_file, api_key_env, allow_cleartext_key)");
        }
    }
    HttpEmbedderOptions& http = settings.http;
    for (const auto& [key, target] : {std::pair<const char*, std::string*>{"type", &settings.spec},
                                      {"url", &http.base_url},
                                      {"model", &http.model},
                                      {"api_version", &http.api_version},
                                      {"ca_file", &http.ca_file}}) {
        if (Status s = read_string(e, key, *target); !s.ok()) {
            return s;
        }
    }
    if (auto d = e.find("dimensions"); d != e.end()) {
        if (!d->is_number_unsigned() || d->get<std::uint64_t>() == 0 ||
            d->get<std::uint64_t>() > 65536) {
            return config_error(
                "embedder.dimensions",
                "must be a whole number in 1..65536" + (d->is_number() ? "" : got_type(*d)));
        }
        http.dimensions = d->get<std::size_t>();
    }
    if (auto h = e.find("headers"); h != e.end()) {
        if (!h->is_object()) {
            return config_error("embedder.headers",
                                "must be an object of header names to strings" + got_type(*h));
        }
        for (const auto& [name, value] : h->items()) {
            if (!value.is_string()) {
                return config_error("embedder.headers." + detail::clipped(name),
                                    "must be a string" + got_type(value));
            }
            http.headers.push_back(name + ": " + value.get<std::string>());
        }
    }
    if (auto a = e.find("allow_cleartext_key"); a != e.end()) {
        if (!a->is_boolean()) {
            return config_error("embedder.allow_cleartext_key",
                                "must be true or false" + got_type(*a));
        }
        http.allow_cleartext_key = a->get<bool>();
    }
    std::string key_env;
    if (Status s = read_string(e, "api_key_env", key_env); !s.ok()) {
        return s;
    }
    if (!key_env.empty()) {
        const char* key = std::getenv(key_env.c_str());
        if (key == nullptr || *key == '\0') {
            return config_error("embedder.api_key_env",
                                "names " + detail::clipped(key_env) + ", which is not set");
        }
        http.api_key = key;
    }
    return {};
}

}  // namespace

Status apply_embedder_option(std::string_view name,
                             const std::string& value,
                             EmbedderSettings& settings) {
    HttpEmbedderOptions& http = settings.http;
    if (name == "--embedder") {
        settings.spec = value;
    } else if (name == "--embedder-url") {
        http.base_url = value;
    } else if (name == "--embedder-model") {
        http.model = value;
    } else if (name == "--embedder-dimensions") {
        return parse_dimensions(value, http.dimensions);
    } else if (name == "--embedder-api-version") {
        http.api_version = value;
    } else if (name == "--embedder-header") {
        http.headers.push_back(value);
    } else if (name == "--embedder-ca") {
        http.ca_file = value;
    } else if (name == "--embedder-allow-cleartext-key") {
        http.allow_cleartext_key = true;
    } else {
        return config_error(std::string(name), "not an embedder option");
    }
    return {};
}

Status parse_embedder_config(std::string_view json_text, EmbedderSettings& settings) {
    auto doc = detail::parse_json(json_text);
    if (!doc) {
        return config_error("config", doc.status().message());
    }
    if (!doc->is_object()) {
        return config_error("config", "not a JSON object");
    }
    auto e = doc->find("embedder");
    if (e == doc->end()) {
        return {};
    }
    try {
        if (e->is_string()) {
            settings.spec = e->get<std::string>();
            return {};
        }
        if (!e->is_object()) {
            return config_error("embedder", "must be a spec string or an object" + got_type(*e));
        }
        return parse_object(*e, settings);
    } catch (const std::exception& ex) {  // every access is checked; a slip is still no crash
        return config_error("embedder", std::string("unreadable: ") + ex.what());
    }
}

Status load_embedder_config(const std::string& path, EmbedderSettings& settings) {
    return load_config_file(
        path, [&settings](std::string_view text) { return parse_embedder_config(text, settings); });
}

}  // namespace scout::gateway
