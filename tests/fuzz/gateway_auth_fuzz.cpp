// gateway_auth_fuzz.cpp: libFuzzer target for scout-gateway's auth file parser. Any bytes must
// give a clean invalid_argument or a table whose callers are well-formed and whose tokens
// authenticate exactly their own caller.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "auth.hpp"
#include "fuzz_check.hpp"

using scout::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    // A jwks_url is never fetched here: the fuzzer must not reach the network.
    const scout::gateway::JwksFetcher no_network = [](const scout::gateway::JwksFetchOptions&) {
        return scout::Result<scout::gateway::KeySet>(
            scout::Status{scout::Errc::unavailable, "not fetched while fuzzing"});
    };
    auto parsed = scout::gateway::AuthTable::parse(text, {}, no_network);
    if (!parsed) {
        // A "jwt" section names a key set file, which may be missing or unreadable, or a URL.
        const scout::Errc code = parsed.status().code();
        check(code == scout::Errc::invalid_argument || code == scout::Errc::not_found ||
              code == scout::Errc::io_error || code == scout::Errc::unavailable);
        check(!parsed.status().message().empty());
    } else {
        check((parsed->size() > 0 || parsed->jwt() != nullptr) &&
              parsed->size() == parsed->callers().size());
        for (const auto& c : parsed->callers()) {
            check(!c.name.empty());
            // A rate the token bucket can run: positive, finite, a burst of at least one.
            check(!c.rate ||
                  (c.rate->requests_per_second > 0 && c.rate->requests_per_second <= 1e6 &&
                   c.rate->burst >= 1 && c.rate->burst <= 1e6));
        }
    }
    // The input as an Authorization header: never a crash, and no match without a table entry.
    if (parsed) {
        (void)parsed->authenticate(text);
    }
    check(scout::gateway::constant_time_equal(text, text));
    return 0;
}
