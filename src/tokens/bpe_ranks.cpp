// bpe_ranks.cpp: .tiktoken parsing (base64 decode, validation) and the BPE merge loop.
#include "tokens/bpe_ranks.hpp"

#include <array>
#include <charconv>

namespace scout::tokens {
namespace {

constexpr std::array<std::int8_t, 256> kBase64 = [] {
    std::array<std::int8_t, 256> t{};
    t.fill(-1);
    constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (std::size_t i = 0; i < alphabet.size(); ++i) {
        t[static_cast<unsigned char>(alphabet[i])] = static_cast<std::int8_t>(i);
    }
    return t;
}();

/// Standard base64 with '=' padding; false on any other character or a bad length.
bool base64_decode(std::string_view in, std::string& out) {
    out.clear();
    if (in.empty() || in.size() % 4 != 0) return false;
    std::uint32_t acc = 0;
    int bits = 0;
    std::size_t pad = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
        const char c = in[i];
        if (c == '=') {
            if (i + 2 < in.size()) return false;  // padding only in the last two places
            ++pad;
            continue;
        }
        if (pad != 0) return false;
        const std::int8_t v = kBase64[static_cast<unsigned char>(c)];
        if (v < 0) return false;
        acc = (acc << 6) | static_cast<std::uint32_t>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>((acc >> bits) & 0xFFU);
        }
    }
    return !out.empty();
}

}  // namespace

Result<BpeRanks> BpeRanks::parse(std::string_view text, const std::string& origin) {
    BpeRanks table;
    table.ranks_.reserve(text.size() / 12);
    std::string token;
    std::size_t line_no = 0;
    for (std::size_t pos = 0; pos < text.size();) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        ++line_no;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty()) continue;
        const auto where = [&] { return origin + ":" + std::to_string(line_no) + ": "; };
        const std::size_t space = line.find(' ');
        if (space == std::string_view::npos) {
            return Status{Errc::corrupt, where() + "expected 'base64 rank'"};
        }
        std::uint32_t rank = 0;
        const std::string_view rank_text = line.substr(space + 1);
        auto [ptr, ec] = std::from_chars(rank_text.data(), rank_text.data() + rank_text.size(), rank);
        if (ec != std::errc() || ptr != rank_text.data() + rank_text.size() || rank == kNoRank) {
            return Status{Errc::corrupt, where() + "bad rank '" + std::string(rank_text.substr(0, 20)) + "'"};
        }
        if (!base64_decode(line.substr(0, space), token)) {
            return Status{Errc::corrupt, where() + "bad base64 token"};
        }
        if (!table.ranks_.emplace(token, rank).second) {
            return Status{Errc::corrupt, where() + "repeated token"};
        }
    }
    for (int b = 0; b < 256; ++b) {
        if (table.rank(std::string(1, static_cast<char>(b))) == kNoRank) {
            return Status{Errc::corrupt, origin + ": no rank for the single byte " + std::to_string(b)};
        }
    }
    return table;
}

std::uint32_t BpeRanks::rank(std::string_view bytes) const {
    auto it = ranks_.find(bytes);
    return it == ranks_.end() ? kNoRank : it->second;
}

std::vector<std::size_t> BpeRanks::merge(std::string_view piece) const {
    // parts[i] starts part i; pair_rank[i] is the rank of part i joined with part i+1.
    // Merge the lowest-ranked pair (leftmost on ties) until no pair has a rank. Quadratic in the
    // piece length, which is short for text (pieces are words, numbers, punctuation runs).
    std::vector<std::size_t> parts(piece.size() + 1);
    for (std::size_t i = 0; i <= piece.size(); ++i) parts[i] = i;
    const auto pair_rank = [&](std::size_t i) {
        return i + 2 < parts.size() ? rank(piece.substr(parts[i], parts[i + 2] - parts[i])) : kNoRank;
    };
    std::vector<std::uint32_t> ranks(parts.size());
    for (std::size_t i = 0; i < ranks.size(); ++i) ranks[i] = pair_rank(i);
    while (parts.size() > 2) {
        std::size_t best = 0;
        for (std::size_t i = 1; i + 1 < ranks.size(); ++i) {
            if (ranks[i] < ranks[best]) best = i;
        }
        if (ranks[best] == kNoRank) break;
        parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(best) + 1);
        ranks.erase(ranks.begin() + static_cast<std::ptrdiff_t>(best) + 1);
        ranks[best] = pair_rank(best);
        if (best > 0) ranks[best - 1] = pair_rank(best - 1);
    }
    return parts;
}

void BpeRanks::encode_piece(std::string_view piece, std::vector<std::uint32_t>& out) const {
    if (piece.empty()) return;
    if (const std::uint32_t r = rank(piece); r != kNoRank) {
        out.push_back(r);
        return;
    }
    const std::vector<std::size_t> parts = merge(piece);
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
        out.push_back(rank(piece.substr(parts[i], parts[i + 1] - parts[i])));
    }
}

std::size_t BpeRanks::count_piece(std::string_view piece) const {
    if (piece.empty()) return 0;
    if (rank(piece) != kNoRank) return 1;
    return merge(piece).size() - 1;
}

}  // namespace scout::tokens
