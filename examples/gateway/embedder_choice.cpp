// embedder_choice.cpp: see embedder_choice.hpp. Mirrors the CLI's --embedder defaults: the static
// word-vector model when it is installed, else BM25 alone (said on stderr, never an error).
#include "embedder_choice.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <thread>

#include "scout/embedder.hpp"

#include "built_components.hpp"
#if SCOUT_WITH_HTTP
#include "scout/http/http_embedder.hpp"
#endif
#if SCOUT_WITH_TRANSFORMER
#include "scout/transformer/transformer_embedder.hpp"
#endif

#include "log.hpp"

namespace scout::gateway {
namespace {

/// Repeated queries (an agent often retries a search) skip the model.
constexpr std::size_t kQueryCache = 4096;

std::shared_ptr<Embedder> cached(std::shared_ptr<Embedder> inner) {
    return std::make_shared<CachingEmbedder>(std::move(inner), kQueryCache);
}

/// The http settings' own faults, found without contacting the service; or that this build has
/// no http embedder (built_components.hpp).
Status check_http(const HttpEmbedderOptions& options) {
#if !SCOUT_WITH_HTTP
    (void)options;
    return Status{Errc::invalid_argument, SCOUT_HTTP_LEFT_OUT};
#else
    if (options.base_url.empty() || (options.model.empty() && options.api_version.empty())) {
        return Status{Errc::invalid_argument,
                      "--embedder http needs --embedder-url URL and --embedder-model NAME (or "
                      "\"url\" and \"model\" in the config's \"embedder\")"};
    }
    if (HttpEmbedder::sends_key_in_cleartext(options) && !options.allow_cleartext_key) {
        return Status{Errc::invalid_argument,
                      "--embedder-url: the API key would go in cleartext over http:// to a host "
                      "that is not loopback; use https://, or --embedder-allow-cleartext-key"};
    }
    return {};
#endif
}

/// The dimension of a "hashing[:DIM]" spec, or 0 when it is malformed.
std::size_t hashing_dimension(const std::string& spec) {
    std::size_t dim = 256;
    if (spec.size() > 7) {
        const char* first = spec.data() + 8;
        const char* last = spec.data() + spec.size();
        auto [ptr, ec] = std::from_chars(first, last, dim);
        if (spec[7] != ':' || ec != std::errc() || ptr != last || dim == 0 || dim > 65536) {
            return 0;
        }
    }
    return dim;
}

/// Settings that only the http embedder reads, given with another: refused rather than ignored,
/// since the operator expected them to take effect.
Status check_http_only(const EmbedderSettings& settings) {
    if (settings.spec != "http" && !settings.http.api_version.empty()) {
        return Status{Errc::invalid_argument,
                      "--embedder-api-version (the embedder's \"api_version\") applies to "
                      "--embedder http only, not to '" +
                          settings.spec + "'"};
    }
    return {};
}

Status unknown_spec(const std::string& spec) {
    return Status{
        Errc::invalid_argument,
        "unknown embedder '" + spec +
            "' (expected static[:PATH], glove, transformer:DIR, http, hashing[:DIM] or none)"};
}

#if SCOUT_WITH_HTTP
Result<std::shared_ptr<Embedder>> http_embedder(HttpEmbedderOptions options) {
    if (Status s = check_http(options); !s.ok()) {
        return s;
    }
    auto made = HttpEmbedder::create(std::move(options));
    if (!made && made.status().code() == Errc::unavailable) {
        log_line("embedding service unavailable (" + made.status().message() +
                 "); dense search is off, answering with BM25 only");
        return std::shared_ptr<Embedder>();
    }
    if (!made) {
        return made.status();
    }
    return cached(std::move(made.value()));
}
#else
/// A build without scout::http: check_http refuses every http setting, saying why.
Result<std::shared_ptr<Embedder>> http_embedder(const HttpEmbedderOptions& options) {
    return check_http(options);
}
#endif

}  // namespace

Result<std::shared_ptr<Embedder>> make_embedder(const std::string& spec) {
    EmbedderSettings settings;
    settings.spec = spec;
    return make_embedder(settings);
}

Result<std::shared_ptr<Embedder>> make_embedder(const EmbedderSettings& settings) {
    const std::string& spec = settings.spec;
    if (Status s = check_http_only(settings); !s.ok()) {
        return s;
    }
    if (spec == "http") {
        return http_embedder(settings.http);
    }
    if (spec == "none") {
        return std::shared_ptr<Embedder>();
    }
    if (spec == "static" || spec.rfind("static:", 0) == 0 || spec == "glove") {
        const std::string path = spec.size() > 7 ? spec.substr(7) : std::string();
        auto loaded = spec == "glove" ? StaticEmbedder::load_glove()
                      : path.empty()  ? StaticEmbedder::load_default()
                                      : StaticEmbedder::load(path);
        if (!loaded) {
            log_line("static embedding model unavailable (" + loaded.status().message() +
                     "); dense search is off, answering with BM25 only");
            return std::shared_ptr<Embedder>();
        }
        return cached(std::move(loaded.value()));
    }
    if (spec.rfind("transformer:", 0) == 0) {
#if SCOUT_WITH_TRANSFORMER
        TransformerEmbedderOptions options;
        options.threads = std::max(1U, std::thread::hardware_concurrency());
        auto loaded = TransformerEmbedder::load(spec.substr(12), options);
        if (!loaded) {
            return loaded.status();  // an explicit model that cannot load is a configuration error
        }
        return cached(std::move(loaded.value()));
#else
        return Status{Errc::invalid_argument, SCOUT_TRANSFORMER_LEFT_OUT};
#endif
    }
    if (spec.rfind("hashing", 0) == 0) {
        const std::size_t dim = hashing_dimension(spec);
        if (dim == 0) {
            return Status{Errc::invalid_argument, "--embedder hashing:DIM needs 1 <= DIM <= 65536"};
        }
        return cached(std::make_shared<HashingEmbedder>(dim));
    }
    return unknown_spec(spec);
}

Status check_embedder_settings(const EmbedderSettings& settings) {
    const std::string& spec = settings.spec;
    if (Status s = check_http_only(settings); !s.ok()) {
        return s;
    }
    if (spec == "http") {
        return check_http(settings.http);
    }
    if (spec == "none" || spec == "static" || spec.rfind("static:", 0) == 0 || spec == "glove") {
        return {};  // a missing static model is BM25 alone at start, not an error
    }
    if (spec.rfind("transformer:", 0) == 0) {
#if !SCOUT_WITH_TRANSFORMER
        return Status{Errc::invalid_argument, SCOUT_TRANSFORMER_LEFT_OUT};
#endif
        std::error_code ec;
        if (!std::filesystem::is_directory(spec.substr(12), ec)) {
            return Status{Errc::invalid_argument,
                          "--embedder " + spec + ": not a directory (a model directory is needed)"};
        }
        return {};
    }
    if (spec.rfind("hashing", 0) == 0) {
        if (hashing_dimension(spec) == 0) {
            return Status{Errc::invalid_argument, "--embedder hashing:DIM needs 1 <= DIM <= 65536"};
        }
        return {};
    }
    return unknown_spec(spec);
}

Mode search_mode(const std::shared_ptr<Embedder>& embedder) noexcept {
    return embedder ? Mode::hybrid : Mode::bm25;
}

std::string describe_embedder(const std::string& spec, const std::shared_ptr<Embedder>& embedder) {
    if (!embedder) {
        return "embedder: none: BM25 only (" +
               std::string(spec == "none" ? "--embedder none"
                                          : "the " + spec.substr(0, spec.find(':')) +
                                                " embedder is unavailable, see above") +
               ")";
    }
    return "embedder: " + spec + " model " + embedder->model_id() + ", " +
           std::to_string(embedder->dim()) + " dimensions";
}

}  // namespace scout::gateway
