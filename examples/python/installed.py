import scout

with scout.Catalog() as catalog:  # embedder "static": the word model ships in the package
    catalog.upsert_servers("data/enterprise_catalog.json")  # or a list of server dicts
    catalog.commit()
    results = catalog.search("create a pull request", top_k=3)
print(results.mode, "degraded" if results.degraded else "not degraded", [m["name"] for m in results])
