// vector_formats.cpp: readers for the word-vector files users bring (word2vec text and binary,
// fastText .vec, GloVe text) and for the wink-embeddings npm package's JSON, all into a
// VectorTable. Each reader checks every size against the bytes that are really there.
#include <algorithm>
#include <charconv>
#include <cstring>
#include <numeric>
#include <span>

#include "embed/vector_table.hpp"
#include "embed/word_model.hpp"
#include "util/file_io.hpp"
#include "util/utf8.hpp"

namespace scout::detail {
namespace {

constexpr std::size_t kMaxDim = 65536;

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

std::vector<std::string_view> split_fields(std::string_view line) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && is_space(line[i])) {
            ++i;
        }
        const std::size_t start = i;
        while (i < line.size() && !is_space(line[i])) {
            ++i;
        }
        if (i > start) {
            out.push_back(line.substr(start, i - start));
        }
    }
    return out;
}

bool parse_float(std::string_view s, float& out) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size();
}

bool parse_size(std::string_view s, std::size_t& out) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size();
}

/// "count dim" header of word2vec and fastText files.
bool parse_header(std::string_view line, std::size_t& count, std::size_t& dim) {
    const auto f = split_fields(line);
    return f.size() == 2 && parse_size(f[0], count) && parse_size(f[1], dim) && dim > 0 &&
           dim <= kMaxDim;
}

/// One "word v1 .. vd" line per word. With dim == 0 the first line decides it. The word is
/// everything before the last dim fields, so words with inner spaces survive.
Result<VectorTable> read_text_rows(const std::string& path,
                                   std::string_view text,
                                   std::size_t dim) {
    VectorTable table;
    std::vector<float> values;
    std::size_t line_no = 0;
    for (std::size_t pos = 0; pos < text.size();) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) {
            end = text.size();
        }
        const std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        ++line_no;
        const auto fields = split_fields(line);
        if (fields.empty()) {
            continue;
        }
        if (dim == 0) {
            if (fields.size() < 2 || fields.size() - 1 > kMaxDim) {
                return Status{Errc::invalid_argument, path + ":1: expected a word and its values"};
            }
            dim = fields.size() - 1;
        }
        if (fields.size() < dim + 1) {
            return Status{Errc::invalid_argument,
                          path + ":" + std::to_string(line_no) + ": expected " +
                              std::to_string(dim) + " values"};
        }
        values.resize(dim);
        const std::size_t first = fields.size() - dim;
        for (std::size_t i = 0; i < dim; ++i) {
            if (!parse_float(fields[first + i], values[i])) {
                return Status{Errc::invalid_argument,
                              path + ":" + std::to_string(line_no) + ": bad number '" +
                                  std::string(fields[first + i]) + "'"};
            }
        }
        const char* word_end = fields[first - 1].data() + fields[first - 1].size();
        const std::string_view word(fields[0].data(),
                                    static_cast<std::size_t>(word_end - fields[0].data()));
        if (Status s = table.add(word, values.data(), dim); !s.ok()) {
            return Status{s.code(), path + ":" + std::to_string(line_no) + ": " + s.message()};
        }
    }
    if (table.size() == 0) {
        return Status{Errc::invalid_argument, path + ": no vectors"};
    }
    table.finish();
    return table;
}

/// word2vec binary: "count dim\n", then per word: the word, a space, dim little-endian floats,
/// and (in most writers) a newline.
Result<VectorTable> read_word2vec_binary(const std::string& path,
                                         std::string_view data,
                                         std::size_t count,
                                         std::size_t dim) {
    VectorTable table;
    std::vector<float> values(dim);
    std::size_t pos = 0;
    for (std::size_t n = 0; n < count; ++n) {
        while (pos < data.size() && is_space(data[pos])) {
            ++pos;
        }
        const std::size_t space = data.find(' ', pos);
        if (space == std::string_view::npos || space - pos > 1024 ||
            data.size() - (space + 1) < dim * 4) {
            return Status{Errc::corrupt, path + ": truncated at word " + std::to_string(n)};
        }
        std::memcpy(values.data(), data.data() + space + 1, dim * 4);
        if (Status s = table.add(data.substr(pos, space - pos), values.data(), dim); !s.ok()) {
            return Status{s.code(), path + ": " + s.message()};
        }
        pos = space + 1 + dim * 4;
    }
    if (table.size() == 0) {
        return Status{Errc::invalid_argument, path + ": no vectors"};
    }
    table.finish();
    return table;
}

