#!/usr/bin/env python3
# api_pairs.py: pairs from API reference text in Debian packages. An API operation is a tool in
# miniature: a name made of verbs and nouns, a one-line summary, then detail.
#   pydoc:    Python's standard library (libpython3.11-stdlib, PSF licence), docstrings read
#             with `ast`, never imported: the qualified name in words (class and function, e.g.
#             "Path mkdir") <-> the summary, and the summary <-> the rest. Test suites, demos
#             and private names are skipped.
#   cloudapi: the AWS service models of python3-botocore (Apache-2.0): "service operation" in
#             words (e.g. "DocDB RemoveTagsFromResource") <-> the operation's first sentence,
#             and that sentence <-> the rest of its documentation.
# Each side is kept once (first in sorted file order): many services document the same
# operation with the same sentence, and two pairs sharing a side would be each other's
# in-batch negatives. So a summary <-> rest pair survives only where its summary's name pair did
# not (the name was taken): the sources are mostly name <-> summary.
import ast
import html
import json
import os
import re

SKIPPED_DIRECTORIES = {"test", "tests", "idle_test", "__pycache__", "site-packages",
                       "dist-packages", "turtledemo", "lib2to3", "pydoc_data", "ensurepip"}
MAX_CHARS = 600


def _clean(text):
    text = re.sub(r"\s+", " ", text).strip()
    return text[:MAX_CHARS]


def _summary_and_rest(doc):
    """The docstring's first sentence (within its first paragraph) and the text after it."""
    paragraphs = [p for p in re.split(r"\n\s*\n", doc.strip()) if p.strip()]
    if not paragraphs:
        return "", ""
    first = _clean(paragraphs[0])
    m = re.match(r"(.+?[.!?])\s+(.+)", first)
    if m:
        summary, rest = m.group(1), m.group(2) + " " + " ".join(paragraphs[1:])
    else:
        summary, rest = first, " ".join(paragraphs[1:])
    return summary, _clean(rest)


def _strip_markup(text):
    return html.unescape(re.sub(r"<[^>]+>", " ", text))


def _words_of_name(*names):
    return " ".join(n.replace("_", " ").strip() for n in names if n).strip()


def _public(name):
    return not name.startswith("_")


def file_pairs(source):
    """Pairs of one module's source text; a file that does not parse gives none."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    pairs = []

    def visit(node, owner):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if not _public(child.name):
                    continue
                doc = ast.get_docstring(child)
                if doc:
                    summary, rest = _summary_and_rest(doc)
                    if len(summary.split()) >= 3:
                        pairs.append((_words_of_name(owner, child.name), summary))
                        if len(rest.split()) >= 4:
                            pairs.append((summary, rest))
                if isinstance(child, ast.ClassDef) and not owner:
                    visit(child, child.name)

    visit(tree, "")
    return pairs


def _distinct_sides(pairs):
    seen = set()
    out = []
    for a, b in pairs:
        if a in seen or b in seen:
            continue
        seen.update((a, b))
        out.append((a, b))
    return out


def stdlib_pairs(root):
    """Pairs of every module under `root` (the extracted package's usr/lib/python3.X), walked
    in sorted order so the same files give the same list."""
    pairs = []
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(d for d in subdirectories if d not in SKIPPED_DIRECTORIES)
        for name in sorted(files):
            path = os.path.join(directory, name)
            if not name.endswith(".py") or name.startswith("test_") or not os.path.isfile(path):
                continue  # dangling links point into other packages
            with open(path, encoding="utf-8", errors="replace") as f:
                pairs.extend(file_pairs(f.read()))
    return _distinct_sides(pairs)


def service_model_pairs(source):
    """Pairs of one botocore service-2.json text; a model that does not parse gives none."""
    try:
        model = json.loads(source)
    except ValueError:
        return []
    if not isinstance(model, dict):
        return []
    metadata = model.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    service = str(metadata.get("serviceId") or metadata.get("serviceAbbreviation") or "")
    operations = model.get("operations")
    if not isinstance(operations, dict):
        return []
    pairs = []
    for name, operation in sorted(operations.items()):
        if not isinstance(operation, dict):
            continue
        summary, rest = _summary_and_rest(_strip_markup(str(operation.get("documentation") or "")))
        if len(summary.split()) >= 3:
            pairs.append((_words_of_name(service, name), summary))
            if len(rest.split()) >= 4:
                pairs.append((summary, rest))
    return pairs


def botocore_pairs(root):
    """Pairs of the newest model of every service under `root` (botocore's data directory)."""
    pairs = []
    for service in sorted(os.listdir(root)):
        if not os.path.isdir(os.path.join(root, service)):
            continue  # _retry.json, endpoints.json and other shared files
        versions = sorted(d for d in os.listdir(os.path.join(root, service))
                          if os.path.isfile(os.path.join(root, service, d, "service-2.json")))
        if versions:
            with open(os.path.join(root, service, versions[-1], "service-2.json"),
                      encoding="utf-8", errors="replace") as f:
                pairs.extend(service_model_pairs(f.read()))
    return _distinct_sides(pairs)
