// token_counter_test.cpp: TokenCounter against encodings computed by the npm package
// gpt-tokenizer (tests/fixtures/token_counts.json, from scripts/dev/gen-token-fixture.js), plus
// rank-file validation. Cases that need the rank files skip with a warning when they are absent.
#include "scout/token_counter.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "scout/catalog_loader.hpp"

#include "support/fixture_skip.hpp"
#include "support/temp_dir.hpp"
#include "util/file_io.hpp"

namespace {

std::filesystem::path source_dir() {
    const char* dir = std::getenv("SCOUT_SOURCE_DIR");
    return dir != nullptr ? dir : ".";
}

const nlohmann::json& fixture() {
    static const nlohmann::json doc = [] {
        auto text =
            scout::detail::read_text_file(source_dir() / "tests/fixtures/token_counts.json");
        REQUIRE(text.ok());
        return nlohmann::json::parse(text.value());
    }();
    return doc;
}

/// The default rank files, or nullopt (with a warning) when the fetcher has not run.
std::optional<scout::TokenCounter> counter_or_skip(scout::TokenEncoding encoding) {
    auto counter = scout::TokenCounter::load_default(encoding);
    if (!counter) {
        if (scout::testing::fixtures_required()) {
            FAIL("required fixture missing: BPE rank files (" << counter.status().message() << ")");
        }
        WARN("SKIPPED: BPE rank files unavailable (" << counter.status().message() << ")");
        return std::nullopt;
    }
    return std::move(counter.value());
}

/// Files the tests write, removed at exit (the TempDir is per process, so ctest -j is safe).
std::string write_temp(const std::string& name, const std::string& content) {
    static const scout::test::TempDir dir;
    return dir.write(name, content);
}

}  // namespace

TEST_CASE("encoding names round-trip", "[tokens]") {
    CHECK(scout::token_encoding_name(scout::TokenEncoding::cl100k_base) == "cl100k_base");
    CHECK(scout::parse_token_encoding("o200k_base") == scout::TokenEncoding::o200k_base);
    CHECK_FALSE(scout::parse_token_encoding("gpt2").has_value());
}

TEST_CASE("token ids match gpt-tokenizer on the fixture texts", "[tokens]") {
    for (const auto encoding :
         {scout::TokenEncoding::cl100k_base, scout::TokenEncoding::o200k_base}) {
        auto counter = counter_or_skip(encoding);
        if (!counter) {
            return;
        }
        const std::string key(scout::token_encoding_name(encoding));
        std::size_t checked = 0;
        for (const auto& c : fixture()["cases"]) {
            const std::string text = c["text"].get<std::string>();
            const auto expected = c[key].get<std::vector<std::uint32_t>>();
            INFO(key << " text: " << nlohmann::json(text).dump());
            CHECK(counter->encode(text) == expected);
            CHECK(counter->count(text) == expected.size());
            ++checked;
        }
        CHECK(checked > 300);
    }
}

TEST_CASE("known encodings of hello world", "[tokens]") {
    auto cl = counter_or_skip(scout::TokenEncoding::cl100k_base);
    auto o2 = counter_or_skip(scout::TokenEncoding::o200k_base);
    if (!cl || !o2) {
        return;
    }
    CHECK(cl->encode("hello world") == std::vector<std::uint32_t>{15339, 1917});
    CHECK(o2->encode("hello world") == std::vector<std::uint32_t>{24912, 2375});
    CHECK(cl->count("") == 0);
    CHECK(cl->vocabulary_size() == 100256);
    CHECK(o2->vocabulary_size() == 199998);
}

TEST_CASE("whole catalog and query files count like gpt-tokenizer", "[tokens]") {
    for (const auto encoding :
         {scout::TokenEncoding::cl100k_base, scout::TokenEncoding::o200k_base}) {
        auto counter = counter_or_skip(encoding);
        if (!counter) {
            return;
        }
        for (const auto& f : fixture()["files"]) {
            auto text = scout::detail::read_text_file(source_dir() / f["file"].get<std::string>());
            REQUIRE(text.ok());
            if (text->size() != f["bytes"].get<std::size_t>()) {
                // A data file edited without regenerating the counts: the fixture is stale, which
                // is a failure, not a reason to skip (scripts/dev/gen-token-fixture.js).
                FAIL(f["file"] << " changed since the fixture was made; rerun "
                                  "scripts/dev/gen-token-fixture.js");
            }
            INFO(f["file"] << " " << scout::token_encoding_name(encoding));
            CHECK(counter->count(text.value()) ==
                  f[std::string(scout::token_encoding_name(encoding))].get<std::size_t>());
        }
    }
}

