// gateway_templates_fuzz.cpp: libFuzzer target for scout-gateway's --templates file reader
// (templates_file.hpp). Any bytes must give a clean invalid_argument naming what is wrong, or
// templates that render.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.hpp"
#include "templates_file.hpp"

using scout::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto parsed = scout::gateway::parse_templates_file(
        std::string_view(reinterpret_cast<const char*>(data), size));
    if (!parsed) {
        check(parsed.status().code() == scout::Errc::invalid_argument);
        check(!parsed.status().message().empty());
        return 0;
    }
    // What the gateway then does with them: the meta-tools' definitions are rendered.
    scout::mcp::Connector connector;
    connector.templates = std::move(parsed.value());
    const scout::mcp::MetaTools tools(std::move(connector));
    const scout::Searcher empty;
    check(tools.tool_search_definition(empty).is_object());
    check(tools.execute_tool_definition(empty).is_object());
    return 0;
}
