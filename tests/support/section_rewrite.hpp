// section_rewrite.hpp: an index file's sections written again after an edit, for tests that
// damage, drop or re-version one section of a saved index.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "scout/scout.hpp"

#include "persist/container.hpp"

namespace scout::test {

/// The file's sections, each passed through `edit` (false drops it), written again at format
/// `minor`.
inline std::string rewrite_sections(const std::vector<std::uint8_t>& file,
                                    std::uint16_t minor,
                                    const std::function<bool(detail::SectionOut&)>& edit) {
    auto view = detail::read_container(file, 1, kIndexFormatMajor);
    REQUIRE(view.ok());
    std::vector<detail::SectionOut> sections;
    for (const auto& s : view->sections) {
        detail::SectionOut out{s.kind, s.version, std::string(s.bytes.begin(), s.bytes.end())};
        if (edit(out)) {
            sections.push_back(std::move(out));
        }
    }
    return detail::write_container(kIndexFormatMajor, minor, sections);
}

}  // namespace scout::test
