// bpe_ranks.cpp: .tiktoken parsing (base64 decode, validation) and the BPE merge loop.
#include "tokens/bpe_ranks.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <functional>
#include <queue>

namespace scout::detail::tokens {
namespace {

constexpr std::array<std::int8_t, 256> kBase64 = [] {
    std::array<std::int8_t, 256> t{};
    t.fill(-1);
    constexpr std::string_view alphabet =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (std::size_t i = 0; i < alphabet.size(); ++i) {
        t[static_cast<unsigned char>(alphabet[i])] = static_cast<std::int8_t>(i);
    }
    return t;
}();

/// Standard base64 with '=' padding; false on any other character or a bad length.
bool base64_decode(std::string_view in, std::string& out) {
    out.clear();
    if (in.empty() || in.size() % 4 != 0) {
        return false;
    }
    std::uint32_t acc = 0;
    int bits = 0;
    std::size_t pad = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
        const char c = in[i];
        if (c == '=') {
            if (i + 2 < in.size()) {
                return false;  // padding only in the last two places
            }
            ++pad;
            continue;
        }
        if (pad != 0) {
            return false;
        }
        const std::int8_t v = kBase64[static_cast<unsigned char>(c)];
        if (v < 0) {
            return false;
        }
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
        if (end == std::string_view::npos) {
            end = text.size();
        }
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        ++line_no;
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        if (line.empty()) {
            continue;
        }
        const auto where = [&] { return origin + ":" + std::to_string(line_no) + ": "; };
        const std::size_t space = line.find(' ');
        if (space == std::string_view::npos) {
            return Status{Errc::corrupt, where() + "expected 'base64 rank'"};
        }
        std::uint32_t rank = 0;
        const std::string_view rank_text = line.substr(space + 1);
        auto [ptr, ec] =
            std::from_chars(rank_text.data(), rank_text.data() + rank_text.size(), rank);
        if (ec != std::errc() || ptr != rank_text.data() + rank_text.size() || rank == kNoRank) {
            return Status{Errc::corrupt,
                          where() + "bad rank '" + std::string(rank_text.substr(0, 20)) + "'"};
        }
        if (!base64_decode(line.substr(0, space), token)) {
            return Status{Errc::corrupt, where() + "bad base64 token"};
        }
        table.max_token_bytes_ = std::max(table.max_token_bytes_, token.size());
        if (!table.ranks_.emplace(token, rank).second) {
            return Status{Errc::corrupt, where() + "repeated token"};
        }
    }
    for (int b = 0; b < 256; ++b) {
        if (table.rank(std::string(1, static_cast<char>(b))) == kNoRank) {
            return Status{Errc::corrupt,
                          origin + ": no rank for the single byte " + std::to_string(b)};
        }
    }
    return table;
}

std::uint32_t BpeRanks::rank(std::string_view bytes) const {
    auto it = ranks_.find(bytes);
    return it == ranks_.end() ? kNoRank : it->second;
}

std::vector<std::size_t> BpeRanks::merge(std::string_view piece) const {
    // tiktoken's byte_pair_merge: repeatedly join the adjacent pair of parts whose concatenation
    // has the lowest rank (leftmost on ties) until no pair has a rank. A min-heap keyed by
    // (rank, start offset) with lazily invalidated entries makes it O(n log n), so a long piece
    // (a megabyte of punctuation) cannot stall the counter.
    const std::size_t n = piece.size();
    std::vector<std::size_t> next(n + 1);
    std::vector<std::size_t> prev(n + 1);
    std::vector<std::uint32_t> version(n + 1, 0);
    for (std::size_t i = 0; i <= n; ++i) {
        next[i] = i + 1;
        prev[i] = i == 0 ? 0 : i - 1;
    }
    // Parts are named by their start offset: part i spans [i, next[i]); n is the end sentinel.
    const auto pair_rank = [&](std::size_t i) -> std::uint32_t {
        if (i >= n || next[i] >= n) {
            return kNoRank;
        }
        const std::size_t len = next[next[i]] - i;
        return len > max_token_bytes_ ? kNoRank : rank(piece.substr(i, len));
    };
    struct Entry {
        std::uint32_t rank;
        std::size_t pos;
        std::uint32_t version;
        bool operator>(const Entry& o) const {
            return rank != o.rank ? rank > o.rank : pos > o.pos;
        }
    };
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
    for (std::size_t i = 0; i + 1 < n; ++i) {
        if (const std::uint32_t r = pair_rank(i); r != kNoRank) {
            heap.push({r, i, 0});
        }
    }
    std::vector<bool> alive(n + 1, true);
    while (!heap.empty()) {
        const Entry e = heap.top();
        heap.pop();
        if (!alive[e.pos] || e.version != version[e.pos]) {
            continue;  // stale
        }
        const std::size_t i = e.pos;
        const std::size_t j = next[i];
        alive[j] = false;
        next[i] = next[j];
        prev[next[j]] = i;
        ++version[i];
        if (const std::uint32_t r = pair_rank(i); r != kNoRank) {
            heap.push({r, i, version[i]});
        }
        if (i > 0) {
            const std::size_t p = prev[i];
            ++version[p];
            if (const std::uint32_t r = pair_rank(p); r != kNoRank) {
                heap.push({r, p, version[p]});
            }
        }
    }
    std::vector<std::size_t> parts;
    for (std::size_t i = 0; i < n; i = next[i]) {
        parts.push_back(i);
    }
    parts.push_back(n);
    return parts;
}

void BpeRanks::encode_piece(std::string_view piece, std::vector<std::uint32_t>& out) const {
    if (piece.empty()) {
        return;
    }
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
    if (piece.empty()) {
        return 0;
    }
    if (rank(piece) != kNoRank) {
        return 1;
    }
    return merge(piece).size() - 1;
}

}  // namespace scout::detail::tokens