/// Decodes the JSON string starting at data[pos] == '"'; pos ends after the closing quote.
bool json_string(std::string_view data, std::size_t& pos, std::string& out) {
    out.clear();
    if (pos >= data.size() || data[pos] != '"') {
        return false;
    }
    for (++pos; pos < data.size(); ++pos) {
        const char c = data[pos];
        if (c == '"') {
            ++pos;
            return true;
        }
        if (c != '\\') {
            out.push_back(c);
            continue;
        }
        if (++pos >= data.size()) {
            return false;
        }
        switch (data[pos]) {
            case 'n':
                out.push_back('\n');
                break;
            case 't':
                out.push_back('\t');
                break;
            case 'r':
                out.push_back('\r');
                break;
            case 'b':
                out.push_back('\b');
                break;
            case 'f':
                out.push_back('\f');
                break;
            case 'u': {
                unsigned cp = 0;
                if (pos + 4 >= data.size() ||
                    std::from_chars(data.data() + pos + 1, data.data() + pos + 5, cp, 16).ptr !=
                        data.data() + pos + 5) {
                    return false;
                }
                pos += 4;
                // Lone surrogates become U+FFFD; such words never match analyzed text anyway.
                if (cp >= 0xD800 && cp <= 0xDFFF) {
                    cp = 0xFFFD;
                }
                utf8_append(out, cp);
                break;
            }
            default:
                out.push_back(data[pos]);
                break;  // \" \\ \/
        }
    }
    return false;
}

void skip_ws(std::string_view data, std::size_t& pos) {
    while (pos < data.size() && is_space(data[pos])) {
        ++pos;
    }
}

/// Integer value of `"key":N` at the top level of the wink JSON, or nullopt.
std::optional<std::size_t> json_number_field(std::string_view data, std::string_view key) {
    std::string needle(1, '"');  // built piecewise: g++ 12 warns falsely on "lit" + string
    needle.append(key);
    needle.append("\":");
    const std::size_t at = data.substr(0, std::min<std::size_t>(data.size(), 4096)).find(needle);
    if (at == std::string_view::npos) {
        return std::nullopt;
    }
    std::size_t pos = at + needle.size();
    skip_ws(data, pos);
    std::size_t value = 0;
    const auto [p, ec] = std::from_chars(data.data() + pos, data.data() + data.size(), value);
    return ec == std::errc() && p != data.data() + pos ? std::optional(value) : std::nullopt;
}

