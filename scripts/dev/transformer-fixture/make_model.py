# make_model.py: writes the tiny random-weight BERT model directory of the transformer tests:
# config.json, model.safetensors (F32), tokenizer.json (uncased) and tokenizer-cased.json,
# vocab.txt + tokenizer_config.json, and the sentence-transformers files (modules.json with
# Pooling and Normalize, 1_Pooling/config.json, sentence_bert_config.json).
# Needs Debian's python3-torch (dev-only). Run through gen.sh.
import json
import os
import struct
import sys

import torch

OUT = sys.argv[1]
HIDDEN, HEADS, LAYERS, INTERMEDIATE, MAX_POS, MAX_SEQ = 36, 4, 2, 52, 48, 40

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
ASCII_PUNCT = [chr(c) for c in range(33, 127) if not chr(c).isalnum()]
LETTERS = [chr(c) for c in range(ord("a"), ord("z") + 1)]
WORDS = ["the", "tool", "tools", "search", "file", "files", "read", "write", "list", "create", "delete",
         "get", "set", "user", "data", "query", "server", "email", "send", "open", "close", "cafe", "un",
         "re", "in", "on", "of", "and", "to", "for", "with", "is", "it", "new", "old", "run", "test"]
SUFFIXES = ["##ing", "##ed", "##er", "##ly", "##tion", "##able", "##es", "##al", "##ment"]
OTHER = ["é", "ü", "ß", "ñ", "ç", "ø", "α", "β", "γ", "д", "и", "中", "文", "日", "本", "字", "の", "ア",
         "한", "😀", "👍", "«", "»", "—", "“", "”", "¿", "¡", "·", "€", "°", "…", "café", "naïve", "über",
         "##é", "##ü", "##ß", "##ñ", "##😀", "ᄒ", "##ᅡ", "##ᆫ", "Tool", "A", "B", "T", "##A", "##B", "É"]
DIGITS = [str(d) for d in range(10)]

vocab = SPECIALS + ASCII_PUNCT + DIGITS + LETTERS + ["##" + c for c in LETTERS] + ["##" + d for d in DIGITS]
vocab += WORDS + SUFFIXES + OTHER
assert len(vocab) == len(set(vocab)), [t for t in vocab if vocab.count(t) > 1]
VOCAB = len(vocab)

os.makedirs(os.path.join(OUT, "1_Pooling"), exist_ok=True)


def write(name, text):
    with open(os.path.join(OUT, name), "w", encoding="utf-8") as f:
        f.write(text)


def dump(obj):
    return json.dumps(obj, ensure_ascii=False, indent=1) + "\n"


write("vocab.txt", "".join(t + "\n" for t in vocab))
config = {"architectures": ["BertModel"], "model_type": "bert", "vocab_size": VOCAB, "hidden_size": HIDDEN,
          "num_hidden_layers": LAYERS, "num_attention_heads": HEADS, "intermediate_size": INTERMEDIATE,
          "max_position_embeddings": MAX_POS, "type_vocab_size": 2, "layer_norm_eps": 1e-12,
          "hidden_act": "gelu", "position_embedding_type": "absolute"}
write("config.json", dump(config))
write("tokenizer_config.json", dump({"do_lower_case": True, "tokenize_chinese_chars": True, "strip_accents": None,
                                     "unk_token": "[UNK]", "cls_token": "[CLS]", "sep_token": "[SEP]",
                                     "pad_token": "[PAD]", "mask_token": "[MASK]", "model_max_length": 512}))
