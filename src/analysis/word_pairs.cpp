// word_pairs.cpp: see word_pairs.hpp.
#include "analysis/word_pairs.hpp"

#include "analysis/analyzer.hpp"
#include "analysis/stem_memo.hpp"
#include "analysis/term.hpp"

namespace scout::detail {

std::vector<std::string> plain_words(std::string_view text) {
    static const Analyzer plain(AnalyzerOptions{.split_identifiers = true,
                                                .keep_joined_case = false,
                                                .remove_stop_words = false,
                                                .stem = false,
                                                .keep_surface = false,
                                                .max_token_bytes = 64});
    return plain.analyze(text);
}

void append_word_pairs_of(const std::vector<std::string>& plain, std::vector<std::string>& out) {
    // The analyzer drops a stop word after cutting it, as plain_words cut it: skipping them
    // here gives the words a stop-word-removing analyzer would.
    std::string previous;
    for (const std::string& w : plain) {
        if (is_stop_word(w)) {
            continue;
        }
        std::string stem = memo_porter_stem(w);
        if (!previous.empty()) {
            previous += ' ';
            previous += stem;
            out.push_back(make_term(TermKind::pair, previous));
        }
        previous = std::move(stem);
    }
}

void append_word_pairs(std::string_view text, std::vector<std::string>& out) {
    append_word_pairs_of(plain_words(text), out);
}

}  // namespace scout::detail
