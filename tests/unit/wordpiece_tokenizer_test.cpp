// wordpiece_tokenizer_test.cpp: the BERT tokenizer against Hugging Face's Rust tokenizers on the
// 1,000+ strings of tests/fixtures/transformer/tokens.json (ASCII, punctuation, accents, CJK,
// emoji, control and zero-width characters, invalid UTF-8, special tokens, very long texts), for
// the uncased and the cased tokenizer.json, vocab.txt, and truncation; plus the parsers'
// answers to malformed files.
#include <sstream>

#include <catch2/catch.hpp>

#include "support/transformer_fixture.hpp"
#include "transformer/bert_normalizer.hpp"
#include "transformer/tokenizer_files.hpp"

using scout::Errc;
using scout::detail::bert::WordPieceTokenizer;
using scout::test::fixture_ids;
using scout::test::fixture_text;
using scout::test::read_bytes;

namespace {

WordPieceTokenizer tokenizer_from(const std::string& file) {
    auto spec = scout::detail::bert::parse_tokenizer_json(
        read_bytes(scout::test::transformer_fixture_dir() / "tiny-bert" / file));
    REQUIRE(spec.ok());
    return WordPieceTokenizer(std::move(spec.value()));
}

std::string show(const std::vector<std::int32_t>& ids) {
    std::ostringstream s;
    for (std::int32_t id : ids) {
        s << id << ' ';
    }
    return s.str();
}

/// Compares every fixture text's ids with `field` (falling back to `fallback` when absent).
void check_all(const WordPieceTokenizer& tok,
               const char* field,
               const char* fallback,
               std::size_t max_length) {
    const auto doc = scout::test::read_fixture_json("tokens.json");
    const auto& texts = doc["texts"];
    REQUIRE(texts.size() >= 1000);
    std::size_t mismatches = 0;
    for (const auto& row : texts) {
        const auto& want = row.contains(field) ? row[field] : row[fallback];
        const auto got = tok.encode(fixture_text(row), max_length);
        if (got != fixture_ids(want)) {
            if (++mismatches <= 5) {
                UNSCOPED_INFO("text " << row.dump().substr(0, 200) << "\n  got  " << show(got)
                                      << "\n  want " << show(fixture_ids(want)));
            }
        }
    }
    CHECK(mismatches == 0);
}

}  // namespace

TEST_CASE("uncased token ids match Hugging Face tokenizers on 1,000+ strings",
          "[transformer][tokenizer]") {
    check_all(tokenizer_from("tokenizer.json"), "uncased", "uncased", 0);
}

TEST_CASE("cased token ids match Hugging Face tokenizers", "[transformer][tokenizer]") {
    check_all(tokenizer_from("tokenizer-cased.json"), "cased", "uncased", 0);
}

TEST_CASE("truncation keeps the first pieces and [SEP] as the reference does",
          "[transformer][tokenizer]") {
    const auto doc = scout::test::read_fixture_json("tokens.json");
    const std::size_t max_length = doc["max_length"].get<std::size_t>();
    std::size_t truncated = 0;
    for (const auto& row : doc["texts"]) {
        truncated += row.contains("truncated") ? 1U : 0U;
    }
    CHECK(truncated >= 10);
    check_all(tokenizer_from("tokenizer.json"), "truncated", "uncased", max_length);
    const auto tok = tokenizer_from("tokenizer.json");
    CHECK(tok.encode(std::string(500, 'a') + " b c d", 5).size() == 5);
    CHECK(tok.encode("a b c", 2) == std::vector<std::int32_t>{2, 3});  // no room: specials only
}

TEST_CASE("vocab.txt with tokenizer_config.json tokenizes as tokenizer.json does",
          "[transformer][tokenizer]") {
    const auto dir = scout::test::transformer_fixture_dir() / "tiny-bert";
    auto settings =
        scout::detail::bert::parse_tokenizer_config(read_bytes(dir / "tokenizer_config.json"));
    REQUIRE(settings.ok());
    auto spec =
        scout::detail::bert::parse_vocab_txt(read_bytes(dir / "vocab.txt"), settings.value());
    REQUIRE(spec.ok());
    check_all(WordPieceTokenizer(std::move(spec.value())), "uncased", "uncased", 0);
}

TEST_CASE("UTF-8 decoding replaces each maximal ill-formed subpart once",
          "[transformer][tokenizer]") {
    using scout::detail::bert::decode_utf8;
    CHECK(decode_utf8("a\xE2\x82"
                      "b") == U"a\uFFFDb");  // truncated 3-byte sequence, then 'b'
    CHECK(decode_utf8("\xF0\x9F\x98\x80") == U"\U0001F600");
    CHECK(decode_utf8("\xC0\xAF") == U"\uFFFD\uFFFD");  // overlong lead byte, then a stray
    CHECK(decode_utf8("\xED\xA0\x80") == U"\uFFFD\uFFFD\uFFFD");  // a surrogate
    CHECK(decode_utf8("\xF4\x90\x80\x80") == U"\uFFFD\uFFFD\uFFFD\uFFFD");
    CHECK(decode_utf8("\xE2\x28\xA1") == U"\uFFFD(\uFFFD");
}

TEST_CASE("the normalizer strips accents after NFD and lowercases fully",
          "[transformer][tokenizer]") {
    scout::detail::bert::NormalizerOptions opts;
    CHECK(scout::detail::bert::normalize(U"Ångström Ǆ İ", opts) == U"angstrom ǆ i");
    CHECK(scout::detail::bert::normalize(U"中文", opts) == U" 中  文 ");
    CHECK(scout::detail::bert::normalize(std::u32string(U"a\u0000b\u200Bc\tD", 7), opts) ==
          U"abc d");
    opts.strip_accents = false;
    opts.lowercase = false;
    CHECK(scout::detail::bert::normalize(U"Café", opts) == U"Café");
    CHECK(scout::detail::bert::normalize(U"\uD55C", {.strip_accents = true, .lowercase = false}) ==
          U"\u1112\u1161\u11AB");
}

