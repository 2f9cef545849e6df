// transformer_embedder_test.cpp: TransformerEmbedder on the committed tiny BERT: embeddings
// within 1e-4 of PyTorch's (tests/fixtures/transformer/embeddings.json) for every compiled
// instruction-set build, mean and CLS pooling, normalization on and off, truncation, batches
// equal to one-by-one, model ids, malformed model directories, and a catalog search end to end.
#include "scout/transformer/transformer_embedder.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"
#include "scout/embedder.hpp"

#include "support/temp_dir.hpp"
#include "support/transformer_fixture.hpp"
#include "transformer/transformer_impl.hpp"

using scout::Errc;
using scout::TransformerEmbedder;
using scout::TransformerEmbedderOptions;
using scout::TransformerPooling;
using scout::test::fixture_ids;
using scout::test::fixture_text;
using Access = scout::detail::TransformerAccess;

namespace {

std::shared_ptr<TransformerEmbedder> load(TransformerEmbedderOptions options = {},
                                          const std::string& dir = scout::test::tiny_bert_dir()) {
    auto loaded = TransformerEmbedder::load(dir, options);
    INFO(loaded.status().to_string());
    REQUIRE(loaded.ok());
    return loaded.value();
}

std::vector<float> unit(std::vector<float> v) {
    double n = 0;
    for (float x : v) {
        n += static_cast<double>(x) * static_cast<double>(x);
    }
    for (float& x : v) {
        x = static_cast<float>(static_cast<double>(x) / std::sqrt(n));
    }
    return v;
}

/// Largest absolute difference between row `row` of `got` and `want`.
double max_diff(const std::vector<float>& got, std::size_t row, const std::vector<float>& want) {
    double worst = 0;
    for (std::size_t c = 0; c < want.size(); ++c) {
        worst = std::max(worst,
                         std::abs(static_cast<double>(got[row * want.size() + c]) -
                                  static_cast<double>(want[c])));
    }
    return worst;
}

void write_file(const std::filesystem::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
}

Errc load_error(const std::string& dir, const std::string& must_mention) {
    auto r = TransformerEmbedder::load(dir);
    REQUIRE_FALSE(r.ok());
    INFO(r.status().to_string());
    CHECK(r.status().message().find(must_mention) != std::string::npos);
    return r.status().code();
}

}  // namespace

TEST_CASE("embeddings match PyTorch within 1e-4 for every encoder build and pooling",
          "[transformer]") {
    const auto doc = scout::test::read_fixture_json("embeddings.json");
    const auto& texts = doc["texts"];
    REQUIRE(texts.size() >= 30);
    std::vector<std::vector<std::int32_t>> ids;
    std::vector<std::string> strings;
    for (const auto& row : texts) {
        ids.push_back(fixture_ids(row["ids"]));
        strings.push_back(fixture_text(row));
    }
    int builds = 0;
    for (const char* isa : {"generic", "avx2", "avx512"}) {
        const auto* kernels = scout::detail::bert::find_encoder_kernels(isa);
        if (kernels == nullptr) {
            WARN("encoder build " << isa << " is not supported on this CPU");
            continue;
        }
        ++builds;
        for (TransformerPooling pooling : {TransformerPooling::mean, TransformerPooling::cls}) {
            for (bool normalize : {false, true}) {
                TransformerEmbedderOptions options;
                options.pooling = pooling;
                options.normalize = normalize;
                Access::Impl impl = Access::impl(*load(options));
                impl.kernels = kernels;
                const auto embedder = Access::make(std::make_shared<const Access::Impl>(impl));
                const auto from_ids = impl.embed_ids(ids);  // one pass: the GEMM path
                auto from_text = embedder->embed(strings);
                REQUIRE(from_text.ok());
                double worst = 0;
                for (std::size_t i = 0; i < texts.size(); ++i) {
                    auto want = texts[i][pooling == TransformerPooling::cls ? "cls" : "mean"]
                                    .get<std::vector<float>>();
                    if (normalize) {
                        want = unit(want);
                    }
                    // Alone, a short text takes the small-pass (panel) kernel where the build has
                    // one.
                    const auto alone = impl.embed_ids({ids[i]});
                    worst = std::max({worst,
                                      max_diff(from_ids, i, want),
                                      max_diff(from_text.value(), i, want),
                                      max_diff(alone, 0, want)});
                }
                INFO(isa << " pooling " << (pooling == TransformerPooling::cls ? "cls" : "mean")
                         << " normalize " << normalize);
                CHECK(worst < 1e-4);
            }
        }
    }
    CHECK(builds >= 1);
}

