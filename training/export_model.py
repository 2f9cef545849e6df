#!/usr/bin/env python3
# export_model.py: turns a train.py checkpoint into scout's compact static-model file
# (docs/FORMAT.md, "Static word model"): a pruned vocabulary in frequency order, int8 rows with
# one float32 scale each, one float32 pooling weight per word, and the pooling's default
# catalog-IDF exponent, closed by the same 64-bit checksum as the .scout vector files.
import argparse
import struct
import sys

import numpy as np

MAGIC = b"SCOUTSWM"
VERSION = 1
FLAG_WEIGHTS = 1
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
    ap.add_argument("--rows", type=int, default=58500, help="vocabulary kept (frequency order)")
    ap.add_argument("--always", type=int, default=0, help="most frequent words kept even if no pair has them")
    ap.add_argument("--fill", action="store_true",
                    help="every trained word, then the most frequent others up to --rows")
    ap.add_argument("--idf-power", type=float, default=0.5)
    ap.add_argument("--levels", type=int, default=127, help="quantisation levels each side (7 simulates int4)")
    args = ap.parse_args()

    z = np.load(args.checkpoint, allow_pickle=False)
    words, table, weight, seen = list(z["words"]), z["table"], z["weight"], z["seen"]
    # Words the training touched, plus the most frequent ones, in frequency order.
    rows = [i for i in range(len(words)) if seen[i] or i < args.always][: args.rows]
    if args.fill:  # every trained word, then the most frequent others up to --rows, in frequency order
        trained = [i for i in range(len(words)) if seen[i]]
        others = [i for i in range(len(words)) if not seen[i]][: max(0, args.rows - len(trained))]
        rows = sorted(trained + others)
    table = table[rows].astype(np.float32)
    weight = weight[rows].astype(np.float32)
    max_abs = np.abs(table).max(axis=1)
    scales = np.where(max_abs > 0, max_abs / args.levels, 1.0).astype(np.float32)
    values = np.clip(np.rint(table / scales[:, None]), -args.levels, args.levels).astype(np.int8)

    name = args.name.encode()
    vocabulary = b"".join(words[i].encode() + b"\0" for i in rows)
    out = bytearray(MAGIC)
    out += struct.pack("<IIIIfIQ", VERSION, table.shape[1], len(rows), FLAG_WEIGHTS, args.idf_power,
                       len(name), len(vocabulary))
    out += name + vocabulary + scales.tobytes() + weight.tobytes() + values.tobytes()
    out += struct.pack("<Q", checksum64(bytes(out)))
    with open(args.out + ".tmp", "wb") as f:
        f.write(out)
    import os
    os.replace(args.out + ".tmp", args.out)
    print(f"export: {len(rows)} words x {table.shape[1]} dims, {len(out)} bytes -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