TEST_CASE("malformed tokenizer files are refused with a clear status", "[transformer][tokenizer]") {
    using scout::detail::bert::parse_tokenizer_json;
    const std::string good =
        read_bytes(scout::test::transformer_fixture_dir() / "tiny-bert/tokenizer.json");
    REQUIRE(parse_tokenizer_json(good).ok());
    auto edit = [&](auto change) {
        auto doc = nlohmann::json::parse(good);
        change(doc);
        return parse_tokenizer_json(doc.dump());
    };
    for (std::string bad : {std::string(),
                            std::string("{"),
                            std::string("[]"),
                            good.substr(0, good.size() / 2),
                            std::string("{\"model\": 5}"),
                            std::string("\xff\xfe")}) {
        auto r = parse_tokenizer_json(bad);
        CHECK_FALSE(r.ok());
        CHECK(r.status().code() == Errc::invalid_argument);
    }
    auto no_unk = edit([](auto& d) { d["model"]["unk_token"] = "<unk>"; });
    REQUIRE_FALSE(no_unk.ok());
    CHECK(no_unk.status().message().find("unknown token") != std::string::npos);
    CHECK_FALSE(edit([](auto& d) { d["model"]["vocab"]["a"] = -1; }).ok());
    CHECK_FALSE(edit([](auto& d) { d["model"]["vocab"]["a"] = 1e20; }).ok());
    CHECK_FALSE(edit([](auto& d) { d["model"]["vocab"]["a"] = "x"; }).ok());
    CHECK_FALSE(edit([](auto& d) { d["model"]["type"] = "BPE"; }).ok());
    CHECK_FALSE(edit([](auto& d) { d["normalizer"]["type"] = "NFKC"; }).ok());
    CHECK_FALSE(edit([](auto& d) { d["normalizer"]["lowercase"] = "yes"; }).ok());
    CHECK_FALSE(edit([](auto& d) { d["pre_tokenizer"] = nullptr; }).ok());
    CHECK_FALSE(edit([](auto& d) {
                    d["post_processor"]["single"][0]["SpecialToken"]["id"] = "[NOPE]";
                }).ok());
    CHECK_FALSE(
        edit([](auto& d) { d["post_processor"]["special_tokens"]["[CLS]"]["ids"] = {-4}; }).ok());
    CHECK_FALSE(edit([](auto& d) { d["added_tokens"][0]["content"] = 7; }).ok());
    CHECK(edit([](auto& d) {
              d["post_processor"] = {
                  {"type", "BertProcessing"}, {"sep", {"[SEP]", 3}}, {"cls", {"[CLS]", 2}}};
          }).ok());
}

TEST_CASE("malformed vocab.txt and tokenizer_config.json are refused", "[transformer][tokenizer]") {
    using scout::detail::bert::parse_vocab_txt;
    scout::detail::bert::VocabSettings settings;
    CHECK(parse_vocab_txt("[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\r\n", settings).ok());
    CHECK_FALSE(parse_vocab_txt("", settings).ok());
    CHECK_FALSE(parse_vocab_txt("[CLS]\n[SEP]\nhello\n", settings).ok());         // no [UNK]
    CHECK_FALSE(parse_vocab_txt("[UNK]\nhello\n", settings).ok());                // no [CLS]/[SEP]
    CHECK_FALSE(parse_vocab_txt("[UNK]\n[CLS]\n[SEP]\nh\xC3\n", settings).ok());  // invalid UTF-8
    CHECK_FALSE(scout::detail::bert::parse_tokenizer_config("{\"do_lower_case\": 1}").ok());
    CHECK_FALSE(scout::detail::bert::parse_tokenizer_config("not json").ok());
    auto cfg = scout::detail::bert::parse_tokenizer_config(
        "{\"do_lower_case\": false, \"model_max_length\": 1000000000000000019884624838656}");
    REQUIRE(cfg.ok());
    CHECK_FALSE(cfg->normalizer.lowercase);
    CHECK_FALSE(cfg->normalizer.strip_accents);
    CHECK(cfg->model_max_length == 0);
}

TEST_CASE("added tokens: single_word ones only between words, normalized ones after normalization",
          "[transformer][tokenizer]") {
    scout::detail::bert::TokenizerSpec spec;
    spec.vocab = {{"[UNK]", 0},
                  {"[CLS]", 1},
                  {"[SEP]", 2},
                  {"a", 3},
                  {"b", 4},
                  {"<", 5},
                  {">", 6},
                  {"mask", 7}};
    spec.prefix_ids = {1};
    spec.suffix_ids = {2};
    spec.added.push_back({"<mask>", 8, true, true, true, false});
    spec.added.push_back({"HeLLo", 9, false, false, false, true});
    const WordPieceTokenizer tok(std::move(spec));
    CHECK(tok.encode("a <mask> b", 0) == std::vector<std::int32_t>{1, 3, 8, 4, 2});
    CHECK(tok.encode("<mask>", 0) == std::vector<std::int32_t>{1, 8, 2});
    CHECK(tok.encode("a<mask> b", 0) ==
          std::vector<std::int32_t>{1, 3, 5, 7, 6, 4, 2});  // inside a word
    CHECK(tok.encode("hello b", 0) ==
          std::vector<std::int32_t>{1, 9, 4, 2});  // matched once lowercased
    CHECK(tok.encode("HELLO", 0) == std::vector<std::int32_t>{1, 9, 2});
    CHECK(tok.max_id() == 9);
}
