#!/usr/bin/env python3
# make_pairs.py: builds the (text, text) training pairs of scout's static model from public
# corpora, one TSV file per source, in a fixed order so the same inputs give the same bytes.
#   debian:   a package's synopsis <-> its long description (Translation-en), -dev, -doc, -data
#             and debug packages dropped, one pair per distinct description.
#   debnames: the same packages' names <-> their synopses.
#   wordnet:  word <-> definition, example sentence <-> words + definition, word <-> synonym.
#   npmtools, npmparams, npmdocs: tool definitions and READMEs of the permissively licensed MCP
#             server packages of npm-packages.txt (npm_pairs.py).
#   pydoc, cloudapi: API reference text of Debian packages (api_pairs.py): Python's standard
#             library docstrings and botocore's AWS service models.
#   bfcl, metatool, seal_tools (--labelled DIR): labelled queries <-> the document of a tool
#             that answers them, each row followed by BM25-mined hard negatives from the same
#             catalog (labelled_pairs.py).
#   smithery: (optional, measurement only) a tool description's first sentence <-> the rest,
#             and the tool name <-> its description.
# Decontamination: with --decontaminate DATASETS [--decontaminate-file F ...], every pair either
# of whose sides copies or nearly duplicates a query or a tool or server description of an
# evaluation set (training/decontaminate.py) is dropped, and the count is printed. Evaluation
# text is only read to be kept out; nothing of it is trained on.
import argparse
import hashlib
import json
import os
import re
import sys

import api_pairs
import decontaminate
import labelled_pairs
import npm_pairs

MAX_CHARS = 600  # long descriptions are cut here: the pooled vector is dominated by the start


def clean(text):
    text = re.sub(r"[\t\r\n]+", " ", text)
    text = re.sub(r" {2,}", " ", text).strip()
    return text[:MAX_CHARS]


def debian_pairs(path, names=None):
    """Synopsis <-> long description for every distinct description of Translation-en; with
    `names` (a list), also package name <-> synopsis, the shape of a tool name and its summary."""
    dropped_suffixes = ("-dev", "-doc", "-data", "-dbg", "-dbgsym", "-common", "-l10n")
    pairs = []
    seen = set()
    package, md5, synopsis, body = None, None, None, []

    def flush():
        if package is None or synopsis is None or not body:
            return
        if package.endswith(dropped_suffixes) or md5 in seen:
            return
        seen.add(md5)
        paragraphs = " ".join(body).split(" . ")
        long_text = clean(" ".join(p for p in paragraphs if p))
        if len(long_text.split()) >= 5 and len(synopsis.split()) >= 2:
            pairs.append((clean(synopsis), long_text))
            if names is not None:
                names.append((package.replace("-", " ").replace(".", " "), clean(synopsis)))

    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("Package: "):
                flush()
                package, md5, synopsis, body = line[9:].strip(), None, None, []
            elif line.startswith("Description-md5: "):
                md5 = line[17:].strip()
            elif line.startswith("Description-en: "):
                synopsis = line[16:].strip()
            elif line.startswith(" ") and synopsis is not None:
                body.append(line.strip())
        flush()
    return pairs


