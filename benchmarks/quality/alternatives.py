#!/usr/bin/env python3
"""alternatives.py: multi-query quality on a labelled training set (never an evaluation set).

Each sampled query gets one alternative: another real query labelled with the same tool (a
paraphrase of the same need, as a model's alternative would be), or a query for another tool (a
distractor: an alternative that misleads). Prints Hit@1, Hit@5 and MRR@5 of the query alone and
with each alternative, for `--scout` and, if given, a `--baseline` scout build to compare with.

Usage: benchmarks/quality/alternatives.py --scout build/bin/scout [--baseline OLD/bin/scout]
           [--training ../shared/training] [--set metatool] [--mode bm25|hybrid] [--n 400]
"""
import argparse
import collections
import json
import subprocess
import sys
from pathlib import Path


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scout", required=True)
    p.add_argument("--baseline")
    p.add_argument("--training", default=str(Path(__file__).resolve().parents[2] / ".." / "shared" / "training"))
    p.add_argument("--set", default="metatool")
    p.add_argument("--mode", choices=["bm25", "hybrid"], default="bm25")
    p.add_argument("--n", type=int, default=400)
    a = p.parse_args()

    root = Path(a.training) / a.set
    queries = json.loads((root / "queries.json").read_text())["queries"]
    gold_of = [q["relevant"][0]["tool"] for q in queries]
    by_gold = collections.defaultdict(list)
    for i, g in enumerate(gold_of):
        by_gold[g].append(i)
    sample = list(range(0, len(queries), max(1, len(queries) // a.n)))[: a.n]
    args = ["search", "--catalog", str(root / "catalog.json"), "--json", "--top-k", "5"]
    if a.mode == "bm25":
        args += ["--embedder", "none", "--mode", "bm25"]

    def search(binary, query, alternatives):
        cmd = [binary] + args
        for alt in alternatives:
            cmd += ["--alt", alt]
        out = subprocess.run(cmd + ["--", query], capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"scout failed: {out.stderr.strip()}")
        return [m["tool"] for m in json.loads(out.stdout)["matches"]]

    builds = {"": a.scout} if not a.baseline else {" (new)": a.scout, " (baseline)": a.baseline}
    stats = collections.defaultdict(lambda: [0, 0, 0.0, 0])
    for k, i in enumerate(sample):
        gold = gold_of[i]
        peers = [j for j in by_gold[gold] if j != i and queries[j]["query"] != queries[i]["query"]]
        others = [sample[(k + d) % len(sample)] for d in (1, 2, 3)]
        other = next((j for j in others if gold_of[j] != gold), None)
        runs = {"query alone": search(a.scout, queries[i]["query"], [])}
        for suffix, binary in builds.items():
            if peers:
                same = queries[peers[(k * 7) % len(peers)]]["query"]
                runs["+ same-need alternative" + suffix] = search(binary, queries[i]["query"], [same])
            if other is not None:
                runs["+ distractor alternative" + suffix] = search(
                    binary, queries[i]["query"], [queries[other]["query"]])
        for name, tools in runs.items():
            s = stats[name]
            s[3] += 1
            s[0] += tools[:1] == [gold]
            s[1] += gold in tools[:5]
            s[2] += 1.0 / (tools.index(gold) + 1) if gold in tools[:5] else 0.0
    print(f"{a.set}, {a.mode}, {len(sample)} queries")
    print("| run | n | Hit@1 | Hit@5 | MRR@5 |\n|---|---|---|---|---|")
    for name, (h1, h5, mrr, n) in stats.items():
        print(f"| {name} | {n} | {h1 / n:.3f} | {h5 / n:.3f} | {mrr / n:.3f} |")


if __name__ == "__main__":
    main()
