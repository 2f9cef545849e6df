// transformer_embedder.cpp: TransformerEmbedder's methods and the batched forward pass: texts
// are sorted by length, packed into passes of at most batch_tokens tokens (no padding: each
// sequence attends over its own rows), and the passes are shared among `threads` threads.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <system_error>
#include <thread>

#include "transformer/transformer_impl.hpp"

namespace scout {
namespace {

/// Sequences [first, last) of `order` form one forward pass.
struct Pass {
    std::size_t first;
    std::size_t last;
    std::size_t tokens;
    std::size_t longest;
};

std::vector<Pass> plan_passes(const std::vector<std::vector<std::int32_t>>& ids,
                              const std::vector<std::size_t>& order,
                              std::size_t budget) {
    std::vector<Pass> passes;
    std::size_t i = 0;
    while (i < order.size()) {
        Pass p{i, i, 0, 0};
        while (p.last < order.size() &&
               (p.last == p.first || p.tokens + ids[order[p.last]].size() <= budget)) {
            p.tokens += ids[order[p.last]].size();
            p.longest = std::max(p.longest, ids[order[p.last]].size());
            ++p.last;
        }
        passes.push_back(p);
        i = p.last;
    }
    return passes;
}

}  // namespace

std::vector<float> TransformerEmbedder::Impl::embed_ids(
    const std::vector<std::vector<std::int32_t>>& ids) const {
    const detail::bert::EncoderView& view = model->view();
    const std::size_t h = view.hidden;
    std::vector<float> out(ids.size() * h, 0.0f);
    std::vector<std::size_t> order;  // empty sequences (no post-processor, empty text) stay zero
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (!ids[i].empty()) {
            order.push_back(i);
        }
    }
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return ids[a].size() < ids[b].size();
    });
    const std::vector<Pass> passes =
        plan_passes(ids, order, std::max<std::size_t>(batch_tokens, 1));
    if (passes.empty()) {
        return out;
    }

    std::atomic<std::size_t> next{0};
    auto worker = [&]() {
        std::vector<float> hidden, qkv, ctx, ffn, scores;
        std::vector<std::int32_t> packed;
        std::vector<std::size_t> offsets;
        for (std::size_t k = next.fetch_add(1); k < passes.size(); k = next.fetch_add(1)) {
            const Pass& p = passes[k];
            packed.clear();
            offsets.assign(1, 0);
            for (std::size_t j = p.first; j < p.last; ++j) {
                const auto& seq = ids[order[j]];
                packed.insert(packed.end(), seq.begin(), seq.end());
                offsets.push_back(packed.size());
            }
            hidden.resize(p.tokens * h);
            qkv.resize(p.tokens * 3 * h);
            ctx.resize(p.tokens * h);
            ffn.resize(p.tokens * view.intermediate);
            scores.resize(p.longest * p.longest);
            kernels->encode(view,
                            packed.data(),
                            offsets.data(),
                            p.last - p.first,
                            detail::bert::Workspace{
                                hidden.data(), qkv.data(), ctx.data(), ffn.data(), scores.data()});
            for (std::size_t j = p.first; j < p.last; ++j) {
                const std::size_t s = j - p.first;
                const float* rows = hidden.data() + offsets[s] * h;
                const std::size_t len = offsets[s + 1] - offsets[s];
                float* dst = out.data() + order[j] * h;
                if (pooling == TransformerPooling::cls) {
                    std::copy(rows, rows + h, dst);
                } else {
                    for (std::size_t t = 0; t < len; ++t) {
                        for (std::size_t c = 0; c < h; ++c) {
                            dst[c] += rows[t * h + c];
                        }
                    }
                    for (std::size_t c = 0; c < h; ++c) {
                        dst[c] /= static_cast<float>(len);
                    }
                }
                if (normalize) {
                    double norm = 0;
                    for (std::size_t c = 0; c < h; ++c) {
                        norm += static_cast<double>(dst[c]) * static_cast<double>(dst[c]);
                    }
                    // sentence-transformers' Normalize divides by max(norm, 1e-12).
                    const float inv = static_cast<float>(1.0 / std::max(std::sqrt(norm), 1e-12));
                    for (std::size_t c = 0; c < h; ++c) {
                        dst[c] *= inv;
                    }
                }
            }
        }
    };
    const std::size_t helpers = std::min(std::max<std::size_t>(threads, 1), passes.size()) - 1;
    std::vector<std::thread> pool;
    try {
        for (std::size_t t = 0; t < helpers; ++t) {
            pool.emplace_back(worker);
        }
    } catch (const std::system_error&) {
        // Fewer threads than asked (the system refused one): the ones running share the passes.
    }
    std::exception_ptr mine;
    try {
        worker();
    } catch (...) {
        mine = std::current_exception();
    }
    for (std::thread& t : pool) {
        t.join();
    }
    if (mine) {
        std::rethrow_exception(mine);
    }
    return out;
}

TransformerEmbedder::TransformerEmbedder(std::shared_ptr<const Impl> impl)
    : impl_(std::move(impl)) {}

std::string TransformerEmbedder::model_id() const {
    return impl_->model_id;
}

std::size_t TransformerEmbedder::dim() const {
    return impl_->model->config().hidden;
}

std::size_t TransformerEmbedder::max_length() const {
    return impl_->max_length;
}

std::string TransformerEmbedder::isa() const {
    return impl_->kernels->isa;
}

std::vector<std::int32_t> TransformerEmbedder::token_ids(std::string_view text) const {
    return impl_->tokenizer->encode(text, impl_->max_length);
}

Result<std::vector<float>> TransformerEmbedder::embed(std::span<const std::string> texts) {
    try {
        std::vector<std::vector<std::int32_t>> ids;
        ids.reserve(texts.size());
        for (const std::string& text : texts) {
            ids.push_back(token_ids(text));
        }
        return impl_->embed_ids(ids);
    } catch (const std::bad_alloc&) {
        return Status{Errc::internal, "transformer embedder: out of memory"};
    } catch (const std::exception& e) {
        return Status{Errc::internal, std::string("transformer embedder: ") + e.what()};
    }
}

}  // namespace scout
