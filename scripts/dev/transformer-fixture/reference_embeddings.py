# reference_embeddings.py: the embedding reference of the transformer tests. Rebuilds the tiny
# BERT from model.safetensors with PyTorch's own modules (nn.Embedding, nn.LayerNorm and
# nn.TransformerEncoderLayer(norm_first=False, activation="gelu"), which is BERT's post-LN
# layer), runs the texts' reference token ids (from reference_tokens.js) as one padded batch
# with a key padding mask, in float64, and writes embeddings.json: per text its ids and the mean
# and CLS pooled vectors (not normalized).
# Needs Debian's python3-torch (dev-only). Usage (through gen.sh): python3 reference_embeddings.py MODEL_DIR OUT_DIR
import json
import os
import struct
import sys

import torch

model_dir, out_dir = sys.argv[1], sys.argv[2]
config = json.load(open(os.path.join(model_dir, "config.json")))
H, HEADS, LAYERS = config["hidden_size"], config["num_attention_heads"], config["num_hidden_layers"]
EPS = config["layer_norm_eps"]


def read_safetensors(path):
    raw = open(path, "rb").read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    data = raw[8 + n:]
    out = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] != "F32":
            continue
        b, e = info["data_offsets"]
        out[name] = torch.frombuffer(bytearray(data[b:e]), dtype=torch.float32).reshape(info["shape"]).double()
    return out


w = read_safetensors(os.path.join(model_dir, "model.safetensors"))
torch.set_grad_enabled(False)
word = torch.nn.Embedding.from_pretrained(w["embeddings.word_embeddings.weight"])
pos = torch.nn.Embedding.from_pretrained(w["embeddings.position_embeddings.weight"])
typ = torch.nn.Embedding.from_pretrained(w["embeddings.token_type_embeddings.weight"])
emb_norm = torch.nn.LayerNorm(H, eps=EPS).double()
emb_norm.weight.copy_(w["embeddings.LayerNorm.weight"])
emb_norm.bias.copy_(w["embeddings.LayerNorm.bias"])
layers = []
for i in range(LAYERS):
    p = f"encoder.layer.{i}."
    layer = torch.nn.TransformerEncoderLayer(H, HEADS, dim_feedforward=config["intermediate_size"], dropout=0.0,
                                             activation="gelu", layer_norm_eps=EPS, batch_first=True,
                                             norm_first=False).double().eval()
    att = layer.self_attn
    att.in_proj_weight.copy_(torch.cat([w[p + f"attention.self.{k}.weight"] for k in ("query", "key", "value")]))
    att.in_proj_bias.copy_(torch.cat([w[p + f"attention.self.{k}.bias"] for k in ("query", "key", "value")]))
    att.out_proj.weight.copy_(w[p + "attention.output.dense.weight"])
    att.out_proj.bias.copy_(w[p + "attention.output.dense.bias"])
    layer.norm1.weight.copy_(w[p + "attention.output.LayerNorm.weight"])
    layer.norm1.bias.copy_(w[p + "attention.output.LayerNorm.bias"])
    layer.linear1.weight.copy_(w[p + "intermediate.dense.weight"])
    layer.linear1.bias.copy_(w[p + "intermediate.dense.bias"])
    layer.linear2.weight.copy_(w[p + "output.dense.weight"])
    layer.linear2.bias.copy_(w[p + "output.dense.bias"])
    layer.norm2.weight.copy_(w[p + "output.LayerNorm.weight"])
    layer.norm2.bias.copy_(w[p + "output.LayerNorm.bias"])
    layers.append(layer)

texts = json.load(open(os.path.join(out_dir, "texts.json")))
longest = max(len(t["ids"]) for t in texts)
ids = torch.zeros(len(texts), longest, dtype=torch.long)
mask = torch.zeros(len(texts), longest, dtype=torch.bool)  # True where padded
for i, t in enumerate(texts):
    ids[i, : len(t["ids"])] = torch.tensor(t["ids"])
    mask[i, len(t["ids"]):] = True
positions = torch.arange(longest).unsqueeze(0).expand_as(ids)
x = emb_norm(word(ids) + pos(positions) + typ(torch.zeros_like(ids)))
for layer in layers:
    x = layer(x, src_key_padding_mask=mask)
keep = (~mask).double().unsqueeze(-1)
mean = (x * keep).sum(1) / keep.sum(1)
cls = x[:, 0]
rows = []
for i, t in enumerate(texts):
    rows.append(json.dumps({"hex": t["hex"], "ids": t["ids"], "mean": [float(f"{v:.8g}") for v in mean[i].tolist()],
                            "cls": [float(f"{v:.8g}") for v in cls[i].tolist()]}))
with open(os.path.join(out_dir, "embeddings.json"), "w") as f:
    f.write('{"reference": "PyTorch %s nn.TransformerEncoderLayer, float64", "texts": [\n' % torch.__version__)
    f.write(",\n".join(rows) + "\n]}\n")
print(f"reference_embeddings: {len(rows)} texts, longest {longest} tokens")
