// crc32c.hpp: CRC-32C (Castagnoli polynomial 0x1EDC6F41, reflected 0x82F63B78), the checksum of
// every part of an index file. The SSE4.2 instruction where the CPU has it (three interleaved
// streams), else software slicing-by-8 (no CPU feature needed, about 1 byte/cycle).
#pragma once

#include <cstddef>
#include <cstdint>

namespace scout::detail {

/// Extends `crc` (0 for a fresh checksum) over `size` bytes. crc32c("123456789") == 0xE3069283.
[[nodiscard]] std::uint32_t crc32c(const void* data,
                                   std::size_t size,
                                   std::uint32_t crc = 0) noexcept;
/// The checksum of A followed by B from crc32c(A), crc32c(B) and B's length (zlib's
/// crc32_combine).
[[nodiscard]] std::uint32_t crc32c_combine(std::uint32_t first,
                                           std::uint32_t second,
                                           std::size_t second_bytes) noexcept;
/// The same, always in software (what crc32c falls back to; for tests).
[[nodiscard]] std::uint32_t crc32c_software(const void* data,
                                            std::size_t size,
                                            std::uint32_t crc = 0) noexcept;

}  // namespace scout::detail
