// enhanced_name.cpp: "{sanitized_server}_{tool}" names, collision-safe and <= 64 characters.
#include "document/enhanced_name.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "util/hash.hpp"
#include "util/word_hash.hpp"

namespace scout::detail {
namespace {

constexpr bool is_name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

/// Each byte as sanitize_name_part writes it: itself or '_'.
constexpr std::array<char, 256> kSanitized = [] {
    std::array<char, 256> table{};
    for (std::size_t b = 0; b < table.size(); ++b) {
        const auto c = static_cast<char>(b);
        table[b] = is_name_char(c) ? c : '_';
    }
    return table;
}();

char* write_sanitized(std::string_view part, char* out) {
    for (char c : part) {
        *out++ = kSanitized[static_cast<unsigned char>(c)];
    }
    return out;
}

/// Whether two views show the same bytes. The tools of a staged server view one server string,
/// so consecutive keys' servers are often the same bytes.
bool same_bytes(std::string_view a, std::string_view b) {
    return a.data() == b.data() && a.size() == b.size();
}

/// Whether key `a` comes strictly before key `b` by (server, tool).
bool before(const ToolKeyView& a, const ToolKeyView& b) {
    const bool same_server = same_bytes(a.server, b.server) || a.server == b.server;
    return same_server ? a.tool < b.tool : a.server < b.server;
}

/// Hash of a name in by_name_, from its word_hash.
std::uint32_t name_hash(std::uint64_t word) {
    return static_cast<std::uint32_t>(word);
}

/// Hash of a (sanitized server, sanitized tool) pair in by_server_tool_, from the word_hash of
/// its plain name "{server}_{tool}" and the server's length (the tool may contain '_').
std::uint32_t server_tool_hash(std::uint64_t plain_word, std::size_t server_size) {
    return static_cast<std::uint32_t>(mix64(plain_word ^ (server_size * 0x9E3779B97F4A7C15ULL)));
}

void append_hex8(std::uint64_t v, std::string& out) {
    static constexpr std::string_view kDigits = "0123456789abcdef";
    for (int shift = 28; shift >= 0; shift -= 4) {
        out.push_back(kDigits[(v >> shift) & 0xFU]);
    }
}

/// A hashed name: the plain name cut short, then "_" and 8 hex digits of the key's hash.
/// `salt` picks other hash bits in the (astronomically rare) case of a second collision.
std::string hashed_name(std::string_view plain, const ToolKeyView& key, unsigned salt) {
    std::uint64_t h = fnv1a(key.tool, fnv1a(std::string_view("\0", 1), fnv1a(key.server)));
    h = mix64(h + salt);
    std::string name(plain.substr(0, kMaxEnhancedName - 9));
    name.push_back('_');
    append_hex8(h, name);
    return name;
}

/// Key indices by server length, longest first, stably (a counting sort).
std::vector<std::uint32_t> by_server_length(std::span<const ToolKeyView> keys,
                                            std::size_t longest) {
    std::vector<std::uint32_t> starts(longest + 2, 0);
    for (const ToolKeyView& key : keys) {
        ++starts[longest - key.server.size() + 1];
    }
    std::partial_sum(starts.begin(), starts.end(), starts.begin());
    std::vector<std::uint32_t> order(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
        order[starts[longest - keys[i].server.size()]++] = static_cast<std::uint32_t>(i);
    }
    return order;
}

/// The order in which keys claim their plain names: longest server first, then by key.
/// `by_key`: the keys are strictly by (server, tool) already, as a staged catalog gives them.
std::vector<std::uint32_t> claim_order(std::span<const ToolKeyView> keys,
                                       std::size_t longest,
                                       bool by_key) {
    if (by_key) {
        // A stable sort by server length completes the order.
        return by_server_length(keys, longest);
    }
    std::vector<std::uint32_t> order(keys.size());
    std::iota(order.begin(), order.end(), std::uint32_t{0});
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        if (keys[a].server.size() != keys[b].server.size()) {
            return keys[a].server.size() > keys[b].server.size();
        }
        if (keys[a].server != keys[b].server) {
            return keys[a].server < keys[b].server;
        }
        return keys[a].tool < keys[b].tool;
    });
    return order;
}

std::vector<ToolKeyView> views_of(const std::vector<ToolKey>& keys) {
    std::vector<ToolKeyView> views;
    views.reserve(keys.size());
    for (const ToolKey& key : keys) {
        views.push_back({key.server, key.tool});
    }
    return views;
}

}  // namespace

std::string sanitize_name_part(std::string_view part) {
    std::string out(part.size(), '_');
    write_sanitized(part, out.data());
    return out;
}

EnhancedNames::EnhancedNames(const std::vector<ToolKey>& keys) : EnhancedNames(views_of(keys)) {}

EnhancedNames::EnhancedNames(std::span<const ToolKeyView> keys) {
    const bool by_key = write_plain_names(keys);
    std::vector<std::uint64_t> hashes(keys.size());  // word_hash of each plain name
    for (std::size_t i = 0; i < keys.size(); ++i) {
        hashes[i] = word_hash(text(plain_[i]));
    }
    claim_names(keys, by_key, hashes);
    index_server_tools(hashes);
}

