// jsonrpc_reader_fuzz.cpp: libFuzzer target for scout-gateway's message reader: LineSplitter
// (framing with a size limit) and classify (depth-bounded parse and JSON-RPC checks), the code
// every client and backend line goes through. Any bytes must give lines and classifications
// that keep the invariants below, never a crash, a leak, a stack overflow or an exception.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "scout/mcp/json_limits.hpp"

#include "fuzz_check.hpp"
#include "json_rpc.hpp"
#include "line_reader.hpp"

using scout::fuzz::check;

namespace {

using namespace scout::gateway;

/// A value the gateway may serialize must come back the same through the bounded parser.
void check_round_trip(const Json& value) {
    const std::string line = to_line(value);
    check(line.find('\n') == std::string::npos);
    auto again = scout::mcp::parse_json(line);
    check(again.ok());
    check(*again == value);
}

void classify_one(std::string_view line) {
    Message m = classify(line);
    check(m.id.is_null() || m.id.is_string() || m.id.is_number_integer());
    switch (m.kind) {
        case MessageKind::parse_error:
        case MessageKind::invalid:
            check(!m.error.empty());
            break;
        case MessageKind::request:
        case MessageKind::notification:
            check(m.body.is_object() && !m.too_deep);
            check_round_trip(m.body);
            break;
        case MessageKind::response:
            check(m.body.is_object());
            if (!m.too_deep) {
                check_round_trip(m.body);
            } else {
                check(scout::mcp::has_pruned(m.body));
            }
            break;
    }
    // The error answer the gateway would send is one line of valid JSON.
    check_round_trip(make_error(m.id, kInvalidRequest, m.error));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    classify_one(bytes);

    // Framing: fed in uneven chunks with a small limit, every byte is accounted for once.
    constexpr std::size_t kLimit = 64;
    LineSplitter lines(kLimit);
    std::size_t accounted = 0;
    std::size_t newlines = 0;
    auto take = [&](const LineEvent& e) {
        if (e.kind == LineEvent::Kind::line) {
            check(e.text.size() <= kLimit && e.text.find('\n') == std::string::npos);
            classify_one(e.text);
        } else {
            check(e.bytes > kLimit);
        }
        accounted += e.bytes;
    };
    for (std::size_t off = 0, step = 1; off < size; off += step, step = step % 7 + 3) {
        const std::string_view chunk = bytes.substr(off, step);
        newlines += static_cast<std::size_t>(std::count(chunk.begin(), chunk.end(), '\n'));
        lines.feed(chunk);
        while (auto e = lines.next()) {
            take(*e);
        }
        check(lines.pending_bytes() <= size);
    }
    if (auto last = lines.finish()) {
        take(*last);
    }
    // Each event's byte count excludes its newline and the '\r' before it.
    check(accounted + newlines <= size);
    return 0;
}
