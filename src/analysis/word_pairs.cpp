// word_pairs.cpp: see word_pairs.hpp. The pair terms themselves are made by the term pipeline
// (term_pipeline.hpp), as a query's are.
#include "analysis/word_pairs.hpp"

#include "analysis/analyzer.hpp"
#include "analysis/term_pipeline.hpp"

namespace scout::detail {

std::vector<std::string> plain_words(std::string_view text) {
    static const Analyzer plain(AnalyzerOptions{.split_identifiers = true,
                                                .keep_joined_case = false,
                                                .remove_stop_words = false,
                                                .stem = false,
                                                .keep_surface = false,
                                                .max_token_bytes = kPlainWordBytes});
    return plain.analyze(text);
}

void append_word_pairs_of(const std::vector<std::string>& plain, std::vector<std::string>& out) {
    PairTerms pairs;
    StringTermSink sink{out};
    for (const std::string& w : plain) {
        pairs.add(w, 1.0f, sink);
    }
}

void append_word_pairs(std::string_view text, std::vector<std::string>& out) {
    append_word_pairs_of(plain_words(text), out);
}

}  // namespace scout::detail
