// gateway_argument_check_fuzz.cpp: libFuzzer target for execute_tool's argument check. The input
// is a tool's inputSchema and a call's arguments, both untrusted (a backend lists the one, a
// client sends the other), separated by the first newline. Any pair must give an answer, never a
// crash, within the step budget: an accepting schema accepts, a refusal names a path under
// "arguments" and stays short.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "scout/mcp/json_limits.hpp"

#include "argument_check.hpp"
#include "fuzz_check.hpp"

using scout::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace scout::gateway;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const std::size_t cut = text.find('\n');
    if (cut == std::string_view::npos) {
        return 0;
    }
    auto schema = scout::mcp::parse_json(text.substr(0, cut));
    auto arguments = scout::mcp::parse_json(text.substr(cut + 1));
    if (!schema || !arguments) {
        return 0;
    }
    ArgumentCheckLimits limits;
    limits.max_steps = 20'000;
    const auto problem = check_arguments(*schema, *arguments, limits);
    if (problem) {
        check(problem->rfind("arguments", 0) == 0);
        check(problem->size() < 4096);
        check(schema->is_object());
    }
    check(!check_arguments(Json::object(), *arguments, limits).has_value());
    return 0;
}
