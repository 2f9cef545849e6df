"""quickstart.py: scout from Python: index a catalog file, search it within one server's scope.
Usage: PYTHONPATH=build/python python3 examples/python/quickstart.py [catalog.json]"""
import sys

import scout

path = sys.argv[1] if len(sys.argv) > 1 else "data/enterprise_catalog.json"
catalog = scout.Catalog(embedder="none")  # "static": scout's trained word model
catalog.upsert_servers(path)  # a catalog file, or a list of server dicts
catalog.commit()
results = catalog.search("create a pull request", top_k=3, servers=["github-enterprise"])
for match in results:  # dicts with the keys of `scout search --json` matches
    print(match["name"], f"{match['score']:.3f}", match["inputSchema"]["type"])
