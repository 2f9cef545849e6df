// bpe_ranks.hpp: a byte-level BPE rank table (token bytes -> rank) read from a .tiktoken file,
// and the rank-ordered merge that turns one pre-tokenized piece into token ids.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "scout/status.hpp"

namespace scout::detail::tokens {

class BpeRanks {
public:
    /// Parses "base64 rank" lines. Errors (corrupt) name the line; every single byte must have a
    /// rank.
    [[nodiscard]] static Result<BpeRanks> parse(std::string_view text, const std::string& origin);

    /// Appends the token ids of one piece (its UTF-8 bytes) to `out`.
    void encode_piece(std::string_view piece, std::vector<std::uint32_t>& out) const;

    /// Number of tokens of one piece.
    [[nodiscard]] std::size_t count_piece(std::string_view piece) const;

    [[nodiscard]] std::size_t size() const noexcept { return ranks_.size(); }

private:
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const noexcept {
            return std::hash<std::string_view>{}(s);
        }
    };
    static constexpr std::uint32_t kNoRank = UINT32_MAX;

    [[nodiscard]] std::uint32_t rank(std::string_view bytes) const;
    /// Boundaries of the merged parts of `piece` (tiktoken's byte_pair_merge): size parts+1.
    [[nodiscard]] std::vector<std::size_t> merge(std::string_view piece) const;

    std::unordered_map<std::string, std::uint32_t, Hash, std::equal_to<>> ranks_;
    std::size_t max_token_bytes_ = 0;  ///< longer concatenations cannot have a rank
};

}  // namespace scout::detail::tokens
