"""The package's conveniences: __version__, close() and the context manager, keyword arguments
checked by name, top_k refused outside 1..MAX_TOP_K, and one meaning of `degraded` shared with
the C ABI and `scout search --json` (scout.h).

Run by ctest (python:pytest) with PYTHONPATH=<build>/python, SCOUT_SOURCE_DIR and, when the
command is built, SCOUT_CLI."""

import json
import os
import pathlib
import re
import subprocess

import pytest

import scout

SOURCE = pathlib.Path(os.environ.get("SCOUT_SOURCE_DIR", pathlib.Path(__file__).parents[2]))
ENTERPRISE = SOURCE / "data" / "enterprise_catalog.json"
QUERY = "create a pull request"


@pytest.fixture(scope="module")
def bm25_only():
    catalog = scout.Catalog(embedder="none")
    catalog.upsert_servers(ENTERPRISE)
    catalog.commit()
    return catalog


def test_version_is_the_library_version():
    assert re.fullmatch(r"\d+\.\d+\.\d+", scout.__version__)
    assert scout.__version__ == scout.version()


def test_context_manager_closes():
    with scout.Catalog(embedder="none") as catalog:
        catalog.upsert_servers(ENTERPRISE)
        catalog.commit()
        assert catalog.search(QUERY) and not catalog.closed
    assert catalog.closed
    with pytest.raises(scout.InvalidArgument, match="closed"):
        catalog.search(QUERY)
    with pytest.raises(scout.InvalidArgument, match="closed"):
        catalog.commit()
    catalog.close()  # closing twice is harmless


@pytest.mark.parametrize("call, wrong, near", [
    (lambda c: c.search(QUERY, topk=3), "topk", "top_k"),
    (lambda c: c.search(QUERY, server=["github"]), "server", "servers"),
    (lambda c: c.search(QUERY, colour="red"), "colour", None),
    (lambda c: scout.Catalog(embeder="none"), "embeder", "embedder"),
    (lambda c: scout.Catalog.open("x.scoutidx", embeder="none"), "embeder", "embedder"),
])
def test_unknown_keywords_are_named(bm25_only, call, wrong, near):
    with pytest.raises(TypeError) as raised:
        call(bm25_only)
    message = str(raised.value)
    assert f"unknown keyword argument '{wrong}'" in message
    if near:
        assert f"did you mean '{near}'?" in message
    assert "top_k" in message or "embedder" in message  # the keywords it takes
    assert "self" not in message and "cls" not in message


@pytest.mark.parametrize("top_k", [0, -1, 21, 1000])
def test_top_k_outside_the_range_is_refused(bm25_only, top_k):
    with pytest.raises(scout.InvalidArgument, match=rf"top_k must be 1\.\.20 \(got {top_k}\)"):
        bm25_only.search(QUERY, top_k=top_k)


def test_top_k_bounds_are_accepted(bm25_only):
    assert len(bm25_only.search(QUERY, top_k=1)) == 1
    assert len(bm25_only.search(QUERY, top_k=scout.MAX_TOP_K)) == scout.MAX_TOP_K


def test_degraded_only_when_the_dense_branch_was_wanted(bm25_only):
    chosen = bm25_only.search(QUERY)  # no embedder, no mode: BM25 by choice
    assert chosen.mode == "bm25" and not chosen.degraded and chosen.degraded_reason == ""
    asked = bm25_only.search(QUERY, mode="hybrid")  # the dense branch asked for, and absent
    assert asked.mode == "bm25" and asked.degraded
    assert asked.degraded_reason == "no embedder configured"
    with scout.Catalog() as static:  # an embedder: the default mode is hybrid
        static.upsert_servers(ENTERPRISE)
        static.commit()
        hybrid = static.search(QUERY)
        assert hybrid.mode == "hybrid" and not hybrid.degraded


@pytest.mark.skipif(not os.environ.get("SCOUT_CLI"), reason="needs SCOUT_CLI")
@pytest.mark.parametrize("mode", [None, "hybrid"])
def test_degraded_agrees_with_the_cli(bm25_only, mode):
    command = [os.environ["SCOUT_CLI"], "search", "--catalog", str(ENTERPRISE), "--embedder",
               "none", "--json", QUERY] + (["--mode", mode] if mode else [])
    cli = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
    ours = bm25_only.search(QUERY, mode=mode).to_json()
    assert {k: ours[k] for k in ("mode", "degraded")} == {k: cli[k] for k in ("mode", "degraded")}
    assert ours.get("degraded_reason") == cli.get("degraded_reason")
