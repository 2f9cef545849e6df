#!/usr/bin/env python3
# loso_trees.py: gradient-boosted trees as the re-ranker, measured by leave-one-source-out over
# the same candidate files as train_reranker.py (docs/quality.md, "Learned re-ranker"), to see
# whether a model of feature interactions beats the linear one. Pointwise: each candidate is
# classified relevant or not, and a query's candidates are ranked by the probability. Needs
# Debian's python3-sklearn (numpy with it); not part of any build.
#
#   /usr/bin/python3 training/loso_trees.py DIR     (DIR as for train_reranker.py --candidates)
import os
import sys

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_reranker import GROUPS, SOURCES, ranked_metrics, read_candidates  # noqa: E402

SETTINGS = [(3, 100, 0.1), (4, 200, 0.05), (2, 300, 0.05)]  # depth, trees, learning rate
TRIED = ["scores+cover+names", "scores+cover+fields+names+margin", "all"]


def by_model(model, cols):
    """The order of a query's candidates by the model's probability (ties keep fused order)."""
    def order_of(x, r):
        p = model.predict_proba(np.array(x)[:, cols])[:, 1]
        return sorted(range(len(x)), key=lambda c: -p[c])
    return order_of


def main():
    data, names = {}, None
    for s in SOURCES:
        data[s], names = read_candidates(os.path.join(sys.argv[1], s + ".txt"), 600)
    for group in TRIED:
        cols = [names.index(f) for f in GROUPS[group]]
        for depth, trees, rate in SETTINGS:
            held = {}
            for s in SOURCES:
                xs, ys = [], []
                for other in SOURCES:
                    if other == s:
                        continue
                    for x, r in data[other]:
                        if any(r):
                            xs += [[row[c] for c in cols] for row in x]
                            ys += r
                model = HistGradientBoostingClassifier(
                    max_depth=depth, max_iter=trees, learning_rate=rate, random_state=0)
                model.fit(np.array(xs), np.array(ys))
                held[s] = ranked_metrics(data[s], by_model(model, cols))
            row = " ".join(f"{s} {m[0]:.3f}/{m[1]:.3f}/{m[2]:.3f}" for s, m in held.items())
            mean_h1 = sum(m[0] for m in held.values()) / len(SOURCES)
            mean_mrr = sum(m[2] for m in held.values()) / len(SOURCES)
            print(f"{group} depth {depth} trees {trees} rate {rate}: {row}  "
                  f"mean H@1 {mean_h1:.3f} MRR {mean_mrr:.3f}", flush=True)


if __name__ == "__main__":
    main()
