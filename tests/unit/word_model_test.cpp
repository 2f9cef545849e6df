// word_model_test.cpp: the static word model file (.swm), versions 1 (int8 rows) and 2
// (product-quantized rows): round trip, every corruption giving a clear error, learned-weight
// pooling and the catalog IDF exponent, and the shipped model being found without a network.
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

/// Four words on four dimensions in two sub-vectors of two, three centroids each (fp16 bits:
/// 0x3C00 = 1, 0x3800 = 0.5, 0xBC00 = -1, 0 = 0).
scout::detail::PqWordModel tiny_pq_model() {
    scout::detail::PqWordModel model;
    model.name = "pq";
    model.idf_power = 0.5;
    model.words = std::string("alpha\0beta\0gamma\0delta\0", 23);
    model.weights = {0x3C00, 0x3800, 0x3C00, 0x4000};  // 1, 0.5, 1, 2
    model.rows.dim = 4;
    model.rows.subvectors = 2;
    model.rows.centroids = 3;
    // Sub-vector 0: (1,0) (0,1) (.5,.5); sub-vector 1: (-1,0) (0,-1) (1,1).
    model.rows.codebooks = {
        0x3C00, 0, 0, 0x3C00, 0x3800, 0x3800, 0xBC00, 0, 0, 0xBC00, 0x3C00, 0x3C00};
    model.rows.codes = {0, 2, 1, 0, 2, 1, 0, 0};
    return model;
}