TEST_CASE("the model directory's pooling and normalization are the defaults", "[transformer]") {
    auto embedder = load();
    CHECK(embedder->dim() == 36);
    CHECK(embedder->max_length() == 40);  // sentence_bert_config.json, below the 48 positions
    const auto& impl = Access::impl(*embedder);
    CHECK(impl.pooling == TransformerPooling::mean);  // 1_Pooling/config.json
    CHECK(impl.normalize);                            // the Normalize module
    auto out = embedder->embed(std::vector<std::string>{"read a file"});
    REQUIRE(out.ok());
    double norm = 0;
    for (float x : out.value()) {
        norm += static_cast<double>(x) * static_cast<double>(x);
    }
    CHECK(std::abs(norm - 1.0) < 1e-5);
    CHECK(embedder->model_id().find("-mean-norm-len40-") != std::string::npos);
}

TEST_CASE("texts longer than the maximum length are truncated", "[transformer]") {
    TransformerEmbedderOptions options;
    options.max_length = 10;
    auto short_model = load(options);
    std::string long_text;
    for (int i = 0; i < 200; ++i) {
        long_text += "read the file ";
    }
    const auto ids = short_model->token_ids(long_text);
    REQUIRE(ids.size() == 10);
    CHECK(ids.front() == 2);
    CHECK(ids.back() == 3);
    CHECK(load()->token_ids(long_text).size() == 40);
    options.max_length = 1000;  // capped by the 48 position embeddings
    CHECK(load(options)->max_length() == 48);
    // The truncated text embeds exactly as its first pieces do.
    auto a = short_model->embed(std::vector<std::string>{long_text});
    auto b = short_model->embed(std::vector<std::string>{"read the file read the file read the"});
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    CHECK(max_diff(a.value(), 0, b.value()) < 1e-6);
    options.max_length = 2;
    auto none = TransformerEmbedder::load(scout::test::tiny_bert_dir(), options);
    CHECK_FALSE(none.ok());
}

TEST_CASE("a batch embeds as its texts do one by one, on any number of threads",
          "[transformer][concurrency]") {
    std::vector<std::string> texts;
    for (int i = 0; i < 37; ++i) {
        std::string t = "tool " + std::to_string(i);
        for (int j = 0; j < i % 9; ++j) {
            t += " search files quickly";
        }
        texts.push_back(i % 11 == 5 ? std::string() : t);
    }
    auto single = load();
    std::vector<float> one_by_one;
    for (const std::string& t : texts) {
        auto v = single->embed(std::vector<std::string>{t});
        REQUIRE(v.ok());
        one_by_one.insert(one_by_one.end(), v->begin(), v->end());
    }
    for (std::size_t threads = 1; threads <= 3; ++threads) {
        for (std::size_t batch_tokens : std::vector<std::size_t>{1, 7, 64, 4096}) {
            TransformerEmbedderOptions options;
            options.threads = threads;
            options.batch_tokens = batch_tokens;
            auto batched = load(options)->embed(texts);
            REQUIRE(batched.ok());
            REQUIRE(batched->size() == one_by_one.size());
            double worst = 0;
            for (std::size_t i = 0; i < one_by_one.size(); ++i) {
                worst = std::max(worst,
                                 std::abs(static_cast<double>(batched.value()[i]) -
                                          static_cast<double>(one_by_one[i])));
            }
            INFO("threads " << threads << ", batch tokens " << batch_tokens);
            CHECK(worst < 1e-5);
        }
    }
    CHECK(single->embed(std::vector<std::string>{})->empty());
}

