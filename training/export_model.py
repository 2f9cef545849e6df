#!/usr/bin/env python3
# export_model.py: turns a train.py checkpoint into scout's compact static-model file
# (docs/FORMAT.md, "Static word model"): a pruned vocabulary in frequency order, the rows
# product-quantized (version 2: fp16 codebooks, one byte per sub-vector, fp16 pooling weights;
# --subvectors 0 writes version 1: int8 rows with one float32 scale each and float32 weights),
# and the pooling's default catalog-IDF exponent, closed by the same 64-bit checksum as the
# .scout vector files. --max-bytes keeps the words the pairs use most that fit the size.
import argparse
import os
import struct
import sys

import numpy as np

import pq

MAGIC = b"SCOUTSWM"
VERSION = 1
PQ_VERSION = 2
FLAG_WEIGHTS = 1
HEADER = struct.Struct("<IIIIfIQ")
FNV_OFFSET = 14695981039346656037
PRIME = 1099511628211
MASK = (1 << 64) - 1


def mix64(x):
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & MASK
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & MASK
    x ^= x >> 31
    return x


def checksum64(data, seed=FNV_OFFSET):
    """src/embed/vector_table.cpp's checksum64: four lanes over 8-byte little-endian words."""
    lanes = [seed, seed ^ 1, seed ^ 2, seed ^ 3]
    full = len(data) // 32 * 32
    words = np.frombuffer(data[:full], dtype="<u8").reshape(-1, 4)
    for k in range(4):
        h = lanes[k]
        for w in words[:, k].tolist():
            h = ((h ^ w) * PRIME) & MASK
        lanes[k] = h
    i, k = full, 0
    while i < len(data):
        chunk = data[i:i + 8].ljust(8, b"\0")
        w = int.from_bytes(chunk, "little")
        lanes[k % 4] = ((lanes[k % 4] ^ w) * PRIME) & MASK
        i += 8
        k += 1
    return mix64(mix64(mix64(mix64(lanes[0]) ^ lanes[1]) ^ lanes[2]) ^ lanes[3] ^ len(data))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--checkpoint", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--name", default="scout-static-256d")
    ap.add_argument("--rows", type=int, default=58500, help="vocabulary kept at most")
    ap.add_argument("--keep", choices=["pairs", "rank"], default="pairs",
                    help="which words: the most used in the pairs, or the first trained in frequency order")
    ap.add_argument("--always", type=int, default=0, help="most frequent words kept even if no pair has them")
    ap.add_argument("--fill", action="store_true",
                    help="every trained word, then the most frequent others up to --rows")
    ap.add_argument("--idf-power", type=float, default=0.5)
    ap.add_argument("--levels", type=int, default=127,
                    help="version 1: quantisation levels each side (7 simulates int4)")
    ap.add_argument("--subvectors", type=int, default=32, help="product quantization; 0: version 1")
    ap.add_argument("--centroids", type=int, default=256)
    ap.add_argument("--iterations", type=int, default=25, help="k-means iterations")
    ap.add_argument("--unweighted", action="store_true",
                    help="k-means weighs every word alike (default: by log(1 + pair count))")
    ap.add_argument("--max-bytes", type=int, default=2097152, help="file size cap (0: none)")
    args = ap.parse_args()

    z = np.load(args.checkpoint, allow_pickle=False)
    words, table, weight, seen = list(z["words"]), z["table"], z["weight"], z["seen"]
    if args.keep == "pairs":
        # The words the pairs use most (ties by frequency rank): a word rare in GloVe's corpus
        # but common in tool text (json, csv, screenshot) is kept before a common English one
        # the training hardly saw.
        count = z["count"]
        rows = [int(i) for i in np.lexsort((np.arange(len(words)), -count)) if count[i] > 0]
        rows = rows[: args.rows]
    else:  # Words the training touched, plus the most frequent ones, in frequency order.
        rows = [i for i in range(len(words)) if seen[i] or i < args.always][: args.rows]
        if args.fill:  # every trained word, then the most frequent others up to --rows
            trained = [i for i in range(len(words)) if seen[i]]
            others = [i for i in range(len(words)) if not seen[i]][: max(0, args.rows - len(trained))]
            rows = sorted(trained + others)
    name = args.name.encode()
    if args.subvectors and args.max_bytes:  # the rows that fit, each costing its bytes in the file
        fixed = 8 + HEADER.size + 8 + len(name) + args.centroids * table.shape[1] * 2 + 8
        per_row = np.cumsum([len(words[i].encode()) + 1 + 2 + args.subvectors for i in rows])
        rows = rows[: int(np.searchsorted(per_row, args.max_bytes - fixed, side="right"))]
    rows = sorted(rows)  # frequency order in the file
    table = table[rows].astype(np.float32)
    weight = weight[rows].astype(np.float32)
    vocabulary = [words[i].encode() + b"\0" for i in rows]
    if args.subvectors == 0:
        out = version1(table, weight, name, vocabulary, args)
    else:
        # k-means weighs each word's error by log(1 + its pair count): the words training saw
        # most are the ones queries and tool descriptions use.
        row_weights = None if args.unweighted else np.log1p(z["count"][rows])
        out = version2(table, weight, name, vocabulary, args, row_weights)
    out += struct.pack("<Q", checksum64(bytes(out)))
    with open(args.out + ".tmp", "wb") as f:
        f.write(out)
    os.replace(args.out + ".tmp", args.out)
    print(f"export: {len(vocabulary)} words x {table.shape[1]} dims, {len(out)} bytes -> {args.out}",
          file=sys.stderr)


def version1(table, weight, name, vocabulary, args):
    max_abs = np.abs(table).max(axis=1)
    scales = np.where(max_abs > 0, max_abs / args.levels, 1.0).astype(np.float32)
    values = np.clip(np.rint(table / scales[:, None]), -args.levels, args.levels).astype(np.int8)
    vocabulary = b"".join(vocabulary)
    out = bytearray(MAGIC)
    out += HEADER.pack(VERSION, table.shape[1], len(scales), FLAG_WEIGHTS, args.idf_power,
                       len(name), len(vocabulary))
    out += name + vocabulary + scales.tobytes() + weight.tobytes() + values.tobytes()
    return out


def version2(table, weight, name, vocabulary, args, row_weights=None):
    books, codes = pq.quantize(table, args.subvectors, args.centroids, args.iterations,
                               weights=row_weights)
    vocabulary = b"".join(vocabulary)
    out = bytearray(MAGIC)
    out += HEADER.pack(PQ_VERSION, table.shape[1], len(codes), FLAG_WEIGHTS, args.idf_power,
                       len(name), len(vocabulary))
    out += struct.pack("<II", args.subvectors, args.centroids)
    out += name + vocabulary + weight.astype("<f2").tobytes() + books.astype("<f2").tobytes()
    out += codes.tobytes()
    return out


if __name__ == "__main__":
    main()
