// gateway_config_fuzz.cpp: libFuzzer target for scout-gateway's config parser. Any bytes must
// give a clean invalid_argument or a list of servers the gateway can start safely (and a
// calibration path it can open: non-empty, without NUL).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "scout/catalog.hpp"

#include "config.hpp"
#include "fuzz_check.hpp"
#include "remote_session.hpp"

using scout::fuzz::check;

namespace {

bool clean(std::string_view s) {
    for (const char c : s) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
            return false;
        }
    }
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto parsed = scout::gateway::parse_gateway_config(
        std::string_view(reinterpret_cast<const char*>(data), size));
    if (!parsed) {
        check(parsed.status().code() == scout::Errc::invalid_argument);
        check(!parsed.status().message().empty());
        return 0;
    }
    check(parsed->calibration_path.find('\0') == std::string::npos);
    for (const auto& spec : parsed->backends) {
        check(!spec.name.empty() && spec.name.size() <= scout::kMaxNameBytes && clean(spec.name));
        // Exactly one of a command (stdio) and a URL (remote).
        check(spec.url.empty() != spec.command.empty());
        check(spec.command.find('\0') == std::string::npos);
        check(spec.url.empty() || scout::gateway::parse_http_url(spec.url).has_value());
        for (const auto& a : spec.args) {
            check(a.find('\0') == std::string::npos);
        }
        for (const auto& [k, v] : spec.env) {
            check(!k.empty() && k.find('=') == std::string::npos &&
                  k.find('\0') == std::string::npos);
            check(v.find('\0') == std::string::npos);
        }
        check(clean(spec.environment));
    }
    return 0;
}
