// outcome_codec.cpp: see outcome_codec.hpp. Layout (all little-endian):
//   u64 tick, u32 tools, tools x entry, u32 terms, terms x (str term, u32 n, n x entry)
//   entry = str tool key, f64 success, f64 failure, u64 tick;  str = u32 length, bytes
#include "persist/outcome_codec.hpp"

#include <bit>
#include <cmath>

#include "util/byte_io.hpp"
#include "util/utf8.hpp"

namespace scout::detail {
namespace {

static_assert(std::endian::native == std::endian::little, "the OUTC section is little-endian");

/// Longest key: a tool key (server '\n' tool) of names at the input limit, or a query term.
constexpr std::size_t kMaxKeyBytes = 1024;

void put_string(std::string& out, std::string_view s) {
    put_bytes(out, static_cast<std::uint32_t>(s.size()));
    out.append(s);
}

void put_entry(std::string& out, const std::string& key, const OutcomeCounts& c) {
    put_string(out, key);
    put_bytes(out, c.success);
    put_bytes(out, c.failure);
    put_bytes(out, c.tick);
}

struct BadOutcomes {
    const char* what;
};

class OutcomeReader {
public:
    explicit OutcomeReader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}

    template <typename T>
    T get() {
        need(sizeof(T));
        T v = get_bytes<T>(reinterpret_cast<const char*>(bytes_.data() + at_));
        at_ += sizeof(T);
        return v;
    }
    std::string string() {
        const auto n = get<std::uint32_t>();
        if (n == 0 || n > kMaxKeyBytes) {
            throw BadOutcomes{"a key is empty or too long"};
        }
        need(n);
        std::string s(reinterpret_cast<const char*>(bytes_.data() + at_), n);
        at_ += n;
        if (!is_valid_utf8(s)) {
            throw BadOutcomes{"a key is not UTF-8"};
        }
        return s;
    }
    [[nodiscard]] bool done() const noexcept { return at_ == bytes_.size(); }

private:
    void need(std::size_t n) const {
        if (bytes_.size() - at_ < n) {
            throw BadOutcomes{"truncated"};
        }
    }
    std::span<const std::uint8_t> bytes_;
    std::size_t at_ = 0;
};

OutcomeCounts read_counts(OutcomeReader& r, std::uint64_t tick) {
    OutcomeCounts c;
    c.success = r.get<double>();
    c.failure = r.get<double>();
    c.tick = r.get<std::uint64_t>();
    if (!std::isfinite(c.success) || !std::isfinite(c.failure) || c.success < 0 || c.failure < 0 ||
        c.tick > tick) {
        throw BadOutcomes{"bad counts"};
    }
    return c;
}

void read_tools(OutcomeReader& r,
                std::uint64_t tick,
                std::size_t limit,
                OutcomePrior::ToolMap& out) {
    const auto n = r.get<std::uint32_t>();
    if (n > limit) {
        throw BadOutcomes{"too many tools"};
    }
    for (std::uint32_t i = 0; i < n; ++i) {
        std::string key = r.string();
        const OutcomeCounts c = read_counts(r, tick);
        // The writer emits each map in order, so there is one encoding per prior.
        if (!out.empty() && !(out.rbegin()->first < key)) {
            throw BadOutcomes{"a tool key is out of order or repeated"};
        }
        out.emplace_hint(out.end(), std::move(key), c);
    }
}

}  // namespace

std::string encode_outcomes(const OutcomePrior& prior) {
    std::string out;
    put_bytes(out, prior.tick());
    const OutcomePrior::ToolMap tools = prior.tools();
    put_bytes(out, static_cast<std::uint32_t>(tools.size()));
    for (const auto& [key, c] : tools) {
        put_entry(out, key, c);
    }
    const OutcomePrior::TermMap terms = prior.terms();
    put_bytes(out, static_cast<std::uint32_t>(terms.size()));
    for (const auto& [term, of_term] : terms) {
        put_string(out, term);
        put_bytes(out, static_cast<std::uint32_t>(of_term.size()));
        for (const auto& [key, c] : of_term) {
            put_entry(out, key, c);
        }
    }
    return out;
}

Result<OutcomePrior> decode_outcomes(std::span<const std::uint8_t> bytes) {
    const OutcomeLimits& lim = OutcomePrior::limits();
    try {
        OutcomeReader r(bytes);
        const auto tick = r.get<std::uint64_t>();
        OutcomePrior::ToolMap tools;
        read_tools(r, tick, lim.max_tools, tools);
        const auto terms = r.get<std::uint32_t>();
        if (terms > lim.max_terms) {
            throw BadOutcomes{"too many terms"};
        }
        OutcomePrior::TermMap term_map;
        for (std::uint32_t i = 0; i < terms; ++i) {
            std::string term = r.string();
            OutcomePrior::ToolMap of_term;
            read_tools(r, tick, lim.max_tools_per_term, of_term);
            if (!term_map.empty() && !(term_map.rbegin()->first < term)) {
                throw BadOutcomes{"a term is out of order or repeated"};
            }
            term_map.emplace_hint(term_map.end(), std::move(term), std::move(of_term));
        }
        if (!r.done()) {
            throw BadOutcomes{"trailing bytes"};
        }
        OutcomePrior prior;
        prior.restore(tick, std::move(tools), std::move(term_map));
        return prior;
    } catch (const BadOutcomes& e) {
        return Status{Errc::corrupt, std::string("index file is corrupt: OUTC section: ") + e.what};
    }
}

}  // namespace scout::detail