write("modules.json", dump([
    {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
    {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}]))
write("1_Pooling/config.json", dump({"word_embedding_dimension": HIDDEN, "pooling_mode_cls_token": False,
                                     "pooling_mode_mean_tokens": True, "pooling_mode_max_tokens": False,
                                     "pooling_mode_mean_sqrt_len_tokens": False}))
write("sentence_bert_config.json", dump({"max_seq_length": MAX_SEQ, "do_lower_case": False}))


def tokenizer_json(lowercase):
    ids = {t: i for i, t in enumerate(vocab)}
    added = [{"id": ids[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for t in SPECIALS]
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
            "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                           "strip_accents": None, "lowercase": lowercase},
            "pre_tokenizer": {"type": "BertPreTokenizer"},
            "post_processor": {"type": "TemplateProcessing",
                               "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                                          {"Sequence": {"id": "A", "type_id": 0}},
                                          {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
                               "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                                        {"Sequence": {"id": "A", "type_id": 0}},
                                        {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
                                        {"Sequence": {"id": "B", "type_id": 1}},
                                        {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
                               "special_tokens": {t: {"id": t, "ids": [ids[t]], "tokens": [t]} for t in ["[CLS]", "[SEP]"]}},
            "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
            "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                      "max_input_chars_per_word": 100, "vocab": ids}}


write("tokenizer.json", json.dumps(tokenizer_json(True), ensure_ascii=False) + "\n")
write("tokenizer-cased.json", json.dumps(tokenizer_json(False), ensure_ascii=False) + "\n")

# Weights: BERT's tensor names and PyTorch's [out, in] layout.
g = torch.Generator().manual_seed(20240611)


def rand(*shape, std=0.1):
    return (torch.randn(*shape, generator=g) * std).float()


tensors = {
    "embeddings.word_embeddings.weight": rand(VOCAB, HIDDEN, std=0.5),
    "embeddings.position_embeddings.weight": rand(MAX_POS, HIDDEN, std=0.5),
    "embeddings.token_type_embeddings.weight": rand(2, HIDDEN, std=0.5),
    "embeddings.LayerNorm.weight": 1 + rand(HIDDEN),
    "embeddings.LayerNorm.bias": rand(HIDDEN),
    "embeddings.position_ids": torch.arange(MAX_POS).unsqueeze(0),  # an int64 buffer, as HF saves it
}
for i in range(LAYERS):
    p = f"encoder.layer.{i}."
    for part in ["query", "key", "value"]:
        tensors[p + f"attention.self.{part}.weight"] = rand(HIDDEN, HIDDEN, std=0.3)
        tensors[p + f"attention.self.{part}.bias"] = rand(HIDDEN)
    tensors[p + "attention.output.dense.weight"] = rand(HIDDEN, HIDDEN, std=0.3)
    tensors[p + "attention.output.dense.bias"] = rand(HIDDEN)
    tensors[p + "attention.output.LayerNorm.weight"] = 1 + rand(HIDDEN)
    tensors[p + "attention.output.LayerNorm.bias"] = rand(HIDDEN)
    tensors[p + "intermediate.dense.weight"] = rand(INTERMEDIATE, HIDDEN, std=0.3)
    tensors[p + "intermediate.dense.bias"] = rand(INTERMEDIATE)
    tensors[p + "output.dense.weight"] = rand(HIDDEN, INTERMEDIATE, std=0.3)
    tensors[p + "output.dense.bias"] = rand(HIDDEN)
    tensors[p + "output.LayerNorm.weight"] = 1 + rand(HIDDEN)
    tensors[p + "output.LayerNorm.bias"] = rand(HIDDEN)

# safetensors: u64 little-endian header size, JSON header (space-padded to 8 bytes), raw data.
header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
for name in sorted(tensors):
    t = tensors[name].contiguous()
    data = t.numpy().astype("<f4" if t.dtype == torch.float32 else "<i8").tobytes()
    header[name] = {"dtype": "F32" if t.dtype == torch.float32 else "I64", "shape": list(t.shape),
                    "data_offsets": [offset, offset + len(data)]}
    blobs.append(data)
    offset += len(data)
head = json.dumps(header, separators=(",", ":")).encode()
head += b" " * ((8 - len(head) % 8) % 8)
with open(os.path.join(OUT, "model.safetensors"), "wb") as f:
    f.write(struct.pack("<Q", len(head)) + head + b"".join(blobs))
print(f"make_model: {VOCAB} tokens, {sum(t.numel() for t in tensors.values())} parameters -> {OUT}")
