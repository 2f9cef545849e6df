// container.cpp: writing and verifying the section container. The reader trusts no length:
// every offset is checked against the buffer size (with overflow-safe arithmetic) before use,
// and every byte is covered by a checksum or compared against a known value.
#include "persist/container.hpp"

#include <cstring>

#include "persist/crc32c.hpp"
#include "util/fuzzing_mode.hpp"

namespace scout::detail {
namespace {

void put_u16(std::string& out, std::size_t at, std::uint16_t v) {
    out[at] = static_cast<char>(v & 0xFFU);
    out[at + 1] = static_cast<char>(v >> 8U);
}
void put_u32(std::string& out, std::size_t at, std::uint32_t v) {
    for (std::size_t i = 0; i < 4; ++i) {
        out[at + i] = static_cast<char>((v >> (8U * i)) & 0xFFU);
    }
}
void put_u64(std::string& out, std::size_t at, std::uint64_t v) {
    for (std::size_t i = 0; i < 8; ++i) {
        out[at + i] = static_cast<char>((v >> (8U * i)) & 0xFFU);
    }
}
std::uint64_t get_le(std::span<const std::uint8_t> in, std::size_t at, std::size_t n) {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < n; ++i) {
        v |= std::uint64_t{in[at + i]} << (8U * i);
    }
    return v;
}
std::uint16_t get_u16(std::span<const std::uint8_t> in, std::size_t at) {
    return static_cast<std::uint16_t>(get_le(in, at, 2));
}
std::uint32_t get_u32(std::span<const std::uint8_t> in, std::size_t at) {
    return static_cast<std::uint32_t>(get_le(in, at, 4));
}
std::uint64_t get_u64(std::span<const std::uint8_t> in, std::size_t at) {
    return get_le(in, at, 8);
}

std::size_t align_up(std::size_t n) {
    return (n + kSectionAlign - 1) / kSectionAlign * kSectionAlign;
}

bool all_zero(std::span<const std::uint8_t> bytes) {
    for (std::uint8_t b : bytes) {
        if (b != 0) {
            return false;
        }
    }
    return true;
}

/// True when a stored checksum matches (or a fuzz target asked to skip checksums).
bool checksum_ok(std::uint32_t stored, const void* data, std::size_t size) {
    return checksums_skipped_for_fuzzing() || stored == crc32c(data, size);
}

Status corrupt(const std::string& why) {
    return {Errc::corrupt, "index file is corrupt: " + why};
}

std::string kind_text(std::uint32_t kind) {
    std::string s(4, '?');
    for (std::size_t i = 0; i < 4; ++i) {
        const auto c = static_cast<char>((kind >> (8U * i)) & 0xFFU);
        s[i] = c >= 0x20 && c < 0x7F ? c : '?';
    }
    return s;
}

}  // namespace

Status verify_section(const SectionView& section) {
    if (!checksum_ok(section.crc, section.bytes.data(), section.bytes.size())) {
        return corrupt("section " + kind_text(section.kind) + " checksum mismatch");
    }
    return {};
}

const SectionView* ContainerView::find(std::uint32_t kind) const noexcept {
    for (const SectionView& s : sections) {
        if (s.kind == kind) {
            return &s;
        }
    }
    return nullptr;
}

std::string write_container(std::uint16_t major,
                            std::uint16_t minor,
                            const std::vector<SectionOut>& sections) {
    const std::size_t table_end = kHeaderBytes + sections.size() * kTableEntryBytes;
    std::vector<std::size_t> offsets;
    std::size_t pos = align_up(table_end);
    for (const SectionOut& s : sections) {
        offsets.push_back(pos);
        pos = align_up(pos + s.bytes.size());
    }
    const std::size_t file_length = pos + kFooterBytes;
    std::string out(file_length, '\0');

    for (std::size_t i = 0; i < sections.size(); ++i) {
        const SectionOut& s = sections[i];
        std::memcpy(out.data() + offsets[i], s.bytes.data(), s.bytes.size());
        const std::size_t e = kHeaderBytes + i * kTableEntryBytes;
        put_u32(out, e, s.kind);
        put_u32(out, e + 4, s.version);
        put_u64(out, e + 8, offsets[i]);
        put_u64(out, e + 16, s.bytes.size());
        put_u32(out, e + 24, crc32c(s.bytes.data(), s.bytes.size()));
        // e + 28: reserved, zero
    }
    std::memcpy(out.data(), kFileMagic, 8);
    put_u16(out, 8, major);
    put_u16(out, 10, minor);
    put_u32(out, 12, 0);  // flags
    put_u32(out, 16, static_cast<std::uint32_t>(kHeaderBytes));
    put_u32(out, 20, static_cast<std::uint32_t>(sections.size()));
    put_u64(out, 24, file_length);
    put_u64(out, 32, kHeaderBytes);  // table offset
    put_u32(out, 40, crc32c(out.data() + kHeaderBytes, table_end - kHeaderBytes));
    // 44..59: reserved, zero
    put_u32(out, 60, crc32c(out.data(), 60));
    put_u64(out, file_length - kFooterBytes, file_length);
    std::memcpy(out.data() + file_length - 8, kFooterMagic, 8);
    return out;
}

