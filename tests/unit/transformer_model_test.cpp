// transformer_model_test.cpp: the safetensors and config.json parsers on valid, converted and
// hostile inputs, and BertModel's tensor checks.
#include <cstring>

#include <catch2/catch.hpp>

#include "support/transformer_fixture.hpp"
#include "transformer/bert_config.hpp"
#include "transformer/bert_model.hpp"
#include "transformer/safetensors.hpp"

using scout::Errc;
using scout::detail::bert::parse_bert_config;
using scout::detail::bert::parse_safetensors;

namespace {

/// A safetensors file from a header (JSON text) and raw data bytes.
std::string file_of(const std::string& header, const std::string& data) {
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i) {
        out[static_cast<std::size_t>(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xFFU);
    }
    return out + header + data;
}

}  // namespace

TEST_CASE("safetensors: F32, F16 and BF16 tensors read as floats", "[transformer]") {
    std::string data;
    const float f32[2] = {1.5f, -2.25f};
    data.append(reinterpret_cast<const char*>(f32), sizeof f32);
    const unsigned char f16[4] = {0x00, 0x3C, 0x00, 0xC1};  // 1.0, -2.5
    data.append(reinterpret_cast<const char*>(f16), 4);
    const unsigned char bf16[4] = {0xC0, 0x3F, 0x80, 0xBF};  // 1.5, -1.0
    data.append(reinterpret_cast<const char*>(bf16), 4);
    const std::string file = file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},
        "b":{"dtype":"F16","shape":[1,2],"data_offsets":[8,12]},"c":{"dtype":"BF16","shape":[2],"data_offsets":[12,16]},
        "__metadata__":{"format":"pt"}})",
                                     data);
    auto st = parse_safetensors(file);
    REQUIRE(st.ok());
    CHECK(st->floats("a", {2}).value() == std::vector<float>{1.5f, -2.25f});
    CHECK(st->floats("b", {1, 2}).value() == std::vector<float>{1.0f, -2.5f});
    CHECK(st->floats("c", {}).value() == std::vector<float>{1.5f, -1.0f});
    auto wrong = st->floats("a", {3});
    REQUIRE_FALSE(wrong.ok());
    CHECK(wrong.status().message().find("[2]") != std::string::npos);
    CHECK_FALSE(st->floats("missing", {}).ok());
    // The writer's output reads back.
    const std::string written =
        scout::detail::bert::write_safetensors({{"x", {{2, 1}, {3.0f, 4.0f}}}});
    auto back = parse_safetensors(written);  // a view: the bytes must outlive it
    REQUIRE(back.ok());
    CHECK(back->floats("x", {2, 1}).value() == std::vector<float>{3.0f, 4.0f});
}

TEST_CASE("safetensors: hostile headers are refused, never read out of bounds", "[transformer]") {
    const std::string data(16, '\0');
    const char* bad[] = {
        R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,20]}})",  // beyond the data
        R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[8,4]}})",   // reversed
        R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,16]}})",  // size mismatch
        R"({"a":{"dtype":"F32","shape":[4611686018427387904,4],"data_offsets":[0,16]}})",  // overflow
        R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,16]}})",
        R"({"a":{"dtype":"Q4","shape":[4],"data_offsets":[0,16]}})",
        R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0]}})",
        R"({"a":{"dtype":"F32","shape":[4]}})",
        R"({"a":[1,2]})",
        R"({"a":{"dtype":"F32","shape":[1,1,1,1,1,1,1,1,1],"data_offsets":[0,4]}})",
    };
    for (const char* header : bad) {
        auto r = parse_safetensors(file_of(header, data));
        INFO(header);
        CHECK_FALSE(r.ok());
    }
    CHECK(parse_safetensors(file_of("[]", data)).status().code() == Errc::invalid_argument);
    CHECK(parse_safetensors(file_of("{\"a\":", data)).status().code() == Errc::invalid_argument);
    CHECK(parse_safetensors("").status().code() == Errc::corrupt);
    std::string lying = file_of("{}", data);
    lying[6] = '\x01';  // header length 2^48
    CHECK(parse_safetensors(lying).status().code() == Errc::corrupt);
    // An integer tensor parses but is not read as floats.
    auto ints = parse_safetensors(
        file_of(R"({"i":{"dtype":"I64","shape":[2],"data_offsets":[0,16]}})", data));
    REQUIRE(ints.ok());
    CHECK_FALSE(ints->floats("i", {2}).ok());
}

TEST_CASE("config.json: sizes are bounded and checked", "[transformer]") {
    const std::string good =
        R"({"model_type":"bert","vocab_size":100,"hidden_size":32,"num_hidden_layers":2,
        "num_attention_heads":4,"intermediate_size":64,"max_position_embeddings":16,"hidden_act":"gelu_new"})";
    auto c = parse_bert_config(good);
    REQUIRE(c.ok());
    CHECK(c->hidden == 32);
    CHECK(c->type_vocab == 2);
    CHECK(c->activation == scout::detail::bert::Activation::gelu_tanh);
    auto edit = [&](const char* key, nlohmann::json value) {
        auto doc = nlohmann::json::parse(good);
        doc[key] = std::move(value);
        return parse_bert_config(doc.dump());
    };
    CHECK_FALSE(edit("hidden_size", 0).ok());
    CHECK_FALSE(edit("hidden_size", 1 << 20).ok());
    CHECK_FALSE(edit("vocab_size", -5).ok());
    CHECK_FALSE(edit("num_attention_heads", 5).ok());
    CHECK_FALSE(edit("layer_norm_eps", "small").ok());
    CHECK_FALSE(edit("position_embedding_type", "relative_key").ok());
    CHECK_FALSE(edit("num_hidden_layers", 1.5).ok());
    CHECK_FALSE(parse_bert_config("{\"vocab_size\": 100}").ok());
    CHECK_FALSE(parse_bert_config("").ok());
}

TEST_CASE("BertModel names the tensor that does not fit the config", "[transformer]") {
    const auto dir = scout::test::transformer_fixture_dir() / "tiny-bert";
    const std::string bytes = scout::test::read_bytes(dir / "model.safetensors");
    auto st = parse_safetensors(bytes);
    REQUIRE(st.ok());
    auto config = parse_bert_config(scout::test::read_bytes(dir / "config.json"));
    REQUIRE(config.ok());
    CHECK(scout::detail::bert::BertModel::from_safetensors(*st, *config, true).ok());
    auto more_layers = *config;
    more_layers.layers = 3;
    auto r = scout::detail::bert::BertModel::from_safetensors(*st, more_layers, false);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message().find("encoder.layer.2.") != std::string::npos);
    auto fewer_positions = *config;
    fewer_positions.max_positions = 40;
    r = scout::detail::bert::BertModel::from_safetensors(*st, fewer_positions, false);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message().find("position_embeddings") != std::string::npos);
}
