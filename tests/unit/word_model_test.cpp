// word_model_test.cpp: the static word model file (.swm): round trip, every corruption giving a
// clear error, learned-weight pooling and the catalog IDF exponent, and the shipped model being
// found without a network.
#include "embed/word_model.hpp"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "scout/embedder.hpp"

#include "support/temp_dir.hpp"

using scout::Errc;
using scout::StaticEmbedder;
using scout::detail::WordModel;
using scout::test::TempDir;

namespace {

/// Five words on four axes with learned weights; "common" has a large weight and its own axis.
WordModel tiny_model() {
    scout::detail::VectorTable table;
    const float rows[5][4] = {
        {1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0.8f, 0.6f}, {0, 0, 0, 1}};
    const char* words[5] = {"common", "file", "weather", "forecast", "deploy"};
    for (int i = 0; i < 5; ++i) {
        REQUIRE(table.add(words[i], rows[i], 4).ok());
    }
    table.finish();
    WordModel model;
    model.table = std::move(table);
    model.weights = {2.0f, 1.0f, 1.0f, 0.5f, 1.0f};
    model.idf_power = 0.5;
    model.name = "tiny";
    return model;
}

std::vector<float> embed_one(StaticEmbedder& e, const std::string& text) {
    const std::string texts[1] = {text};
    auto out = e.embed(texts);
    REQUIRE(out.ok());
    return out.value();
}

std::string with_byte(std::string bytes, std::size_t at, char value) {
    bytes[at] = value;
    return bytes;
}

/// Recomputes the closing checksum, so a test reaches the checks behind it.
std::string resealed(std::string bytes) {
    const std::uint64_t sum =
        scout::detail::checksum64(std::string_view(bytes).substr(0, bytes.size() - 8));
    std::memcpy(bytes.data() + bytes.size() - 8, &sum, 8);
    return bytes;
}

}  // namespace

TEST_CASE("the static word model file round-trips words, rows, weights and the IDF exponent",
          "[embed][model]") {
    const WordModel model = tiny_model();
    const std::string bytes = scout::detail::serialize_word_model(model);
    auto parsed = scout::detail::parse_word_model(bytes, "tiny.swm");
    REQUIRE(parsed.ok());
    CHECK(parsed->name == "tiny");
    CHECK(parsed->idf_power == 0.5);
    CHECK(parsed->weights == model.weights);
    CHECK(parsed->table.size() == 5);
    CHECK(parsed->table.checksum() == model.table.checksum());
    CHECK(parsed->table.find("forecast") == std::optional<std::uint32_t>(3));
    CHECK(scout::detail::serialize_word_model(parsed.value()) == bytes);

    TempDir dir;
    REQUIRE(scout::detail::save_word_model(model, dir.file("m.swm")).ok());
    auto e = StaticEmbedder::load(dir.file("m.swm"));
    REQUIRE(e.ok());
    CHECK(e.value()->has_learned_weights());
    CHECK(e.value()->idf_power() == 0.5);
    CHECK(e.value()->dim() == 4);
    REQUIRE(e.value()->save(dir.file("again.swm")).ok());  // save keeps the weights
    std::ifstream again(dir.file("again.swm"), std::ios::binary);
    const std::string again_bytes{std::istreambuf_iterator<char>(again),
                                  std::istreambuf_iterator<char>()};
    auto reparsed = scout::detail::parse_word_model(again_bytes, "again.swm");
    REQUIRE(reparsed.ok());
    CHECK(reparsed->weights == model.weights);
}

TEST_CASE("corrupt static word model files give clear errors, never a crash", "[embed][model]") {
    const std::string good = scout::detail::serialize_word_model(tiny_model());
    const auto code_of = [](const std::string& bytes) {
        auto r = scout::detail::parse_word_model(bytes, "x.swm");
        REQUIRE_FALSE(r.ok());
        CHECK(r.status().message().rfind("x.swm: ", 0) == 0);
        return r.status().code();
    };
    CHECK(code_of("") == Errc::corrupt);
    CHECK(code_of(good.substr(0, 20)) == Errc::corrupt);
    CHECK(code_of("SCOUTVEC" + good.substr(8)) == Errc::corrupt);
    CHECK(code_of(with_byte(good, 8, 2)) == Errc::version_unsupported);
    CHECK(code_of(good.substr(0, good.size() - 1)) == Errc::corrupt);       // truncated
    CHECK(code_of(good + "x") == Errc::corrupt);                            // trailing bytes
    CHECK(code_of(with_byte(good, good.size() - 20, 7)) == Errc::corrupt);  // a row byte: checksum
    // Each check behind the checksum, reached by resealing the altered bytes.
    CHECK(code_of(resealed(with_byte(good, 12, 0))) == Errc::corrupt);  // dimension 0
    CHECK(code_of(resealed(with_byte(good, 16, 9))) == Errc::corrupt);  // rows disagree with sizes
    CHECK(code_of(resealed(with_byte(good, 20, 4))) == Errc::corrupt);  // unknown flag
    CHECK(code_of(resealed(with_byte(good, 27, 0x7f))) == Errc::corrupt);  // IDF exponent NaN
    CHECK(code_of(resealed(with_byte(good, 35, 0x40))) == Errc::corrupt);  // vocabulary size huge
    const std::size_t words_at = 40 + 4;                                   // after the name "tiny"
    CHECK(code_of(resealed(with_byte(good, words_at + 6, 'x'))) ==
          Errc::corrupt);  // "common" unterminated
    std::string renamed = good;
    std::memcpy(renamed.data() + words_at + 7, "fill", 4);  // "file" -> "fill": still a valid model
    CHECK(scout::detail::parse_word_model(resealed(renamed), "x.swm").ok());
    const std::size_t scales_at = words_at + std::strlen("common file weather forecast deploy ");
    CHECK(code_of(resealed(with_byte(good, scales_at + 3, static_cast<char>(0xff)))) ==
          Errc::corrupt);  // NaN scale
    CHECK(code_of(resealed(with_byte(good, scales_at + 20 + 3, static_cast<char>(0xbf)))) ==
          Errc::corrupt);  // weight < 0

    TempDir dir;
    auto missing = StaticEmbedder::load(dir.file("none.swm"));
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.status().code() == Errc::io_error);
    auto bad = StaticEmbedder::load(dir.write("bad.swm", good.substr(0, good.size() / 2)));
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.status().code() == Errc::corrupt);
}

