// gateway_health.cpp: what the gateway says of itself: /metrics text and /readyz.
#include <algorithm>
#include <map>
#include <string>

#include "gateway.hpp"

namespace scout::gateway {

std::string Gateway::metrics_text() {
    return metrics_text(std::nullopt);
}

std::string Gateway::metrics_text(const std::optional<std::vector<std::string>>& visible_servers) {
    std::vector<std::pair<std::string, std::string>> states;
    const auto set = backends();
    for (const auto& b : *set) {
        const bool visible = !visible_servers || std::find(visible_servers->begin(),
                                                           visible_servers->end(),
                                                           b->name()) != visible_servers->end();
        if (visible) {
            states.emplace_back(b->name(), b->state());
        }
    }
    std::string text = metrics_.render(states, visible_servers);
    if (extra_metrics_) {
        text += extra_metrics_();
    }
    return text;
}

Gateway::Readiness Gateway::readiness() {
    std::map<std::string, int> states{
        {"starting", 0}, {"active", 0}, {"degraded", 0}, {"stopped", 0}};
    const auto set = backends();
    for (const auto& b : *set) {
        ++states[b->state()];
    }
    // As wait_started() decides, without waiting: every first attempt is over, or the start-up
    // wait has passed and the gateway serves without the slow ones.
    const bool started = started_.load() || states["starting"] == 0 ||
                         std::chrono::steady_clock::now() >= startup_deadline_;
    const Searcher searcher = catalog_.searcher();
    const char* embedder = "active";
    if (meta_.connector().mode == Mode::bm25) {
        embedder = "none";
    } else if (searcher.size() > 0 && !searcher.has_dense()) {
        embedder = "degraded";
    }
    Json backends = Json::object();
    for (const auto& [state, n] : states) {
        backends[state] = n;
    }
    Readiness r;
    r.ready = started;
    r.body = Json{{"status", started ? "ready" : "starting"},
                  {"tools", searcher.size()},
                  {"generation", searcher.generation()},
                  {"backends", std::move(backends)},
                  {"embedder", embedder}};
    return r;
}

}  // namespace scout::gateway