bool EnhancedNames::write_plain_names(std::span<const ToolKeyView> keys) {
    std::size_t bytes = 0;
    for (const ToolKeyView& key : keys) {
        bytes += key.server.size() + 1 + key.tool.size();
    }
    // Room for a hashed name per key, so every offset fits in 32 bits.
    if (keys.size() >= IndexTable::kNone ||
        bytes + keys.size() * kMaxEnhancedName > std::numeric_limits<std::uint32_t>::max()) {
        throw std::length_error("enhanced names: too many tools or names too long");
    }
    arena_.resize(bytes);
    plain_.resize(keys.size());
    server_size_.resize(keys.size());
    names_.resize(keys.size());
    bool by_key = true;
    char* out = arena_.data();
    // One pass over the keys, whose strings are scattered over the heap: order check and copy.
    for (std::size_t i = 0; i < keys.size(); ++i) {
        const ToolKeyView& key = keys[i];
        by_key = by_key && (i == 0 || before(keys[i - 1], key));
        plain_[i] = {static_cast<std::uint32_t>(out - arena_.data()),
                     static_cast<std::uint32_t>(key.server.size() + 1 + key.tool.size())};
        server_size_[i] = static_cast<std::uint32_t>(key.server.size());
        longest_server_ = std::max(longest_server_, key.server.size());
        if (i > 0 && same_bytes(keys[i - 1].server, key.server)) {
            out = std::copy_n(arena_.data() + plain_[i - 1].offset, key.server.size(), out);
        } else {
            out = write_sanitized(key.server, out);
        }
        *out++ = '_';
        out = write_sanitized(key.tool, out);
    }
    return by_key;
}

void EnhancedNames::claim_names(std::span<const ToolKeyView> keys,
                                bool by_key,
                                const std::vector<std::uint64_t>& hashes) {
    // Claim plain names in a fixed order (longest server first, then by key) so the winner of a
    // collision does not depend on insertion order and agrees with longest-prefix resolution.
    by_name_ = IndexTable(keys.size());
    std::vector<std::uint32_t> deferred;
    for (std::uint32_t i : claim_order(keys, longest_server_, by_key)) {
        const std::string_view plain = text(plain_[i]);
        names_[i] = plain_[i];
        if (plain.size() > kMaxEnhancedName ||
            by_name_.insert(
                name_hash(hashes[i]), i, [&](std::uint32_t j) { return name(j) == plain; }) != i) {
            deferred.push_back(i);
        }
    }
    arena_.reserve(arena_.size() + deferred.size() * kMaxEnhancedName);
    for (std::uint32_t i : deferred) {
        for (unsigned salt = 0;; ++salt) {
            const std::string candidate = hashed_name(text(plain_[i]), keys[i], salt);
            if (by_name_.insert(name_hash(word_hash(candidate)), i, [&](std::uint32_t j) {
                    return name(j) == candidate;
                }) == i) {
                names_[i] = {static_cast<std::uint32_t>(arena_.size()),
                             static_cast<std::uint32_t>(candidate.size())};
                arena_.insert(arena_.end(), candidate.begin(), candidate.end());
                break;
            }
        }
    }
}

void EnhancedNames::index_server_tools(const std::vector<std::uint64_t>& hashes) {
    by_server_tool_ = IndexTable(plain_.size());
    for (std::uint32_t i = 0; i < plain_.size(); ++i) {
        // A pair that repeats (sanitizing made two keys equal) keeps its first key.
        by_server_tool_.insert(
            server_tool_hash(hashes[i], server_size_[i]), i, [&](std::uint32_t j) {
                return server_size_[j] == server_size_[i] && text(plain_[j]) == text(plain_[i]);
            });
    }
}

std::optional<std::size_t> EnhancedNames::resolve(std::string_view name) const {
    const std::uint64_t word = word_hash(name);
    const std::uint32_t exact =
        by_name_.find(name_hash(word), [&](std::uint32_t j) { return this->name(j) == name; });
    if (exact != IndexTable::kNone) {
        return exact;
    }
    return resolve_by_server(name, word);
}

std::optional<std::size_t> EnhancedNames::resolve_by_server(std::string_view name,
                                                            std::uint64_t word) const {
    // "{server}_{tool}" where the server itself may contain '_': the server part is a sanitized
    // server, so it ends before the first character that needs sanitizing.
    const auto clean = static_cast<std::size_t>(
        std::find_if_not(name.begin(), name.end(), is_name_char) - name.begin());
    const std::size_t longest =
        std::min({longest_server_, clean, name.empty() ? std::size_t{0} : name.size() - 1});
    if (longest == 0) {
        return std::nullopt;
    }
    // Whatever the split, the pair's plain name is the whole name sanitized.
    std::string sanitized;
    std::string_view plain = name;
    if (clean < name.size()) {
        sanitized = sanitize_name_part(name);
        plain = sanitized;
        word = word_hash(plain);
    }
    for (std::size_t len = longest; len > 0; --len) {  // longest server prefix first
        if (name[len] != '_') {
            continue;
        }
        const std::uint32_t i = by_server_tool_.find(
            server_tool_hash(word, len),
            [&](std::uint32_t j) { return server_size_[j] == len && text(plain_[j]) == plain; });
        if (i != IndexTable::kNone) {
            return i;
        }
    }
    return std::nullopt;
}

std::size_t EnhancedNames::memory_bytes() const noexcept {
    return arena_.capacity() + plain_.capacity() * sizeof(Span) +
           server_size_.capacity() * sizeof(std::uint32_t) + names_.capacity() * sizeof(Span) +
           by_name_.memory_bytes() + by_server_tool_.memory_bytes();
}

}  // namespace scout::detail
