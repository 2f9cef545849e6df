// enhanced_name.hpp: server-qualified tool names that LLM tool APIs accept, and their reverse map.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scout/types.hpp"

#include "util/index_table.hpp"
#include "util/pod_vector.hpp"

namespace scout::detail {

/// Longest enhanced name: the limit of LLM tool-name fields (^[A-Za-z0-9_-]{1,64}$).
inline constexpr std::size_t kMaxEnhancedName = 64;

/// Replaces every character outside [A-Za-z0-9_-] by '_' ("my server.v2" -> "my_server_v2").
[[nodiscard]] std::string sanitize_name_part(std::string_view part);

/// A tool's key, viewed: the strings need to live only while the names are built.
struct ToolKeyView {
    std::string_view server;
    std::string_view tool;
};

/// Enhanced names for a set of tools: "{sanitized_server}_{tool}". A name that would be too long,
/// or that two tools would share, gets a hash suffix instead; when several tools compete for one
/// plain name, the one with the longest server name keeps it (so longest-prefix parsing agrees).
/// Deterministic: the same set of keys always gives the same names, whatever their order.
/// Every name lives in one arena the object owns; views of it stay valid when it is moved.
class EnhancedNames {
public:
    EnhancedNames() = default;
    explicit EnhancedNames(std::span<const ToolKeyView> keys);
    explicit EnhancedNames(const std::vector<ToolKey>& keys);

    /// The name of keys[i].
    [[nodiscard]] std::string_view name(std::size_t i) const noexcept { return text(names_[i]); }
    [[nodiscard]] std::size_t size() const noexcept { return names_.size(); }
    /// Approximate bytes held (arena, arrays, hash tables).
    [[nodiscard]] std::size_t memory_bytes() const noexcept;

    /// Index of the tool an enhanced name denotes: an exact name first, else the longest server
    /// prefix "{sanitized_server}_" whose remainder names one of that server's tools.
    [[nodiscard]] std::optional<std::size_t> resolve(std::string_view name) const;

private:
    struct Span {
        std::uint32_t offset;
        std::uint32_t size;
    };

    [[nodiscard]] std::string_view text(Span span) const noexcept {
        return {arena_.data() + span.offset, span.size};
    }
    /// Writes the plain name of every key into the arena; returns whether the keys are strictly
    /// by (server, tool), as a staged catalog gives them.
    bool write_plain_names(std::span<const ToolKeyView> keys);
    void claim_names(std::span<const ToolKeyView> keys,
                     bool by_key,
                     const std::vector<std::uint64_t>& hashes);
    void index_server_tools(const std::vector<std::uint64_t>& hashes);
    /// resolve() of a name that is no exact name; `word` is its word_hash.
    [[nodiscard]] std::optional<std::size_t> resolve_by_server(std::string_view name,
                                                               std::uint64_t word) const;

    /// The plain names "{sanitized_server}_{sanitized_tool}" in key order, then the hashed names.
    PodVector<char> arena_;
    PodVector<Span> plain_;                 // of keys[i]
    PodVector<std::uint32_t> server_size_;  // of keys[i]: plain_[i] starts with its server
    PodVector<Span> names_;                 // of keys[i]
    IndexTable by_name_;                    // name -> i
    /// (sanitized server, sanitized tool) -> the first i with them, for prefix resolution:
    /// hashed as the plain name and the server's length.
    IndexTable by_server_tool_;
    std::size_t longest_server_ = 0;
};

}  // namespace scout::detail
