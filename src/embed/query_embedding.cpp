// query_embedding.cpp: see query_embedding.hpp.
#include <future>
#include <thread>

#include "dense/dense_index.hpp"
#include "embed/query_embedding.hpp"

namespace scout {
namespace {

Result<std::vector<float>> embed_now(Embedder& embedder, const std::string& text) {
    try {
        const std::size_t dim = embedder.dim();
        std::string one[1] = {text};
        auto out = embedder.embed(one);
        if (!out) {
            return out.status();
        }
        if (out->size() != dim) {
            return Status{Errc::dimension_mismatch, "embedder returned " + std::to_string(out->size()) +
                                                        " floats, expected " + std::to_string(dim)};
        }
        if (!normalize(out->data(), dim)) {
            return Status{Errc::unavailable, "query embedding is zero or not finite"};
        }
        return out;
    } catch (const std::exception& e) {
        return Status{Errc::unavailable, std::string("embedder threw: ") + e.what()};
    } catch (...) {
        return Status{Errc::unavailable, "embedder threw a non-standard exception"};
    }
}

}  // namespace

Result<std::vector<float>> embed_query(const std::shared_ptr<Embedder>& embedder,
                                       const std::string& text, std::chrono::milliseconds timeout) {
    if (!embedder) {
        return Status{Errc::unavailable, "no embedder configured"};
    }
    if (timeout.count() <= 0) {
        return embed_now(*embedder, text);
    }
    // The helper thread owns what it uses (embedder, text, promise), so abandoning it is safe.
    auto promise = std::make_shared<std::promise<Result<std::vector<float>>>>();
    auto future = promise->get_future();
    try {
        std::thread([embedder, text, promise] { promise->set_value(embed_now(*embedder, text)); }).detach();
    } catch (const std::system_error& e) {
        return Status{Errc::unavailable, std::string("cannot start embedding thread: ") + e.what()};
    }
    if (future.wait_for(timeout) != std::future_status::ready) {
        return Status{Errc::unavailable, "embedder timed out after " + std::to_string(timeout.count()) + " ms"};
    }
    return future.get();
}

}  // namespace scout
