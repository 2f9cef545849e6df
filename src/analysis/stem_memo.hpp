// stem_memo.hpp: porter_stem behind a bounded memo of each thread's own. Indexing and every
// query stem the same few thousand words again and again (a query's words are stemmed by its
// terms, its lexicon lookup, its compounds and its word pairs); a hash lookup costs a fraction
// of the stemmer's five steps, and the result is the same by construction.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace scout::detail {

/// Distinct words a thread's memo holds before it starts afresh (in 16,384 slots, about 1.3 MB).
inline constexpr std::size_t kStemMemoEntries = 12288;
/// Longer words are stemmed without being remembered.
inline constexpr std::size_t kStemMemoMaxBytes = 32;

/// porter_stem(word). The reference stays valid until this thread's next call.
[[nodiscard]] const std::string& memo_porter_stem(std::string_view word);

}  // namespace scout::detail