TEST_CASE("the model id follows the files' content", "[transformer]") {
    scout::test::TempDir tmp;
    const std::string same = scout::test::copy_tiny_bert(tmp.file("same"));
    const std::string other = scout::test::copy_tiny_bert(tmp.file("other"));
    // One weight changed: the last byte of the data section.
    std::string weights = scout::test::read_bytes(other + "/model.safetensors");
    weights.back() = static_cast<char>(weights.back() ^ 0x01);
    write_file(other + "/model.safetensors", weights);
    const std::string id = load()->model_id();
    CHECK(load({}, same)->model_id() == id);
    CHECK(load({}, other)->model_id() != id);
    TransformerEmbedderOptions cls;
    cls.pooling = TransformerPooling::cls;
    CHECK(load(cls)->model_id() != id);
    TransformerEmbedderOptions plain;
    plain.normalize = false;
    CHECK(load(plain)->model_id() != id);
}

TEST_CASE("malformed model directories are refused with a clear status", "[transformer]") {
    scout::test::TempDir tmp;
    int n = 0;
    auto fresh = [&] {
        std::string name = std::to_string(n++);
        name.insert(0, 1, 'm');  // (GCC 12 misreports "m" + std::string under -Wrestrict)
        return scout::test::copy_tiny_bert(tmp.file(name));
    };
    namespace fs = std::filesystem;

    CHECK(load_error(tmp.file("nothing-here"), "not a model directory") == Errc::not_found);
    std::string d = fresh();
    fs::remove(d + "/config.json");
    CHECK(load_error(d, "config.json") == Errc::not_found);
    d = fresh();
    fs::remove(d + "/model.safetensors");
    CHECK(load_error(d, "safetensors") == Errc::not_found);
    d = fresh();
    fs::remove(d + "/tokenizer.json");
    fs::remove(d + "/vocab.txt");
    CHECK(load_error(d, "vocab.txt") == Errc::not_found);
    d = fresh();
    fs::remove(d + "/tokenizer.json");  // vocab.txt remains: still loads, with the same ids
    CHECK(load({}, d)->token_ids("Read the FILES, café!") ==
          load()->token_ids("Read the FILES, café!"));

    d = fresh();
    write_file(d + "/config.json", "{\"model_type\": \"bert\", \"hidden_size\": ");
    CHECK(load_error(d, "config.json") == Errc::invalid_argument);
    d = fresh();
    auto config = nlohmann::json::parse(scout::test::read_bytes(d + "/config.json"));
    config["intermediate_size"] = 53;
    write_file(d + "/config.json", config.dump());
    CHECK(load_error(d, "intermediate.dense.weight") == Errc::invalid_argument);
    config["intermediate_size"] = 52;
    config["hidden_size"] = 35;
    write_file(d + "/config.json", config.dump());
    CHECK(load_error(d, "hidden_size") == Errc::invalid_argument);  // not a multiple of 4 heads
    config["hidden_size"] = 36;
    config["hidden_act"] = "swish";
    write_file(d + "/config.json", config.dump());
    CHECK(load_error(d, "hidden_act") == Errc::invalid_argument);
    config["hidden_act"] = "gelu";
    config["model_type"] = "roberta";
    write_file(d + "/config.json", config.dump());
    CHECK(load_error(d, "model_type") == Errc::invalid_argument);

    d = fresh();
    const std::string weights = scout::test::read_bytes(d + "/model.safetensors");
    write_file(d + "/model.safetensors", weights.substr(0, weights.size() - 100));
    CHECK(load_error(d, "outside the data") == Errc::corrupt);
    write_file(d + "/model.safetensors", weights.substr(0, 5));
    CHECK(load_error(d, "shorter than") == Errc::corrupt);
    std::string huge = weights;
    huge[7] = '\x7f';  // header length far beyond the file
    write_file(d + "/model.safetensors", huge);
    CHECK(load_error(d, "header length") == Errc::corrupt);

    d = fresh();
    auto tok = nlohmann::json::parse(scout::test::read_bytes(d + "/tokenizer.json"));
    tok["model"]["vocab"]["zzz"] = 5000;  // beyond the 205 embedding rows
    write_file(d + "/tokenizer.json", tok.dump());
    CHECK(load_error(d, "vocabulary only") == Errc::invalid_argument);

    d = fresh();
    write_file(d + "/modules.json",
               R"([{"type": "sentence_transformers.models.Transformer", "path": ""},
        {"type": "sentence_transformers.models.Dense", "path": "2_Dense"}])");
    CHECK(load_error(d, "Dense") == Errc::invalid_argument);
    write_file(d + "/modules.json",
               R"([{"type": "sentence_transformers.models.Pooling", "path": "../../etc"}])");
    CHECK(load_error(d, "leaves the model directory") == Errc::invalid_argument);
    d = fresh();
    write_file(d + "/1_Pooling/config.json",
               R"({"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": true})");
    CHECK(load_error(d, "pooling") == Errc::invalid_argument);
    write_file(d + "/1_Pooling/config.json", R"({"pooling_mode_cls_token": true})");
    CHECK(Access::impl(*load({}, d)).pooling == TransformerPooling::cls);
}