std::vector<float> embed_text(StaticEmbedder& e, const std::string& text) {
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
    CHECK(code_of(with_byte(good, 8, 3)) == Errc::version_unsupported);
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

TEST_CASE("a product-quantized (version 2) model decodes its codes into the rows",
          "[embed][model]") {
    const auto pq = tiny_pq_model();
    const std::string bytes = scout::detail::serialize_pq_word_model(pq);
    CHECK(bytes.size() == 48 + 2 + 23 + 4 * 2 + 3 * 4 * 2 + 4 * 2 + 8);
    auto parsed = scout::detail::parse_word_model(bytes, "pq.swm");
    REQUIRE(parsed.ok());
    CHECK(parsed->name == "pq");
    CHECK(parsed->idf_power == 0.5);
    CHECK(parsed->weights == std::vector<float>{1.0f, 0.5f, 1.0f, 2.0f});
    const auto& table = parsed->table;
    REQUIRE(table.size() == 4);
    REQUIRE(table.dim() == 4);
    CHECK(table.find("gamma") == std::optional<std::uint32_t>(2));
    const float expected[4][4] = {{1, 0, 1, 1}, {0, 1, -1, 0}, {0.5f, 0.5f, 0, -1}, {1, 0, -1, 0}};
    for (std::uint32_t r = 0; r < 4; ++r) {
        float row[4] = {};
        table.accumulate(r, 1.0f, row);
        for (int i = 0; i < 4; ++i) {
            INFO("row " << r << " dim " << i);
            CHECK(row[i] == Approx(expected[r][i]).margin(0.01));
        }
    }
    // The decoded model is the int8 table of version 1; saving it writes version 1.
    const std::string v1 = scout::detail::serialize_word_model(parsed.value());
    auto again = scout::detail::parse_word_model(v1, "v1.swm");
    REQUIRE(again.ok());
    CHECK(again->table.checksum() == table.checksum());
    CHECK(again->weights == parsed->weights);

    TempDir dir;
    auto e = StaticEmbedder::load(dir.write("pq.swm", bytes));
    REQUIRE(e.ok());
    CHECK(e.value()->has_learned_weights());
    CHECK(e.value()->vocabulary_size() == 4);
}

TEST_CASE("corrupt product-quantized model files are refused, never read past the end",
          "[embed][model]") {
    const std::string good = scout::detail::serialize_pq_word_model(tiny_pq_model());
    const auto code_of = [](const std::string& bytes) {
        auto r = scout::detail::parse_word_model(bytes, "x.swm");
        REQUIRE_FALSE(r.ok());
        CHECK(r.status().message().rfind("x.swm: ", 0) == 0);
        return r.status().code();
    };
    // Every truncation, and every single-byte change (the checksum catches what the size and
    // field checks let through).
    for (std::size_t n = 0; n < good.size(); ++n) {
        INFO("truncated at " << n);
        CHECK(code_of(good.substr(0, n)) == Errc::corrupt);
    }
    for (std::size_t at = 0; at < good.size(); ++at) {
        INFO("byte " << at << " flipped");
        const auto code = code_of(with_byte(good, at, static_cast<char>(good[at] ^ 0x5a)));
        CHECK((code == Errc::corrupt || (at >= 8 && at < 12 && code == Errc::version_unsupported)));
    }
    CHECK(code_of(good + "x") == Errc::corrupt);
    CHECK(code_of(with_byte(good, 8, 3)) == Errc::version_unsupported);
    // The checks behind the checksum, reached by resealing.
    const auto pq_bytes = [](const scout::detail::PqWordModel& m) {
        return scout::detail::serialize_pq_word_model(m);
    };
    auto bad_code = tiny_pq_model();
    bad_code.rows.codes[5] = 3;  // only 3 centroids
    CHECK(code_of(pq_bytes(bad_code)) == Errc::corrupt);
    CHECK(code_of(resealed(with_byte(good, 40, 3))) == Errc::corrupt);  // 3 sub-vectors of 4
    CHECK(code_of(resealed(with_byte(good, 40, 0))) == Errc::corrupt);  // no sub-vector
    CHECK(code_of(resealed(with_byte(good, 44, 0))) == Errc::corrupt);  // no centroid
    CHECK(code_of(resealed(with_byte(good, 45, 1))) == Errc::corrupt);  // 259 centroids
    CHECK(code_of(resealed(with_byte(good, 44, 4))) == Errc::corrupt);  // sizes disagree
    auto nan_centroid = tiny_pq_model();
    nan_centroid.rows.codebooks[3] = 0x7E00;
    CHECK(code_of(pq_bytes(nan_centroid)) == Errc::corrupt);
    auto negative_weight = tiny_pq_model();
    negative_weight.weights[1] = 0xB800;
    CHECK(code_of(pq_bytes(negative_weight)) == Errc::corrupt);
    auto infinite_weight = tiny_pq_model();
    infinite_weight.weights[0] = 0x7C00;
    CHECK(code_of(pq_bytes(infinite_weight)) == Errc::corrupt);
    auto repeated = tiny_pq_model();
    repeated.words = std::string("alpha\0beta\0alpha\0delta\0", 23);
    CHECK(code_of(pq_bytes(repeated)) == Errc::corrupt);
    // 256 centroids: code 255 is in range.
    auto wide = tiny_pq_model();
    wide.rows.centroids = 256;
    wide.rows.codebooks.resize(std::size_t{256} * 4, 0x3C00);
    wide.rows.codes[7] = 255;
    CHECK(scout::detail::parse_word_model(pq_bytes(wide), "x.swm").ok());
}

TEST_CASE("version 1 files are still read next to version 2", "[embed][model]") {
    const std::string v1 = scout::detail::serialize_word_model(tiny_model());
    CHECK(v1.substr(8, 4) == std::string("\1\0\0\0", 4));
    auto parsed = scout::detail::parse_word_model(v1, "v1.swm");
    REQUIRE(parsed.ok());
    CHECK(parsed->table.size() == 5);
    const std::string v2 = scout::detail::serialize_pq_word_model(tiny_pq_model());
    CHECK(v2.substr(8, 4) == std::string("\2\0\0\0", 4));
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
    const auto v = embed_text(*plain.value(), "common file");
    CHECK(v[0] == Approx(2.0f / std::sqrt(5.0f)).epsilon(0.01));
    CHECK(v[1] == Approx(1.0f / std::sqrt(5.0f)).epsilon(0.01));

    // "common" is in every document, "file" in one of four.
    const std::vector<std::string> corpus = {
        "common file", "common weather", "common deploy", "common forecast"};
    const auto ratio = [&](double power) {
        auto e = StaticEmbedder::load(dir.file("m.swm"), {.idf_power = power});
        REQUIRE(e.ok());
        e.value()->fit(corpus);
        const auto u = embed_text(*e.value(), "common file");
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
    const auto v = embed_text(*e.value(), "list the files in a directory");
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
