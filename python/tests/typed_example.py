"""typed_example.py: scout's public API as a typed program uses it; `mypy --strict` checks it
against the package's hints and the extension's stub (ctest python:mypy). Not run."""

from typing import List, Optional

import scout


def names(path: str, query: str, servers: List[str]) -> List[str]:
    with scout.Catalog(embedder="none", options={"threads": 1}) as catalog:
        catalog.upsert_servers(path)
        info = catalog.commit()
        assert info["tools"] > 0
        results: scout.SearchResults = catalog.search(query, top_k=3, servers=servers)
        if results.degraded:
            print(results.degraded_reason)
        fitted = catalog.search(query, max_tokens=800)
        spent: Optional[int] = fitted.tokens
        print(spent, fitted.omitted, fitted[0].get("trimmed", []))
        best: scout.Match = results[0]
        score: float = best["score"]
        print(results.mode, score, catalog.closed, scout.MAX_TOP_K)
        return [match["name"] for match in results]


def reopen(path: str) -> int:
    catalog = scout.Catalog.open(path, embedder="none")
    try:
        return len(catalog.search("deploy", mode="bm25", auto_k=0.5))
    except scout.InvalidArgument as error:
        return error.code
    finally:
        catalog.close()


print(names("catalog.json", "create a pull request", ["github"]), reopen("index.scoutidx"),
      scout.__version__)
