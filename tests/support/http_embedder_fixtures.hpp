// http_embedder_fixtures.hpp: what the HTTP embedder tests share: an OpenAI-shaped reply with
// deterministic vectors, options with short timeouts, and an environment without proxies (a
// proxy set on the machine must not carry the tests' loopback requests away).
#pragma once

#include <cstdlib>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "scout/embedder.hpp"
#include "scout/http/http_embedder.hpp"

#include "support/loopback_server.hpp"

namespace scout::test {

inline constexpr std::size_t kDim = 16;

/// Unsets every proxy variable libcurl reads; the proxy tests set their own.
inline void clear_proxy_environment() {
    for (const char* name : {"http_proxy",
                             "HTTP_PROXY",
                             "https_proxy",
                             "HTTPS_PROXY",
                             "all_proxy",
                             "ALL_PROXY",
                             "no_proxy",
                             "NO_PROXY"}) {
        ::unsetenv(name);
    }
}

inline const bool kProxiesCleared = [] {
    clear_proxy_environment();
    return true;
}();

/// OpenAI-shaped reply with HashingEmbedder vectors, in reverse order (so "index" matters).
inline Reply vectors_for(const Request& request, std::size_t dim = kDim) {
    const auto json = nlohmann::json::parse(request.body);
    std::vector<std::string> texts = json.at("input").get<std::vector<std::string>>();
    HashingEmbedder hashing(kDim);
    auto vecs = hashing.embed(texts).value();
    nlohmann::json data = nlohmann::json::array();
    for (std::size_t i = texts.size(); i-- > 0;) {
        std::vector<float> v(vecs.begin() + static_cast<std::ptrdiff_t>(i * kDim),
                             vecs.begin() + static_cast<std::ptrdiff_t>((i + 1) * kDim));
        v.resize(dim, 0.5f);
        data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", v}});
    }
    return make_reply(
        200,
        nlohmann::json{{"object", "list"}, {"data", data}, {"model", json.at("model")}}.dump());
}

inline HttpEmbedderOptions fast_options(const std::string& url) {
    HttpEmbedderOptions o;
    o.base_url = url;
    o.model = "test-model";
    o.dimensions = kDim;
    o.connect_timeout = std::chrono::milliseconds(500);
    o.request_timeout = std::chrono::milliseconds(500);
    o.initial_backoff = std::chrono::milliseconds(5);
    o.max_backoff = std::chrono::milliseconds(20);
    o.max_retries = 3;
    o.total_timeout = std::chrono::milliseconds(3000);
    return o;
}

inline std::shared_ptr<HttpEmbedder> make(const HttpEmbedderOptions& o) {
    auto e = HttpEmbedder::create(o);
    INFO((e.ok() ? std::string() : e.status().to_string()));
    REQUIRE(e.ok());
    return e.value();
}

inline std::vector<std::string> numbered(std::size_t n) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < n; ++i) {
        out.push_back("text number " + std::to_string(i));
    }
    return out;
}

}  // namespace scout::test
