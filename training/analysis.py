# analysis.py: the words scout's analyzer gives the static embedder (src/analysis/analyzer.cpp
# with identifier splitting, lowercase, stop words, no stemming), close enough for training:
# runs of letters or digits, split at case changes and letter/digit changes, a word that case
# changes split also kept whole, and the library's stop list read from its source.
import os
import re

_HERE = os.path.dirname(os.path.abspath(__file__))


def _stop_words():
    with open(os.path.join(_HERE, "..", "src", "analysis", "stop_words.cpp"), encoding="utf-8") as f:
        source = f.read()
    body = source[source.index("kStopWords{"):source.index("};", source.index("kStopWords{"))]
    return frozenset(re.findall(r'"([a-z]+)"', body))


STOP_WORDS = _stop_words()
_RUN = re.compile(r"[A-Za-z]+|[0-9]+")
_PIECE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")


def words(text):
    out = []
    for run in _RUN.findall(text):
        if run[0].isdigit():
            out.append(run)
            continue
        pieces = _PIECE.findall(run)
        out.extend(p.lower() for p in pieces)
        if len(pieces) > 1:
            out.append(run.lower())
    return [w for w in out if w not in STOP_WORDS and len(w) <= 64]


_RULES = (("ies", "y"), ("ied", "y"), ("es", ""), ("s", ""), ("ing", ""), ("ing", "e"), ("ed", ""), ("ed", "e"))


def resolver(row_of):
    """word -> row: the word itself, else a base form (the embedder's first fallbacks)."""
    def lookup(word):
        row = row_of.get(word)
        if row is not None:
            return row
        for suffix, replacement in _RULES:
            if len(word) >= len(suffix) + 3 and word.endswith(suffix):
                base = word[: -len(suffix)]
                row = row_of.get(base + replacement)
                if row is not None:
                    return row
                if not replacement and len(base) >= 4 and base[-1] == base[-2]:
                    row = row_of.get(base[:-1])
                    if row is not None:
                        return row
        return None
    return lookup
