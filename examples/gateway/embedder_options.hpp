// embedder_options.hpp: the gateway's embedder settings, the same as the scout CLI's: --embedder
// (static[:PATH], glove, transformer:DIR, hashing[:DIM], http or none) and, for http, the
// service's URL, model, dimensions, Azure api-version, extra headers, CA file and the
// cleartext-key override. They come from the config file's top-level "embedder" and from the
// command line, which wins.
#pragma once

#include <string>
#include <string_view>

#include "scout/embedder.hpp"
#include "scout/status.hpp"

namespace scout::gateway {

struct EmbedderSettings {
    std::string spec = "static";
    HttpEmbedderOptions http;  ///< used when spec is "http"
};

/// Applies one command-line option (a flag's value is ignored). invalid_argument for a bad
/// value; --embedder-header adds to the headers, the others replace.
[[nodiscard]] Status apply_embedder_option(std::string_view name,
                                           const std::string& value,
                                           EmbedderSettings& settings);

/// Reads the config text's optional top-level "embedder": a spec string ("static", "none", ...)
/// or an object {"type", "url", "model", "dimensions", "api_version", "headers": {name: value},
/// "ca_file", "api_key_env", "allow_cleartext_key"}. The key itself is never in the file:
/// "api_key_env" names the environment variable that holds it. invalid_argument naming the
/// offending key; `settings` is unchanged when "embedder" is absent.
[[nodiscard]] Status parse_embedder_config(std::string_view json_text, EmbedderSettings& settings);
/// Reads the config file and applies its "embedder" (errors start with the path).
[[nodiscard]] Status load_embedder_config(const std::string& path, EmbedderSettings& settings);

}  // namespace scout::gateway