TEST_CASE("a duplicated word in a static word model is corrupt", "[embed][model]") {
    // Weights are aligned with rows, so a repeated word cannot be dropped the way plain vector
    // files drop theirs: the file is refused.
    const std::string repeated("a\0b\0a\0", 6);
    auto dup = scout::detail::VectorTable::from_quantized(
        4, repeated, {1, 1, 1}, std::vector<std::int8_t>(12, 1));
    REQUIRE_FALSE(dup.ok());
    CHECK(dup.status().message().find("twice") != std::string::npos);
    const std::string distinct("a\0b\0c\0", 6);
    CHECK(scout::detail::VectorTable::from_quantized(
              4, distinct, {1, 1, 1}, std::vector<std::int8_t>(12, 1))
              .ok());
}

TEST_CASE("learned weights pool the words and catalog IDF^p quiets shared words",
          "[embed][model]") {
    TempDir dir;
    REQUIRE(scout::detail::save_word_model(tiny_model(), dir.file("m.swm")).ok());
    auto plain = StaticEmbedder::load(dir.file("m.swm"), {.catalog_idf = false});
    REQUIRE(plain.ok());
    // Without IDF the learned weights decide: "common" (2) outweighs "file" (1) two to one.
    const auto v = embed_one(*plain.value(), "common file");
    CHECK(v[0] == Approx(2.0f / std::sqrt(5.0f)).epsilon(0.01));
    CHECK(v[1] == Approx(1.0f / std::sqrt(5.0f)).epsilon(0.01));

    // "common" is in every document, "file" in one of four.
    const std::vector<std::string> corpus = {
        "common file", "common weather", "common deploy", "common forecast"};
    const auto ratio = [&](double power) {
        auto e = StaticEmbedder::load(dir.file("m.swm"), {.idf_power = power});
        REQUIRE(e.ok());
        e.value()->fit(corpus);
        const auto u = embed_one(*e.value(), "common file");
        return u[0] / u[1];  // weight of "common" over "file"
    };
    const double idf_common = std::log(5.0 / 4.5);
    const double idf_file = std::log(5.0 / 1.5);
    CHECK(ratio(0.0) == Approx(2.0).epsilon(0.02));
    CHECK(ratio(0.5) == Approx(2.0 * std::sqrt(idf_common / idf_file)).epsilon(0.02));
    CHECK(ratio(1.0) == Approx(2.0 * idf_common / idf_file).epsilon(0.02));
    CHECK(ratio(1.0) < ratio(0.5));

    // Unset, the exponent is the model's (0.5 here); it is part of the model id.
    auto by_model = StaticEmbedder::load(dir.file("m.swm"));
    auto by_option = StaticEmbedder::load(dir.file("m.swm"), {.idf_power = 1.0});
    REQUIRE(by_model.ok());
    REQUIRE(by_option.ok());
    CHECK(by_model.value()->idf_power() == 0.5);
    CHECK(by_model.value()->model_id() != by_option.value()->model_id());
    CHECK_FALSE(StaticEmbedder::load(dir.file("m.swm"), {.idf_power = -1.0}).ok());
}

TEST_CASE("the shipped static model is found without a network and loads", "[embed][model]") {
    ::unsetenv("SCOUT_DATA_DIR");
    const std::string path = StaticEmbedder::default_model_path();
    INFO("candidates: " << StaticEmbedder::default_model_candidates().front());
    REQUIRE_FALSE(path.empty());
    auto e = StaticEmbedder::load_default();
    INFO((e.ok() ? std::string() : e.status().to_string()));
    REQUIRE(e.ok());
    CHECK(e.value()->has_learned_weights());
    CHECK(e.value()->dim() == 256);
    CHECK(e.value()->vocabulary_size() > 30000);
    const auto v = embed_one(*e.value(), "list the files in a directory");
    double norm = 0;
    for (float x : v) {
        norm += static_cast<double>(x) * static_cast<double>(x);
    }
    CHECK(norm == Approx(1.0).epsilon(1e-4));

    // SCOUT_DATA_DIR comes first; a directory without the model is passed over.
    TempDir dir;
    ::setenv("SCOUT_DATA_DIR", dir.file("").c_str(), 1);
    CHECK(StaticEmbedder::default_model_path() == path);
    REQUIRE(
        scout::detail::save_word_model(tiny_model(), dir.file(StaticEmbedder::kDefaultModelFile))
            .ok());
    auto overridden = StaticEmbedder::load_default();
    REQUIRE(overridden.ok());
    CHECK(overridden.value()->vocabulary_size() == 5);
    ::unsetenv("SCOUT_DATA_DIR");
}
