// token_budget_json.cpp: see token_budget_json.hpp.
#include "capi/token_budget_json.hpp"

#include <mutex>
#include <utility>

namespace scout::detail {

Result<std::shared_ptr<const TokenCounter>> process_token_counter() {
    static std::mutex mutex;
    static std::shared_ptr<const TokenCounter> loaded;
    const std::lock_guard lock(mutex);
    if (loaded) {
        return loaded;
    }
    auto counter = TokenCounter::load_default(TokenEncoding::cl100k_base);
    if (!counter) {
        return Status{
            counter.status().code(),
            "max_tokens needs the cl100k_base token counter: " + counter.status().message() +
                " (set SCOUT_TOKENIZER_DIR to a folder holding cl100k_base.tiktoken)"};
    }
    loaded = std::make_shared<const TokenCounter>(std::move(counter.value()));
    return loaded;
}

Result<BudgetedHits> budget_hits(const std::vector<Hit>& hits, std::size_t max_tokens) {
    auto counter = process_token_counter();
    if (!counter) {
        return counter.status();
    }
    BudgetOptions options;
    options.max_tokens = max_tokens;
    return fit_to_budget(hits, *counter.value(), options);
}

}  // namespace scout::detail
