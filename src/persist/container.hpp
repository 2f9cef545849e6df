// container.hpp: the checksummed section container of an index file (docs/FORMAT.md): a 64-byte
// header, a section table, 64-byte aligned sections and a footer. Knows nothing of what the
// sections hold; index_codec.cpp does.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scout/status.hpp"

namespace scout::detail {

inline constexpr char kFileMagic[8] = {'S', 'C', 'O', 'U', 'T', 'I', 'D', 'X'};
inline constexpr char kFooterMagic[8] = {'S', 'C', 'O', 'U', 'T', 'E', 'N', 'D'};
inline constexpr std::size_t kHeaderBytes = 64;
inline constexpr std::size_t kTableEntryBytes = 32;
inline constexpr std::size_t kFooterBytes = 16;
inline constexpr std::size_t kSectionAlign = 64;
inline constexpr std::size_t kMaxSections = 64;

/// Four ASCII characters as stored in the file (first character in the lowest byte).
[[nodiscard]] constexpr std::uint32_t fourcc(const char (&s)[5]) noexcept {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(s[0])) |
           static_cast<std::uint32_t>(static_cast<unsigned char>(s[1])) << 8U |
           static_cast<std::uint32_t>(static_cast<unsigned char>(s[2])) << 16U |
           static_cast<std::uint32_t>(static_cast<unsigned char>(s[3])) << 24U;
}

struct SectionOut {
    std::uint32_t kind = 0;     ///< fourcc
    std::uint32_t version = 1;  ///< the section's own layout version
    std::string bytes;
};

struct SectionView {
    std::uint32_t kind = 0;
    std::uint32_t version = 0;
    std::span<const std::uint8_t> bytes;  ///< points into the buffer given to read_container
    std::uint32_t crc = 0;                ///< from the section table; see verify_section
};

/// corrupt unless the section's bytes match its checksum. A reader calls it before a section's
/// first use, so a section it never reads is never hashed.
[[nodiscard]] Status verify_section(const SectionView& section);

struct ContainerView {
    std::uint16_t major = 0;
    std::uint16_t minor = 0;
    std::vector<SectionView> sections;
    [[nodiscard]] const SectionView* find(std::uint32_t kind) const noexcept;
};

/// The whole file image.
[[nodiscard]] std::string write_container(std::uint16_t major,
                                          std::uint16_t minor,
                                          const std::vector<SectionOut>& sections);

/// Verifies the structure of `file`: header, table and footer checksums, section bounds,
/// alignment, order and zero padding (section checksums: verify_section). corrupt for any damage
/// or truncation,
/// version_unsupported for a format major outside [oldest_major, current_major].
[[nodiscard]] Result<ContainerView> read_container(std::span<const std::uint8_t> file,
                                                   std::uint16_t oldest_major,
                                                   std::uint16_t current_major);

}  // namespace scout::detail