TEST_CASE("a catalog searches with the transformer embedder end to end", "[transformer]") {
    auto embedder = load();
    auto created = scout::Catalog::create({}, embedder);
    REQUIRE(created.ok());
    scout::Catalog catalog = std::move(created.value());
    scout::ServerSpec files;
    files.name = "files";
    files.description = "file store";
    files.tools = {scout::ToolSpec{"read_file", "", "read a file from the store", "", ""},
                   scout::ToolSpec{"write_file", "", "write data to a file", "", ""},
                   scout::ToolSpec{"list_files", "", "list the files of a folder", "", ""}};
    scout::ServerSpec mail;
    mail.name = "mail";
    mail.description = "email";
    mail.tools = {scout::ToolSpec{"send_email", "", "send an email to a user", "", ""},
                  scout::ToolSpec{"search_email", "", "search the inbox with a query", "", ""}};
    REQUIRE(catalog.upsert_server(files).ok());
    REQUIRE(catalog.upsert_server(mail).ok());
    auto first = catalog.commit();
    REQUIRE(first.ok());
    CHECK(first->dense_ready);
    CHECK(first->embedded == 5);
    CHECK(catalog.commit()->embedded == 0);  // cached by model id and text

    // The weights are random, so no semantic ranking is asked for: dense search must run (not
    // degrade) and rank every tool, and hybrid search must keep the BM25 match first.
    scout::SearchOptions dense;
    dense.mode = scout::Mode::dense;
    dense.top_k = 5;
    auto result = catalog.searcher().search("send an email to a user", dense);
    REQUIRE(result.ok());
    CHECK_FALSE(result->degraded);
    REQUIRE(result->hits.size() == 5);
    for (const auto& hit : result->hits) {
        CHECK(hit.dense_rank > 0);
    }
    auto hybrid = catalog.searcher().search("send email");
    REQUIRE(hybrid.ok());
    CHECK_FALSE(hybrid->degraded);
    REQUIRE_FALSE(hybrid->hits.empty());
    CHECK(hybrid->hits[0].tool == "send_email");

    REQUIRE(
        catalog.upsert_tool("files", scout::ToolSpec{"read_file", "", "read a whole file", "", ""})
            .ok());
    CHECK(catalog.commit()->embedded == 1);
}
