# decontaminate.py: keeps evaluation text out of the training pairs. A training text is
# contaminated when, in scout's analysed words (training/analysis.py: lowercase, identifier
# pieces, stop words out):
#   - it shares a run of SHINGLE words with an evaluation text (a copied passage), or
#   - it contains a whole evaluation text of MIN_WORDS..SHINGLE-1 words as a run (a copied query
#     or short description, equality included), or
#   - its word set and an evaluation text's (of MIN_WORDS or more words) have a Jaccard
#     similarity >= JACCARD (a reworded near-duplicate: words reordered, one changed).
# Evaluation texts are the queries and the tool and server descriptions of every dataset with a
# queries file, plus any extra catalog or queries file given (scout's own held-out set). They
# are read only to be kept out.
import glob
import json
import os

import analysis

SHINGLE = 8
MIN_WORDS = 4
JACCARD = 0.7


def evaluation_texts(datasets_dir, extra_files=()):
    """Queries and tool/server descriptions of DATASETS_DIR/*/{catalog,queries}.json for every
    dataset that has queries, and of each extra file."""
    files = []
    for queries in sorted(glob.glob(os.path.join(datasets_dir, "*", "queries.json"))):
        files.append(queries)
        catalog = os.path.join(os.path.dirname(queries), "catalog.json")
        if os.path.exists(catalog):
            files.append(catalog)
    if not files:
        raise ValueError(f"no evaluation dataset (*/queries.json) under {datasets_dir}")
    files.extend(extra_files)
    texts = []
    for path in files:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        for server in doc.get("servers", []):
            texts.append(server.get("description") or "")
            texts.extend(tool.get("description") or "" for tool in server.get("tools", []))
        texts.extend(query.get("query") or "" for query in doc.get("queries", []))
    return [t for t in texts if t]


def _words(text):
    return analysis.words(text.lower())


class Decontaminator:
    def __init__(self, texts):
        self.runs = set()      # every SHINGLE-word run of the evaluation texts
        self.short = {}        # length -> whole evaluation texts of MIN_WORDS..SHINGLE-1 words
        self.sets = []         # word sets of evaluation texts with >= MIN_WORDS distinct words
        self.frequency = {}    # word -> number of evaluation sets holding it (prefix order)
        for text in texts:
            w = _words(text)
            if MIN_WORDS <= len(w) < SHINGLE:
                self.short.setdefault(len(w), set()).add(tuple(w))
            for i in range(len(w) - SHINGLE + 1):
                self.runs.add(tuple(w[i:i + SHINGLE]))
            s = frozenset(w)
            if len(s) >= MIN_WORDS:
                self.sets.append(s)
        for s in self.sets:
            for word in s:
                self.frequency[word] = self.frequency.get(word, 0) + 1
        self.postings = {}
        for i, s in enumerate(self.sets):
            for word in self._prefix(s):
                self.postings.setdefault(word, []).append(i)

    def _prefix(self, words):
        """The rarest len - ceil(JACCARD * len) + 1 words: two sets with Jaccard >= JACCARD
        share at least one word of each one's prefix (prefix filtering)."""
        ordered = sorted(words, key=lambda w: (self.frequency.get(w, 0), w))
        keep = len(ordered) - int(JACCARD * len(ordered)) + 1  # floor: never too short
        return ordered[:keep]

    def contaminated(self, text):
        w = _words(text)
        for i in range(len(w) - SHINGLE + 1):
            if tuple(w[i:i + SHINGLE]) in self.runs:
                return True
        for n, whole in self.short.items():
            for i in range(len(w) - n + 1):
                if tuple(w[i:i + n]) in whole:
                    return True
        s = frozenset(w)
        if len(s) < MIN_WORDS:
            return False
        for word in self._prefix(s):
            for i in self.postings.get(word, ()):
                other = self.sets[i]
                if len(s & other) >= JACCARD * len(s | other):
                    return True
        return False

    def filter(self, pairs):
        """(kept pairs, number dropped): a pair goes when either side is contaminated."""
        kept = [(a, b) for a, b in pairs if not (self.contaminated(a) or self.contaminated(b))]
        return kept, len(pairs) - len(kept)
