// token_counter.cpp: TokenCounter: loading rank files and encoding text (split, then merge).
#include "scout/token_counter.hpp"

#include <cstdlib>
#include <new>
#include <string>
#include <system_error>

#include "tokens/bpe_ranks.hpp"
#include "tokens/pretokenizer.hpp"
#include "util/data_dir.hpp"
#include "util/file_io.hpp"

namespace scout {
namespace {

/// The rank files are 1.7 MB (cl100k) and 3.6 MB (o200k); a larger file is not one of them.
constexpr std::size_t kMaxRankFileBytes = std::size_t{64} << 20;

std::string rank_file_name(TokenEncoding encoding) {
    return std::string(token_encoding_name(encoding)) + ".tiktoken";
}

}  // namespace

std::string_view token_encoding_name(TokenEncoding encoding) noexcept {
    return encoding == TokenEncoding::cl100k_base ? "cl100k_base" : "o200k_base";
}

std::optional<TokenEncoding> parse_token_encoding(std::string_view text) noexcept {
    if (text == "cl100k_base") {
        return TokenEncoding::cl100k_base;
    }
    if (text == "o200k_base") {
        return TokenEncoding::o200k_base;
    }
    return std::nullopt;
}

Result<TokenCounter> TokenCounter::load(TokenEncoding encoding,
                                        const std::filesystem::path& rank_file) {
    try {
        auto text = detail::read_text_file(rank_file, kMaxRankFileBytes);
        if (!text) {
            return text.status();
        }
        auto table = detail::tokens::BpeRanks::parse(text.value(), rank_file.string());
        if (!table) {
            return table.status();
        }
        return TokenCounter(
            encoding, std::make_shared<const detail::tokens::BpeRanks>(std::move(table.value())));
    } catch (const std::bad_alloc&) {
        return Status{Errc::internal, "out of memory loading " + rank_file.string()};
    }
}

std::vector<std::filesystem::path> TokenCounter::default_rank_dirs() {
    std::vector<std::filesystem::path> dirs;
    if (const char* dir = std::getenv("SCOUT_TOKENIZER_DIR"); dir != nullptr && *dir != '\0') {
        dirs.emplace_back(dir);
    }
    for (const std::filesystem::path& dir : detail::data_dirs()) {
        dirs.push_back(dir / "tokenizer");
    }
    dirs.push_back(detail::cache_dir() / "tokenizer");
    return dirs;
}

std::filesystem::path TokenCounter::default_rank_dir() {
    const std::vector<std::filesystem::path> dirs = default_rank_dirs();
    std::error_code ec;
    for (const std::filesystem::path& dir : dirs) {
        for (TokenEncoding encoding : {TokenEncoding::cl100k_base, TokenEncoding::o200k_base}) {
            if (std::filesystem::is_regular_file(dir / rank_file_name(encoding), ec)) {
                return dir;
            }
        }
    }
    return dirs.front();
}

Result<TokenCounter> TokenCounter::load_default(TokenEncoding encoding) {
    std::string looked;
    std::error_code ec;
    for (const std::filesystem::path& dir : default_rank_dirs()) {
        const std::filesystem::path file = dir / rank_file_name(encoding);
        if (std::filesystem::is_regular_file(file, ec)) {
            return load(encoding, file);
        }
        looked += (looked.empty() ? "" : ", ") + dir.string();
    }
    return Status{Errc::not_found,
                  rank_file_name(encoding) + " is in none of: " + looked +
                      " (set SCOUT_TOKENIZER_DIR to its folder; a source checkout downloads "
                      "the rank files with scripts/fetch.d/20-tokenizer.sh)"};
}

std::vector<std::uint32_t> TokenCounter::encode(std::string_view text) const {
    const detail::tokens::DecodedText decoded = detail::tokens::decode_utf8(text);
    std::vector<std::uint32_t> out;
    out.reserve(text.size() / 3);
    for (const detail::tokens::Piece& p : detail::tokens::split_pieces(decoded.cps, encoding_)) {
        const std::size_t begin = decoded.offset[p.begin];
        ranks_->encode_piece(
            std::string_view(decoded.bytes).substr(begin, decoded.offset[p.end] - begin), out);
    }
    return out;
}

std::size_t TokenCounter::count(std::string_view text) const {
    const detail::tokens::DecodedText decoded = detail::tokens::decode_utf8(text);
    std::size_t total = 0;
    for (const detail::tokens::Piece& p : detail::tokens::split_pieces(decoded.cps, encoding_)) {
        const std::size_t begin = decoded.offset[p.begin];
        total += ranks_->count_piece(
            std::string_view(decoded.bytes).substr(begin, decoded.offset[p.end] - begin));
    }
    return total;
}

std::size_t TokenCounter::vocabulary_size() const noexcept {
    return ranks_->size();
}

}  // namespace scout
