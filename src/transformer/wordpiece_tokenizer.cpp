// wordpiece_tokenizer.cpp: see wordpiece_tokenizer.hpp. Mirrors tokenizers' AddedVocabulary
// (leftmost-longest matches, lstrip / rstrip / single_word), BertPreTokenizer and WordPiece.
#include "transformer/wordpiece_tokenizer.hpp"

#include <algorithm>
#include <limits>

#include "util/utf8.hpp"

namespace scout::detail::bert {
namespace {

/// A code point that can continue a word, for single_word added tokens: not whitespace,
/// punctuation or a control character.
bool is_word_char(char32_t c) {
    return !is_bert_whitespace(c) && !is_bert_punctuation(c) && !is_bert_control(c);
}

bool is_plain_whitespace(char32_t c) {
    return is_bert_whitespace(c);
}

}  // namespace

WordPieceTokenizer::WordPieceTokenizer(TokenizerSpec spec) : spec_(std::move(spec)) {
    lookup_.reserve(spec_.vocab.size());
    for (const auto& [token, id] : spec_.vocab) {
        lookup_.emplace(token, id);
        max_id_ = std::max(max_id_, id);
    }
    if (const std::int32_t* unk = find(spec_.unk_token)) {
        unk_id_ = *unk;
    }
    for (const AddedToken& t : spec_.added) {
        max_id_ = std::max(max_id_, t.id);
        raw_added_.push_back(decode_utf8(t.content));
        normalized_added_.push_back(spec_.normalize ? normalize(raw_added_.back(), spec_.normalizer)
                                                    : raw_added_.back());
        const std::u32string& key = t.normalized ? normalized_added_.back() : raw_added_.back();
        if (!key.empty()) {
            (t.normalized ? normalized_first_ : raw_first_)[key.front()].push_back(
                raw_added_.size() - 1);
        }
    }
    for (std::int32_t id : spec_.prefix_ids) {
        max_id_ = std::max(max_id_, id);
    }
    for (std::int32_t id : spec_.suffix_ids) {
        max_id_ = std::max(max_id_, id);
    }
}

const std::int32_t* WordPieceTokenizer::find(std::string_view piece) const {
    auto it = lookup_.find(piece);
    return it == lookup_.end() ? nullptr : &it->second;
}

std::vector<WordPieceTokenizer::Piece> WordPieceTokenizer::split_added(std::u32string text,
                                                                       bool normalized) const {
    std::vector<Piece> out;
    const auto& first = normalized ? normalized_first_ : raw_first_;
    if (first.empty()) {
        out.push_back({std::move(text), -1});
        return out;
    }
    const std::vector<std::u32string>& contents = normalized ? normalized_added_ : raw_added_;
    std::size_t start_offset = 0;  // end of the previous piece
    std::size_t pos = 0;
    while (pos < text.size()) {
        // Leftmost-longest: the longest token that starts at `pos`.
        std::size_t best = spec_.added.size();
        std::size_t best_len = 0;
        const auto candidates = first.find(text[pos]);
        if (candidates == first.end()) {
            ++pos;
            continue;
        }
        for (std::size_t k : candidates->second) {
            const std::u32string& c = contents[k];
            if (c.size() <= best_len || c.size() > text.size() - pos) {
                continue;
            }
            if (std::equal(c.begin(), c.end(), text.begin() + static_cast<std::ptrdiff_t>(pos))) {
                best = k;
                best_len = c.size();
            }
        }
        if (best == spec_.added.size()) {
            ++pos;
            continue;
        }
        const AddedToken& token = spec_.added[best];
        std::size_t start = pos;
        std::size_t stop = pos + best_len;
        pos = stop;
        if (token.single_word) {
            const bool left_ok = start == 0 || !is_word_char(text[start - 1]);
            const bool right_ok = stop == text.size() || !is_word_char(text[stop]);
            if (!left_ok || !right_ok) {
                continue;
            }
        }
        if (token.lstrip) {
            std::size_t s = start;
            while (s > 0 && is_plain_whitespace(text[s - 1])) {
                --s;
            }
            start = std::max(s, start_offset);
        }
        if (token.rstrip) {
            while (stop < text.size() && is_plain_whitespace(text[stop])) {
                ++stop;
            }
            pos = stop;
        }
        if (start_offset < start) {
            out.push_back({text.substr(start_offset, start - start_offset), -1});
        }
        out.push_back({{}, token.id});
        start_offset = stop;
    }
    if (start_offset < text.size() || out.empty()) {
        out.push_back({text.substr(start_offset), -1});
    }
    return out;
}

void WordPieceTokenizer::encode_word(std::u32string_view word,
                                     std::vector<std::int32_t>& out) const {
    if (word.size() > spec_.max_input_chars_per_word) {
        out.push_back(unk_id_);
        return;
    }
    std::string bytes;
    std::vector<std::size_t> offsets;  // byte offset of each character, plus the end
    offsets.reserve(word.size() + 1);
    for (char32_t c : word) {
        offsets.push_back(bytes.size());
        detail::utf8_append(bytes, c);
    }
    offsets.push_back(bytes.size());
    const std::size_t mark = out.size();
    std::string candidate;
    std::size_t start = 0;
    while (start < word.size()) {
        std::size_t end = word.size();
        const std::int32_t* id = nullptr;
        while (start < end) {
            const std::string_view piece(bytes.data() + offsets[start],
                                         offsets[end] - offsets[start]);
            if (start > 0) {
                candidate.assign(spec_.continuing_prefix);
                candidate.append(piece);
                id = find(candidate);
            } else {
                id = find(piece);
            }
            if (id != nullptr) {
                break;
            }
            --end;
        }
        if (id == nullptr) {
            out.resize(mark);
            out.push_back(unk_id_);
            return;
        }
        out.push_back(*id);
        start = end;
    }
}

void WordPieceTokenizer::encode_words(std::u32string_view text,
                                      std::vector<std::int32_t>& out) const {
    std::size_t i = 0;
    while (i < text.size()) {
        const char32_t c = text[i];
        if (is_bert_whitespace(c)) {
            ++i;
        } else if (is_bert_punctuation(c)) {
            encode_word(text.substr(i, 1), out);
            ++i;
        } else {
            std::size_t j = i + 1;
            while (j < text.size() && !is_bert_whitespace(text[j]) &&
                   !is_bert_punctuation(text[j])) {
                ++j;
            }
            encode_word(text.substr(i, j - i), out);
            i = j;
        }
    }
}

std::vector<std::int32_t> WordPieceTokenizer::encode(std::string_view text,
                                                     std::size_t max_length) const {
    const std::size_t specials = special_count();
    std::size_t budget = std::numeric_limits<std::size_t>::max();
    if (max_length > 0) {
        budget = max_length > specials ? max_length - specials : 0;
    }
    std::vector<std::int32_t> body;
    for (Piece& raw : split_added(decode_utf8(text), false)) {
        if (body.size() >= budget) {
            break;  // truncation keeps the first pieces: the rest cannot matter
        }
        if (raw.added_id >= 0) {
            body.push_back(raw.added_id);
            continue;
        }
        std::u32string normalized =
            spec_.normalize ? normalize(raw.text, spec_.normalizer) : std::move(raw.text);
        for (const Piece& piece : split_added(std::move(normalized), true)) {
            if (piece.added_id >= 0) {
                body.push_back(piece.added_id);
            } else {
                encode_words(piece.text, body);
            }
        }
    }
    if (body.size() > budget) {
        body.resize(budget);
    }
    std::vector<std::int32_t> ids;
    ids.reserve(body.size() + specials);
    ids.insert(ids.end(), spec_.prefix_ids.begin(), spec_.prefix_ids.end());
    ids.insert(ids.end(), body.begin(), body.end());
    ids.insert(ids.end(), spec_.suffix_ids.begin(), spec_.suffix_ids.end());
    return ids;
}

}  // namespace scout::detail::bert