/// wink-embeddings: {"dimensions":D,"wordIndex":W,...,"vectors":{"word":[v1..vD,norm,rank],...}}.
Result<VectorTable> read_wink_json(const std::string& path, std::string_view data) {
    const auto bad = [&](const std::string& why) {
        return Status{Errc::corrupt, path + ": " + why};
    };
    const auto dim = json_number_field(data, "dimensions");
    if (!dim || *dim == 0 || *dim > kMaxDim) {
        return bad("no valid \"dimensions\"");
    }
    const std::size_t rank_at = json_number_field(data, "wordIndex").value_or(*dim + 1);
    // A word in the "words" array is followed by ',' or ']', never ':', so this finds the key.
    std::size_t pos = data.find("\"vectors\":");
    if (pos == std::string_view::npos) {
        return bad("no \"vectors\" object");
    }
    pos += 10;
    skip_ws(data, pos);
    if (pos >= data.size() || data[pos] != '{') {
        return bad("\"vectors\" is not an object");
    }
    ++pos;
    struct Entry {
        std::size_t rank;
        std::string word;
        std::size_t offset;
    };
    std::vector<Entry> entries;
    std::vector<float> values;
    std::vector<float> row;
    std::string word;
    for (;;) {
        skip_ws(data, pos);
        if (pos < data.size() && data[pos] == '}') {
            break;
        }
        if (!json_string(data, pos, word)) {
            return bad("bad key at byte " + std::to_string(pos));
        }
        skip_ws(data, pos);
        if (pos + 1 >= data.size() || data[pos] != ':') {
            return bad("expected ':' at byte " + std::to_string(pos));
        }
        ++pos;
        skip_ws(data, pos);
        if (pos >= data.size() || data[pos] != '[') {
            return bad("expected '[' at byte " + std::to_string(pos));
        }
        ++pos;
        row.clear();
        for (;;) {
            skip_ws(data, pos);
            float v = 0.0f;
            const auto [p, ec] = std::from_chars(data.data() + pos, data.data() + data.size(), v);
            if (ec != std::errc() || row.size() > *dim + 8) {
                return bad("bad number at byte " + std::to_string(pos));
            }
            row.push_back(v);
            pos = static_cast<std::size_t>(p - data.data());
            skip_ws(data, pos);
            if (pos < data.size() && data[pos] == ',') {
                ++pos;
                continue;
            }
            if (pos < data.size() && data[pos] == ']') {
                ++pos;
                break;
            }
            return bad("expected ',' or ']' at byte " + std::to_string(pos));
        }
        if (row.size() < *dim) {
            return bad("vector of '" + word + "' has " + std::to_string(row.size()) + " values");
        }
        const std::size_t rank =
            row.size() > rank_at ? static_cast<std::size_t>(row[rank_at]) : entries.size();
        entries.push_back({rank, word, values.size()});
        values.insert(values.end(), row.begin(), row.begin() + static_cast<std::ptrdiff_t>(*dim));
        skip_ws(data, pos);
        if (pos < data.size() && data[pos] == ',') {
            ++pos;
        }
    }
    std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
        return a.rank < b.rank;
    });
    VectorTable table;
    for (const Entry& e : entries) {
        if (Status s = table.add(e.word, values.data() + e.offset, *dim); !s.ok()) {
            return Status{s.code(), path + ": " + s.message()};
        }
    }
    if (table.size() == 0) {
        return bad("no vectors");
    }
    table.finish();
    return table;
}

}  // namespace

Result<VectorTable> read_vectors(const std::string& path) {
    // Mapped (a vector file may be gigabytes), through the reader that refuses FIFOs and
    // devices before reading a byte.
    auto file = MappedFile::open(path);
    if (!file) {
        return model_file_error(file.status());
    }
    const std::span<const std::uint8_t> bytes = file->bytes();
    const std::string_view data(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    if (data.empty()) {
        return Status{Errc::invalid_argument, path + ": empty file"};
    }
    if (data.size() >= 8 && std::memcmp(data.data(), kScoutVectorMagic, 8) == 0) {
        return read_scout_vectors(path);
    }
    if (data.size() >= 8 && std::memcmp(data.data(), kWordModelMagic, 8) == 0) {
        auto model =
            parse_word_model(data, path);  // its vectors alone; read_word_model keeps the weights
        if (!model) {
            return model.status();
        }
        return std::move(model.value().table);
    }
    std::size_t first = 0;
    skip_ws(data, first);
    if (first < data.size() && data[first] == '{') {
        return read_wink_json(path, data);
    }
    const std::size_t eol = std::min(data.find('\n'), data.size());
    std::size_t count = 0;
    std::size_t dim = 0;
    if (!parse_header(data.substr(0, eol), count, dim)) {
        return read_text_rows(path, data, 0);  // GloVe: no header line
    }
    const std::string_view body = eol < data.size() ? data.substr(eol + 1) : std::string_view();
    // Text rows hold only printable bytes; raw floats almost surely hold a control byte.
    const std::string_view probe = body.substr(0, std::min<std::size_t>(body.size(), 4096));
    const bool binary = std::any_of(probe.begin(), probe.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u < 0x20 && u != '\n' && u != '\r' && u != '\t';
    });
    if (binary) {
        return read_word2vec_binary(path, body, count, dim);
    }
    return read_text_rows(path, body, dim);
}

}  // namespace scout::detail
