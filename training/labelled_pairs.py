#!/usr/bin/env python3
# labelled_pairs.py: supervised training rows from a labelled tool-retrieval source (a catalog
# and queries file in scout's dataset formats): a query <-> the document of a tool that answers
# it, followed by hard negatives, the tools of the same catalog that BM25 ranks highest for the
# query without being one of its answers. The tool document is built like scout's own
# (src/document/tool_document.cpp: name words, category, server, description, one line per
# parameter), so training sees the text the embedder is given at search time.
# Decontamination: a query or tool whose text copies or nearly duplicates evaluation text
# (decontaminate.py) is left out; a left-out tool is neither a positive nor a negative.
import hashlib
import heapq
import json
import math
import re

import analysis

MAX_CHARS = 1200  # train.py keeps the first --max-words words; this only bounds the file
K1, B = 1.2, 0.75


def clean(text):
    return re.sub(r"\s+", " ", text or "").strip()


def split_words(name):
    """Identifier -> words, like the library's Analyzer::split_words (snake, kebab, camel)."""
    return " ".join(re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+", name)) or name


def _type_text(schema):
    if not isinstance(schema, dict):
        return ""
    t = schema.get("type")
    if isinstance(t, list):
        t = " or ".join(str(x) for x in t)
    if t == "array" and isinstance(schema.get("items"), dict):
        inner = _type_text(schema["items"])
        return f"array of {inner}" if inner else "array"
    return str(t) if t else ""


def parameter_lines(schema):
    """One line per top-level parameter: name, type, enum values, required, description."""
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return []
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    lines = []
    for name, sub in schema["properties"].items():
        sub = sub if isinstance(sub, dict) else {}
        parts = [p for p in (_type_text(sub), "required" if name in required else "optional") if p]
        if isinstance(sub.get("enum"), list):
            parts.append("one of " + ", ".join(str(v) for v in sub["enum"][:16]))
        line = f"- {name} ({', '.join(parts)})"
        if isinstance(sub.get("description"), str) and sub["description"].strip():
            line += ": " + clean(sub["description"])
        lines.append(line)
    return lines


def tool_document(server, tool):
    parts = [f"Tool: {split_words(tool.get('name') or '')}", f"Category: {split_words(server.get('name') or '')}"]
    if server.get("description"):
        parts.append("Server: " + clean(server["description"]))
    if tool.get("description"):
        parts.append("Description: " + clean(tool["description"]))
    params = parameter_lines(tool.get("inputSchema"))
    if params:
        parts.append("Parameters: " + " ".join(params))
    return clean(" ".join(parts))[:MAX_CHARS]


class Bm25:
    """Okapi BM25 over analysed words, with an inverted index so a query scores only the
    documents that share a word with it."""

    def __init__(self, docs):
        self.lengths = []
        self.postings = {}
        for i, text in enumerate(docs):
            counts = {}
            for w in analysis.words(text):
                counts[w] = counts.get(w, 0) + 1
            self.lengths.append(sum(counts.values()))
            for w, c in counts.items():
                self.postings.setdefault(w, []).append((i, c))
        self.average = sum(self.lengths) / max(1, len(self.lengths))
        n = len(docs)
        self.idf = {w: math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)) for w, p in self.postings.items()}

    def _scores(self, query):
        scores = {}
        for w in set(analysis.words(query)):
            for i, c in self.postings.get(w, ()):
                norm = c + K1 * (1 - B + B * self.lengths[i] / self.average)
                scores[i] = scores.get(i, 0.0) + self.idf[w] * c * (K1 + 1) / norm
        return scores

    def top(self, query, count):
        """The `count` best documents sharing a word with the query, by descending score
        (ties by index)."""
        return [i for _, i in heapq.nsmallest(count, ((-s, i) for i, s in self._scores(query).items()))]


def labelled_rows(catalog_path, queries_path, negatives, cleaner=None, per_tool=0):
    """(rows, report): rows are (query, positive, negative, ...) with exactly `negatives`
    negatives each (BM25's best, padded with other tools of the catalog when fewer than that
    share a word with the query; a catalog too small for them is left out); one row per relevant tool.
    With `per_tool`, at most that many queries per positive tool, in file order, so a catalog
    with many queries per tool does not repeat the same positive throughout a batch."""
    with open(catalog_path, encoding="utf-8") as f:
        catalog = json.load(f)
    with open(queries_path, encoding="utf-8") as f:
        queries = json.load(f).get("queries", [])
    keys, docs = [], []
    excluded = set()
    for server in catalog.get("servers", []):
        for tool in server.get("tools", []):
            key = (server.get("name"), tool.get("name"))
            doc = tool_document(server, tool)
            if cleaner is not None and (cleaner.contaminated(doc) or
                                        cleaner.contaminated(tool.get("description") or "")):
                excluded.add(key)
            keys.append(key)
            docs.append(doc)
    index_of = {k: i for i, k in enumerate(keys)}
    bm25 = Bm25(docs)
    rows, used = [], {}
    report = {"queries": len(queries), "tools": len(keys), "tools_excluded": len(excluded),
              "queries_contaminated": 0, "queries_gold_excluded": 0, "queries_padded": 0, "queries_short_of_negatives": 0,
              "rows_over_cap": 0}
    for q in queries:
        text = clean(q.get("query"))
        gold = [(r.get("server"), r.get("tool")) for r in q.get("relevant", [])]
        gold = [g for g in gold if g in index_of]
        if not text or not gold:
            continue
        if cleaner is not None and cleaner.contaminated(text):
            report["queries_contaminated"] += 1
            continue
        positives = [g for g in gold if g not in excluded]
        if not positives:
            report["queries_gold_excluded"] += 1
            continue
        hard = []
        if negatives:
            allowed = [i for i in bm25.top(text, negatives + len(gold) + len(excluded))
                       if keys[i] not in gold and keys[i] not in excluded][:negatives]
            if len(allowed) < negatives:  # too few shared words: pad with other tools, a fixed
                report["queries_padded"] += 1  # pseudo-random start per query text
                start = int(hashlib.sha256(text.encode()).hexdigest()[:8], 16) % len(keys)
                for step in range(len(keys)):
                    i = (start + step) % len(keys)
                    if len(allowed) == negatives:
                        break
                    if keys[i] not in gold and keys[i] not in excluded and i not in allowed:
                        allowed.append(i)
            if len(allowed) < negatives:
                report["queries_short_of_negatives"] += 1
                continue
            hard = [docs[i] for i in allowed]
        for g in positives:
            if per_tool and used.get(g, 0) >= per_tool:
                report["rows_over_cap"] += 1
                continue
            used[g] = used.get(g, 0) + 1
            rows.append(tuple([text, docs[index_of[g]]] + hard))
    return rows, report