def wordnet_pairs(directory):
    """Pairs from the synsets of WordNet 3.0's data.{noun,verb,adj,adv}."""
    pairs = []
    for pos in ("noun", "verb", "adj", "adv"):
        with open(os.path.join(directory, "data." + pos), encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("  "):  # licence header
                    continue
                head, _, gloss = line.partition(" | ")
                fields = head.split()
                count = int(fields[3], 16)
                words = []
                for i in range(count):
                    w = re.sub(r"\(.*\)$", "", fields[4 + 2 * i]).replace("_", " ").lower()
                    if w not in words:
                        words.append(w)
                parts = [p.strip() for p in gloss.strip().split(";")]
                definition = clean("; ".join(p for p in parts if p and not p.startswith('"')))
                examples = [clean(p.strip('"')) for p in parts if p.startswith('"')]
                if not definition:
                    continue
                for w in words:
                    pairs.append((w, definition))
                for e in examples:
                    pairs.append((e, clean(", ".join(words) + ": " + definition)))
                for a, b in zip(words, words[1:]):
                    pairs.append((a, b))
    return pairs


def catalog_pairs(path):
    """A catalog's tools (scout's catalog JSON): tool name <-> description, a description's
    first sentence <-> the rest, and each parameter's name <-> its description."""
    with open(path, encoding="utf-8") as f:
        catalog = json.load(f)
    pairs = []
    for server in catalog.get("servers", []):
        for tool in server.get("tools", []):
            name = tool.get("name") or ""
            desc = clean(tool.get("description") or "")
            if len(desc.split()) < 3:
                continue
            pairs.append((clean(name), desc))
            m = re.match(r"(.+?[.!?])\s+(.+)", desc)
            if m and len(m.group(2).split()) >= 4:
                pairs.append((m.group(1), m.group(2)))
    return pairs


PERMISSIVE = re.compile(r"^(MIT|ISC|Apache-2\.0|BSD-2-Clause|BSD-3-Clause|0BSD)$")


def spread(pairs, cap):
    """At most `cap` pairs, evenly spaced over the list (all of them when cap is 0)."""
    if not cap or len(pairs) <= cap:
        return pairs
    return [pairs[i * len(pairs) // cap] for i in range(cap)]


def npm_sources(directory, listing, cap=0):
    """Pairs of every pinned package (npm-packages.txt), each source deduplicated in order; with
    `cap`, at most that many pairs per package and source, so a few large packages do not make
    up most of a source."""
    out = {"npmtools": [], "npmparams": [], "npmdocs": []}
    with open(listing, encoding="utf-8") as f:
        entries = [line.split() for line in f if line.strip() and not line.startswith("#")]
    for name, version, sha, listed in entries:
        path = os.path.join(directory, name.lstrip("@").replace("/", "-") + "-" + version + ".tgz")
        with open(path, "rb") as f:
            if hashlib.sha256(f.read()).hexdigest() != sha:
                sys.exit(f"make_pairs: {path} does not match its pinned SHA-256")
        licence, sources = npm_pairs.package_pairs(path)
        if not PERMISSIVE.match(licence):
            sys.exit(f"make_pairs: {name}@{version} has licence {licence!r}, not a permissive one")
        if licence != listed:
            sys.exit(f"make_pairs: {name}@{version} has licence {licence!r}, listed as {listed!r}")
        for source, pairs in sources.items():
            seen = set()
            out[source].extend(spread([p for p in pairs if not (p in seen or seen.add(p))], cap))
    for source in out:
        seen = set()
        out[source] = [p for p in out[source] if not (p in seen or seen.add(p))]
    return out


def write(pairs, path):
    with open(path, "w", encoding="utf-8") as f:
        for row in pairs:
            f.write("\t".join(row) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--translations", required=True, help="Debian Translation-en, decompressed")
    ap.add_argument("--wordnet", required=True, help="directory with WordNet's data.* files")
    ap.add_argument("--npm", help="directory of the fetched npm tarballs (fetch_npm.sh)")
    ap.add_argument("--npm-list", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                       "npm-packages.txt"))
    ap.add_argument("--npm-cap", type=int, default=0, help="at most N pairs per package and source")
    ap.add_argument("--decontaminate", help="directory of the evaluation datasets (kept out)")
    ap.add_argument("--decontaminate-file", action="append", default=[],
                    help="a further evaluation catalog or queries file (kept out; repeatable)")
    ap.add_argument("--stdlib", help="extracted libpython3.X-stdlib: its usr/lib/python3.X")
    ap.add_argument("--botocore", help="extracted python3-botocore: its botocore/data directory")
    ap.add_argument("--smithery", help="toolgym_smithery catalog.json (measurement only)")
    ap.add_argument("--labelled", help="directory of labelled sources (*/catalog.json + queries.json)")
    ap.add_argument("--labelled-sources", default="bfcl,metatool,seal_tools")
    ap.add_argument("--hard-negatives", type=int, default=3, help="BM25 negatives written per row")
    ap.add_argument("--per-tool", type=int, default=32, help="at most N rows per positive tool")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    names = []
    sources = {"debian": debian_pairs(args.translations, names), "debnames": names,
               "wordnet": wordnet_pairs(args.wordnet)}
    if args.npm:
        sources.update(npm_sources(args.npm, args.npm_list, args.npm_cap))
    if args.stdlib:
        sources["pydoc"] = api_pairs.stdlib_pairs(args.stdlib)
    if args.botocore:
        sources["cloudapi"] = api_pairs.botocore_pairs(args.botocore)
    if args.smithery:
        sources["smithery"] = catalog_pairs(args.smithery)
    cleaner = None
    if args.decontaminate:
        cleaner = decontaminate.Decontaminator(
            decontaminate.evaluation_texts(args.decontaminate, args.decontaminate_file))
    if args.labelled:
        for name in args.labelled_sources.split(","):
            folder = os.path.join(args.labelled, name)
            rows, report = labelled_pairs.labelled_rows(
                os.path.join(folder, "catalog.json"), os.path.join(folder, "queries.json"),
                args.hard_negatives, cleaner, args.per_tool)
            write(rows, os.path.join(args.out, name + ".tsv"))
            print(f"pairs: {name} {len(rows)} rows with {args.hard_negatives} hard negatives "
                  f"({json.dumps(report, sort_keys=True)})", file=sys.stderr)
    for name, pairs in sources.items():
        dropped = 0
        if cleaner is not None:
            pairs, dropped = cleaner.filter(pairs)
        write(pairs, os.path.join(args.out, name + ".tsv"))
        print(f"pairs: {name} {len(pairs)} ({dropped} dropped as overlapping evaluation text)",
              file=sys.stderr)


if __name__ == "__main__":
    main()
