// stem_memo.cpp: see stem_memo.hpp.
#include "analysis/stem_memo.hpp"

#include <functional>
#include <unordered_map>

#include "analysis/analyzer.hpp"

namespace scout::detail {
namespace {

struct ViewHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept {
        return std::hash<std::string_view>{}(s);
    }
};

struct Memo {
    std::unordered_map<std::string, std::string, ViewHash, std::equal_to<>> stems;
    std::string uncached;  // the answer for a word too long to remember
};

}  // namespace

const std::string& memo_porter_stem(std::string_view word) {
    thread_local Memo memo;
    if (word.size() > kStemMemoMaxBytes) {
        memo.uncached = porter_stem(word);
        return memo.uncached;
    }
    if (auto it = memo.stems.find(word); it != memo.stems.end()) {
        return it->second;
    }
    if (memo.stems.size() >= kStemMemoEntries) {
        memo.stems.clear();  // start afresh: the words in use come back within a few calls
    }
    return memo.stems.emplace(std::string(word), porter_stem(word)).first->second;
}

}  // namespace scout::detail
