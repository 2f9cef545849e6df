// cluster_replica.cpp: one replica process of the registry cluster test
// (tests/integration/registry_cluster_test.cpp), on the public registry API only.
//
//   scout_cluster_replica URL
//
// Follows the registry at URL (registry::Replica, HashingEmbedder(16) behind a counter) and
// speaks JSON lines on stdin and stdout:
//   {"id":N,"method":"search","params":{"query":Q,"top_k":K}}
//       -> {"id":N,"result":{"applied":S,"hits":["server/tool",...]}}; S was applied before the
//       search
//          took its searcher, so the hits hold at least every change up to S
//   {"id":N,"method":"stats"} -> {"id":N,"result":{"applied":S,"documents_embedded":D,...}}
// and, unasked, {"event":"ready","applied":S,"t_ns":T} once the first catch-up succeeded (it is
// retried until then), and {"event":"applied","seq":S,"t_ns":T,"documents_embedded":D} after
// every batch committed. T is CLOCK_MONOTONIC, which every process on the machine shares.
// Every text the embedder is asked for that is not a query of a search is a document this
// replica embedded itself instead of taking its vector from the registry: D counts them.
// Exits 0 at the end of stdin, 1 when the first catch-up has not succeeded within 60 s.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "scout/embedder.hpp"
#include "scout/registry/registry.hpp"

namespace {

using Json = nlohmann::json;

/// HashingEmbedder(16) under the same model id (so the registry's vectors are this model's),
/// counting every text it embeds that is not a query asked by a search.
class DocumentCountingEmbedder final : public scout::Embedder {
public:
    [[nodiscard]] std::string model_id() const override { return inner_.model_id(); }
    [[nodiscard]] std::size_t dim() const override { return inner_.dim(); }
    [[nodiscard]] scout::Result<std::vector<float>> embed(
        std::span<const std::string> texts) override {
        {
            std::lock_guard lock(mutex_);
            for (const std::string& text : texts) {
                if (queries_.contains(text)) {
                    ++queries_embedded_;
                } else {
                    ++documents_embedded_;
                }
            }
        }
        return inner_.embed(texts);
    }
    /// Called before the search that embeds `query`.
    void expect_query(const std::string& query) {
        std::lock_guard lock(mutex_);
        queries_.insert(query);
    }
    [[nodiscard]] std::uint64_t documents_embedded() const {
        std::lock_guard lock(mutex_);
        return documents_embedded_;
    }
    [[nodiscard]] std::uint64_t queries_embedded() const {
        std::lock_guard lock(mutex_);
        return queries_embedded_;
    }

private:
    scout::HashingEmbedder inner_{16};
    mutable std::mutex mutex_;
    std::unordered_set<std::string> queries_;
    std::uint64_t documents_embedded_ = 0;
    std::uint64_t queries_embedded_ = 0;
};

std::mutex out_mutex;

void emit(const Json& line) {
    const std::string text = line.dump() + "\n";
    std::lock_guard lock(out_mutex);
    std::size_t off = 0;
    while (off < text.size()) {
        const ssize_t n = ::write(STDOUT_FILENO, text.data() + off, text.size() - off);
        if (n <= 0) {
            return;  // the test is gone; nothing to report to
        }
        off += static_cast<std::size_t>(n);
    }
}

std::int64_t monotonic_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

Json answer(scout::registry::Replica& replica,
            DocumentCountingEmbedder& embedder,
            const Json& request) {
    const Json id = request.value("id", Json());
    const std::string method = request.value("method", "");
    if (method == "search") {
        const Json params = request.value("params", Json::object());
        const std::string query = params.value("query", "");
        scout::SearchOptions options;
        options.top_k = params.value("top_k", std::size_t{10});
        embedder.expect_query(query);
        const std::uint64_t applied = replica.applied_seq();
        auto result = replica.searcher().search(query, options);
        if (!result.ok()) {
            return Json{{"id", id}, {"error", {{"message", result.status().to_string()}}}};
        }
        Json hits = Json::array();
        for (const scout::Hit& hit : result->hits) {
            hits.push_back(hit.server + "/" + hit.tool);
        }
        return Json{{"id", id}, {"result", {{"applied", applied}, {"hits", std::move(hits)}}}};
    }
    if (method == "stats") {
        const scout::registry::ReplicaStats s = replica.stats();
        return Json{{"id", id},
                    {"result",
                     {{"applied", s.applied_seq},
                      {"documents_embedded", embedder.documents_embedded()},
                      {"queries_embedded", embedder.queries_embedded()},
                      {"vectors_fetched", s.vectors_fetched},
                      {"failures", s.failures},
                      {"reconnects", s.reconnects},
                      {"model_id", s.model_id}}}};
    }
    return Json{{"id", id}, {"error", {{"message", "unknown method '" + method + "'"}}}};
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: scout_cluster_replica URL\n";
        return 2;
    }
    auto embedder = std::make_shared<DocumentCountingEmbedder>();
    scout::registry::ReplicaOptions options;
    options.connect.url = argv[1];
    auto made = scout::registry::Replica::create(options, embedder);
    if (!made.ok()) {
        std::cerr << "replica: " << made.status().to_string() << "\n";
        return 1;
    }
    scout::registry::Replica& replica = *made.value();
    replica.set_on_applied([&embedder](std::uint64_t seq) {
        emit(Json{{"event", "applied"},
                  {"seq", seq},
                  {"t_ns", monotonic_ns()},
                  {"documents_embedded", embedder->documents_embedded()}});
    });
    // Ready only once caught up; the registry may be restarting when this process starts.
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (;;) {
        const scout::Status s = replica.sync();
        if (s.ok()) {
            break;
        }
        if (std::chrono::steady_clock::now() > give_up) {
            std::cerr << "replica: not caught up within 60 s: " << s.to_string() << "\n";
            return 1;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    replica.start();
    emit(Json{{"event", "ready"}, {"applied", replica.applied_seq()}, {"t_ns", monotonic_ns()}});

    std::string line;
    while (std::getline(std::cin, line)) {
        const Json request = Json::parse(line, nullptr, false);
        if (request.is_discarded() || !request.is_object()) {
            emit(Json{{"id", nullptr}, {"error", {{"message", "not a JSON object"}}}});
            continue;
        }
        emit(answer(replica, *embedder, request));
    }
    replica.stop();
    return 0;
}
