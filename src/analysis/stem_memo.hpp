// stem_memo.hpp: porter_stem behind a bounded memo of each thread's own. Indexing and every
// query stem the same few thousand words again and again (a query's words are stemmed by its
// terms, its lexicon lookup, its compounds and its word pairs); a hash lookup costs a fraction
// of the stemmer's five steps, and the result is the same by construction. The memo also keeps
// the hashes a vocabulary lookup needs (word_hash of the word, of its stem and of its stem term),
// so a query hashes each word once however many of its terms are looked up.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace scout::detail {

/// Distinct words a thread's memo holds before it starts afresh (in 16,384 slots of 128 bytes,
/// about 2.1 MB).
inline constexpr std::size_t kStemMemoEntries = 12288;
/// Longer words are stemmed without being remembered.
inline constexpr std::size_t kStemMemoMaxBytes = 32;

/// A word's stem and the hashes of its terms. The views stay valid until this thread's next call
/// of memo_stem or memo_porter_stem.
struct MemoStem {
    std::uint64_t word_hash = 0;  ///< word_hash(word)
    std::string_view stem;        ///< porter_stem(word)
    std::uint64_t stem_hash = 0;  ///< word_hash(stem)
    std::string_view stem_term;   ///< make_term(TermKind::stem, stem)
    std::uint64_t stem_term_hash = 0;
};

/// porter_stem(word) with its hashes, from the memo.
[[nodiscard]] MemoStem memo_stem(std::string_view word);

/// porter_stem(word). The reference stays valid until this thread's next call.
[[nodiscard]] const std::string& memo_porter_stem(std::string_view word);

}  // namespace scout::detail