Result<ContainerView> read_container(std::span<const std::uint8_t> file,
                                     std::uint16_t oldest_major,
                                     std::uint16_t current_major) {
    const std::size_t size = file.size();
    if (size < kHeaderBytes + kFooterBytes) {
        return corrupt("file is " + std::to_string(size) +
                       " bytes, too short for a header and footer");
    }
    if (std::memcmp(file.data(), kFileMagic, 8) != 0) {
        return Status{Errc::corrupt, "not a scout index file (bad magic)"};
    }
    if (!checksum_ok(get_u32(file, 60), file.data(), 60)) {
        return corrupt("header checksum mismatch");
    }
    ContainerView view;
    view.major = get_u16(file, 8);
    view.minor = get_u16(file, 10);
    if (view.major > current_major || view.major < oldest_major) {
        return Status{Errc::version_unsupported,
                      "index format " + std::to_string(view.major) + "." +
                          std::to_string(view.minor) + " is not supported (this library reads " +
                          std::to_string(oldest_major) + ".x to " + std::to_string(current_major) +
                          ".x)"};
    }
    if (get_u64(file, 24) != size) {
        return corrupt("header says " + std::to_string(get_u64(file, 24)) +
                       " bytes, the file has " + std::to_string(size) + " (truncated?)");
    }
    const std::uint32_t count = get_u32(file, 20);
    if (get_u32(file, 12) != 0 || get_u32(file, 16) != kHeaderBytes ||
        get_u64(file, 32) != kHeaderBytes || !all_zero(file.subspan(44, 16)) || count == 0 ||
        count > kMaxSections) {
        return corrupt("bad header fields");
    }
    const std::size_t table_end = kHeaderBytes + count * kTableEntryBytes;
    const std::size_t body_end = size - kFooterBytes;
    if (table_end > body_end) {
        return corrupt("section table runs past the end of the file");
    }
    if (!checksum_ok(get_u32(file, 40), file.data() + kHeaderBytes, table_end - kHeaderBytes)) {
        return corrupt("section table checksum mismatch");
    }
    if (get_u64(file, body_end) != size ||
        std::memcmp(file.data() + size - 8, kFooterMagic, 8) != 0) {
        return corrupt("bad footer");
    }
    std::size_t cursor = table_end;  // end of the previous part; gaps must be zero padding
    for (std::uint32_t i = 0; i < count; ++i) {
        const std::size_t e = kHeaderBytes + std::size_t{i} * kTableEntryBytes;
        SectionView s;
        s.kind = get_u32(file, e);
        s.version = get_u32(file, e + 4);
        const std::uint64_t offset = get_u64(file, e + 8);
        const std::uint64_t length = get_u64(file, e + 16);
        const std::string name = kind_text(s.kind);
        if (get_u32(file, e + 28) != 0 || offset % kSectionAlign != 0 || offset < cursor ||
            offset > body_end || length > body_end - offset) {
            return corrupt("section " + name + " has a bad offset or length");
        }
        if (!all_zero(file.subspan(cursor, static_cast<std::size_t>(offset) - cursor))) {
            return corrupt("non-zero padding before section " + name);
        }
        s.bytes = file.subspan(static_cast<std::size_t>(offset), static_cast<std::size_t>(length));
        s.crc = get_u32(file, e + 24);
        if (view.find(s.kind) != nullptr) {
            return corrupt("section " + name + " appears twice");
        }
        cursor = static_cast<std::size_t>(offset + length);
        view.sections.push_back(s);
    }
    if (!all_zero(file.subspan(cursor, body_end - cursor))) {
        return corrupt("non-zero padding before the footer");
    }
    return view;
}

}  // namespace scout::detail
