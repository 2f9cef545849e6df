#!/usr/bin/env python3
"""python_overhead.py: what the Python module adds to a search. For each of the 49 queries of
data/queries-49.json on the enterprise catalog (650 tools), times `catalog.search()` from Python
and the same search in C++ alone (Catalog._time_search: the library call without any conversion),
and prints the medians and the overhead per search (Python p50 - C++ p50, per query, then the
median over queries). With --cli PATH it also times what a gateway without the module would do:
spawn `scout search --json` per query, once indexing the catalog file and once opening an index
file (`scout index`), for the first --cli-queries queries, and prints those medians. Run with
PYTHONPATH=<build>/python.

    PYTHONPATH=build/python python3 benchmarks/python_overhead.py [--embedder none|static] \
        [--cli build/bin/scout]
"""

import argparse
import json
import pathlib
import statistics
import subprocess
import tempfile
import time

import scout

ROOT = pathlib.Path(__file__).resolve().parents[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--embedder", default="static", help="static (default), none, hashing")
    parser.add_argument("--repeats", type=int, default=200, help="searches per query and side")
    parser.add_argument("--top-k", type=int, default=5)
    parser.add_argument("--cli", help="the scout command: also time one process per query")
    parser.add_argument("--cli-queries", type=int, default=10, help="queries spawned (--cli)")
    args = parser.parse_args()

    catalog = scout.Catalog(embedder=args.embedder)
    catalog.upsert_servers(ROOT / "data" / "enterprise_catalog.json")
    info = catalog.commit()
    mode = "hybrid" if info["dense_ready"] else "bm25"
    queries = [q["query"] for q in json.loads((ROOT / "data" / "queries-49.json").read_text())["queries"]]

    python_p50, cpp_p50, overhead = [], [], []
    for query in queries:
        catalog.search(query, top_k=args.top_k, mode=mode)  # warm the caches once
        timings = []
        for _ in range(args.repeats):
            started = time.perf_counter_ns()
            catalog.search(query, top_k=args.top_k, mode=mode)
            timings.append(time.perf_counter_ns() - started)
        native = catalog._time_search(query, args.top_k, mode, args.repeats)
        python_p50.append(statistics.median(timings) / 1000)
        cpp_p50.append(statistics.median(native) / 1000)
        overhead.append(python_p50[-1] - cpp_p50[-1])

    print(f"catalog: {info['tools']} tools, mode {mode}, {len(queries)} queries x {args.repeats} "
          f"searches, top_k {args.top_k}")
    print(f"python search p50: {statistics.median(python_p50):8.1f} us (median over queries)")
    print(f"C++ search p50:    {statistics.median(cpp_p50):8.1f} us")
    print(f"python overhead per search: p50 {statistics.median(overhead):.1f} us, "
          f"max over queries {max(overhead):.1f} us")
    if args.cli:
        spawn_medians(args, queries[: args.cli_queries], mode)


def spawn_medians(args, queries, mode):
    """Median wall time of one `scout search` process per query, from the catalog and an index."""
    catalog = str(ROOT / "data" / "enterprise_catalog.json")
    common = ["--embedder", args.embedder, "--top-k", str(args.top_k), "--mode", mode, "--json"]
    with tempfile.TemporaryDirectory() as folder:
        index = str(pathlib.Path(folder) / "enterprise.scoutidx")
        subprocess.run([args.cli, "index", "--catalog", catalog, "--embedder", args.embedder,
                        "--out", index, "--quiet"], check=True, stdout=subprocess.DEVNULL)
        for label, source in (("--catalog", catalog), ("--index", index)):
            timings = []
            for query in queries:
                started = time.perf_counter_ns()
                subprocess.run([args.cli, "search", label, source, *common, query], check=True,
                               stdout=subprocess.DEVNULL)
                timings.append(time.perf_counter_ns() - started)
            print(f"CLI process per search ({label}) p50: {statistics.median(timings) / 1e6:8.1f} ms"
                  f" ({len(queries)} queries)")


if __name__ == "__main__":
    main()
