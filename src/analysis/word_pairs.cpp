// word_pairs.cpp: see word_pairs.hpp.
#include "analysis/word_pairs.hpp"

#include "analysis/analyzer.hpp"
#include "analysis/stem_memo.hpp"
#include "analysis/term.hpp"

namespace scout::detail {

void append_word_pairs(std::string_view text, std::vector<std::string>& out) {
    static const Analyzer words_only(AnalyzerOptions{.split_identifiers = true,
                                                     .keep_joined_case = false,
                                                     .remove_stop_words = true,
                                                     .stem = false,
                                                     .keep_surface = false,
                                                     .max_token_bytes = 64});
    std::vector<std::string> words;
    words_only.analyze(text, words);
    std::string previous;
    for (const std::string& w : words) {
        std::string stem = memo_porter_stem(w);
        if (!previous.empty()) {
            previous += ' ';
            previous += stem;
            out.push_back(make_term(TermKind::pair, previous));
        }
        previous = std::move(stem);
    }
}

}  // namespace scout::detail
