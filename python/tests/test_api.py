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


def _budgeted_or_skip(catalog, **kwargs):
    """A search with a token budget, or a skip when this machine has no rank files (the error
    must then name what is missing; SCOUT_REQUIRE_FIXTURES makes that a failure)."""
    try:
        return catalog.search(QUERY, **kwargs)
    except scout.NotFound as error:
        assert "cl100k_base" in str(error)
        if os.environ.get("SCOUT_REQUIRE_FIXTURES"):
            raise
        pytest.skip("BPE rank files unavailable")


def test_max_tokens_keeps_the_first_match_whole(bm25_only):
    everything = _budgeted_or_skip(bm25_only, max_tokens=10**6)
    assert len(everything) == scout.MAX_TOP_K  # without top_k the budget decides
    assert everything.omitted == 0
    assert everything.tokens == sum(match["tokens"] for match in everything)
    one = bm25_only.search(QUERY, max_tokens=1)
    assert [match["name"] for match in one] == [everything[0]["name"]]
    assert one[0]["trimmed"] == []
    assert one.tokens == everything[0]["tokens"] > 1
    assert one.omitted == len(everything) - 1
    assert one.to_json()["omitted"] == one.omitted


def test_max_tokens_omits_what_does_not_fit(bm25_only):
    everything = _budgeted_or_skip(bm25_only, max_tokens=10**6)
    budget = everything[0]["tokens"] + everything[1]["tokens"] + 10
    some = bm25_only.search(QUERY, max_tokens=budget)
    assert some.omitted > 0 and len(some) >= 2
    assert some.tokens <= budget
    assert len(some) + some.omitted == len(everything)
    assert len(bm25_only.search(QUERY, max_tokens=10**6, top_k=3)) == 3
    plain = bm25_only.search(QUERY)
    assert plain.tokens is None and plain.omitted is None and "tokens" not in plain[0]


@pytest.mark.parametrize("budget", [0, -5, 2.5, "100", True, 10**10])
def test_max_tokens_invalid_is_refused(bm25_only, budget):
    with pytest.raises(scout.InvalidArgument, match=r"max_tokens must be a whole number in 1\.\."):
        bm25_only.search(QUERY, max_tokens=budget)


def _calibration(path, model, weight):
    path.write_text(f"scout-calibration 1\nmodel {model}\nfusion.method gated\n"
                    f"fusion.gated_dense_weight {weight}\nfusion.overlap_power 0\nend\n")
    return path


def _scores(catalog):
    catalog.upsert_servers(ENTERPRISE)
    catalog.commit()
    return [(m["server"], m["tool"], m["score"]) for m in catalog.search(QUERY, top_k=10)]


def test_calibration_sets_the_fusion(tmp_path):
    good = _calibration(tmp_path / "good.txt", "scout-hashing-v1-16", 3)
    plain = _scores(scout.Catalog(embedder="hashing:16"))
    calibrated = _scores(scout.Catalog(embedder="hashing:16", calibration=good))
    # The dense branch weighs in: the fused scores (and so possibly the order) move.
    assert calibrated != plain
    # "options" given too win over the file's settings (here, back to the defaults).
    back = {"fusion": {"gated_dense_weight": 0, "overlap_power": 2}}
    assert _scores(scout.Catalog(embedder="hashing:16", calibration=str(good), options=back)) == plain


def test_calibration_refusals_name_the_file(tmp_path):
    other = _calibration(tmp_path / "other.txt", "scout-hashing-v1-32", 3)
    with pytest.raises(scout.EmbedderMismatch, match=re.escape(str(other))):
        scout.Catalog(embedder="hashing:16", calibration=other)
    truncated = tmp_path / "truncated.txt"
    truncated.write_text("scout-calibration 1\nmodel scout-hashing-v1-16\n")
    with pytest.raises(scout.InvalidArgument, match="truncated"):
        scout.Catalog(embedder="hashing:16", calibration=truncated)
    with pytest.raises(scout.NotFound, match="missing.txt"):
        scout.Catalog(embedder="hashing:16", calibration=tmp_path / "missing.txt")