TEST_CASE("malformed UTF-8 counts as U+FFFD per bad byte and never crashes", "[tokens]") {
    auto counter = counter_or_skip(scout::TokenEncoding::o200k_base);
    if (!counter) {
        return;
    }
    CHECK(counter->encode("a\xff"
                          "b") == counter->encode("a\xEF\xBF\xBD"
                                                  "b"));
    CHECK(counter->count("\xC3") == counter->count("\xEF\xBF\xBD"));
    constexpr char kJunk[] = "\x80\xC0\xF5\xED\xA0\x80 \xF0\x9F\x98";
    const std::string junk(kJunk, sizeof(kJunk) - 1);
    CHECK(counter->count(junk) > 0);
    CHECK(counter->count(std::string(5000, ' ')) > 0);
    CHECK(counter->count(std::string(3000, '!')) > 0);
}

TEST_CASE("a very long piece is merged in n log n time with the reference result", "[tokens]") {
    auto cl = counter_or_skip(scout::TokenEncoding::cl100k_base);
    auto o2 = counter_or_skip(scout::TokenEncoding::o200k_base);
    if (!cl || !o2) {
        return;
    }
    std::string text(200000, '!');
    text += 'a';
    for (int i = 0; i < 50000; ++i)
        text += "ab-";
    // Expected counts from gpt-tokenizer 3.4.0 (countTokens), which needs about 90 s for this text.
    const auto t0 = std::chrono::steady_clock::now();
    CHECK(cl->count(text) == 75001);
    CHECK(o2->count(text) == 62502);
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20));
}

TEST_CASE("rank files are validated", "[tokens]") {
    using scout::Errc;
    using scout::TokenCounter;
    const auto enc = scout::TokenEncoding::cl100k_base;
    CHECK(TokenCounter::load(enc, "/nonexistent/cl100k_base.tiktoken").status().code() ==
          Errc::not_found);
    CHECK(TokenCounter::load(enc, write_temp("scout_bad1.tiktoken", "IQ== notanumber\n"))
              .status()
              .code() == Errc::corrupt);
    CHECK(TokenCounter::load(enc, write_temp("scout_bad2.tiktoken", "@@@@ 1\n")).status().code() ==
          Errc::corrupt);
    CHECK(TokenCounter::load(enc, write_temp("scout_bad3.tiktoken", "IQ== 0\nIQ== 1\n"))
              .status()
              .code() == Errc::corrupt);
    // Well formed but without every single byte: rejected, since any text must be encodable.
    auto partial = TokenCounter::load(enc, write_temp("scout_bad4.tiktoken", "IQ== 0\nIg== 1\n"));
    REQUIRE_FALSE(partial.ok());
    CHECK(partial.status().message().find("single byte") != std::string::npos);

    // A complete byte-level table with one merge: "ab" merges, nothing else does.
    std::string table;
    const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const auto b64 = [&](const std::string& s) {
        std::string out;
        std::uint32_t acc = 0;
        int bits = 0;
        for (char c : s) {
            acc = (acc << 8) | static_cast<unsigned char>(c);
            bits += 8;
            while (bits >= 6) {
                bits -= 6;
                out += alphabet[(acc >> bits) & 63U];
            }
        }
        if (bits > 0)
            out += alphabet[(acc << (6 - bits)) & 63U];
        while (out.size() % 4 != 0)
            out += '=';
        return out;
    };
    for (int b = 0; b < 256; ++b) {
        table += b64(std::string(1, static_cast<char>(b))) + " " + std::to_string(b) + "\n";
    }
    table += b64("ab") + " 256\n";
    auto tiny = TokenCounter::load(enc, write_temp("scout_tiny.tiktoken", table));
    REQUIRE(tiny.ok());
    CHECK(tiny->encode("abc") == std::vector<std::uint32_t>{256, 'c'});
    CHECK(tiny->encode("xab") == std::vector<std::uint32_t>{'x', 256});
    CHECK(tiny->count("ab ab") == 3);  // pieces "ab" and " ab" -> [256] and [' ', 256]
}
