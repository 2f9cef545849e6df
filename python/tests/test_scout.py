"""The Python module `scout`: search and scope, the JSON of `scout search --json`, degradation
with a dead embedder, the GIL released while the library works, threads searching during
commits, persistence, and bad input raising scout.Error rather than crashing.

Run by ctest (python:pytest) with PYTHONPATH=<build>/python, SCOUT_SOURCE_DIR and, when the
command is built, SCOUT_CLI."""

import hashlib
import http.server
import json
import os
import pathlib
import socket
import subprocess
import threading

import pytest

import scout

SOURCE = pathlib.Path(os.environ.get("SCOUT_SOURCE_DIR", pathlib.Path(__file__).parents[2]))
ENTERPRISE = SOURCE / "data" / "enterprise_catalog.json"
# The components the module was built without (SCOUT_WITH_HTTP, SCOUT_WITH_TRANSFORMER OFF):
# their embedders are refused, which test_left_out_component_is_refused checks instead.
LEFT_OUT = os.environ.get("SCOUT_LEFT_OUT", "").split()
needs_http = pytest.mark.skipif("http" in LEFT_OUT, reason="built without scout::http")
needs_transformer = pytest.mark.skipif("transformer" in LEFT_OUT,
                                       reason="built without scout::transformer")
MATCH_KEYS = {"name", "server", "tool", "description", "inputSchema", "score", "bm25_rank",
              "dense_rank"}

SERVERS = [
    {"name": "github", "description": "Code hosting", "environment": "prod",
     "tools": [
         {"name": "create_pull_request", "description": "Open a pull request from a branch",
          "inputSchema": {"type": "object",
                          "properties": {"base": {"type": "string"}}}},
         {"name": "list_issues", "description": "List the issues of a repository"}]},
    {"name": "gitlab", "description": "Code hosting too", "environment": "dev",
     "tools": [{"name": "create_merge_request",
                "description": "Open a merge request, a pull request of gitlab"}]},
    {"name": "pager", "description": "On-call paging",
     "tools": [{"name": "page_oncall", "description": "Page the on-call engineer"}]},
]


@pytest.fixture(scope="module")
def enterprise():
    catalog = scout.Catalog(embedder="none")
    catalog.upsert_servers(ENTERPRISE)
    info = catalog.commit()
    assert info["tools"] == 650
    return catalog


def small(embedder="none"):
    catalog = scout.Catalog(embedder=embedder)
    catalog.upsert_servers(SERVERS)
    catalog.commit()
    return catalog


def test_version():
    assert scout.__version__ == scout.version()
    assert scout.__version__.count(".") == 2


def test_search_and_scope(enterprise):
    results = enterprise.search("create a pull request", top_k=3,
                                servers=["github-enterprise"])
    assert isinstance(results, list) and isinstance(results, scout.SearchResults)
    assert 1 <= len(results) <= 3
    assert all(m["server"] == "github-enterprise" for m in results)
    assert "github-enterprise_create_pull_request" in [m["name"] for m in results]
    assert set(results[0]) == MATCH_KEYS
    assert isinstance(results[0]["inputSchema"], dict)
    assert results.mode == "bm25" or results.mode == "hybrid"
    assert results.query == "create a pull request"
    assert not results.catalog_empty
    assert enterprise.search("create a pull request", servers=[]) == []
    unscoped = enterprise.search("create a pull request", top_k=10)
    assert len(unscoped) == 10
    assert len({m["server"] for m in unscoped}) > 1


def test_environment_and_status():
    catalog = small()
    prod = catalog.search("open a request", environment="prod", top_k=10)
    assert prod and all(m["server"] == "github" for m in prod)
    catalog.set_server_status("github", "inactive")
    assert any(m["server"] == "github" for m in catalog.search("pull request", top_k=10))
    catalog.commit()  # staged changes are invisible until the commit
    assert all(m["server"] != "github" for m in catalog.search("pull request", top_k=10))
    catalog.remove_server("pager")
    catalog.commit()
    assert all(m["server"] != "pager" for m in catalog.search("page the on-call", top_k=10))


def test_alternatives_are_searched_and_fused():
    catalog = scout.Catalog(embedder="none")
    catalog.upsert_servers(ENTERPRISE)
    catalog.commit()
    assert len(catalog.search("zzqx")) == 0
    results = catalog.search("zzqx", top_k=3, alternatives=["create a pull request"])
    assert "github-enterprise_create_pull_request" in [m["name"] for m in results]
    # Only the alternative matches anything, so it is every match's best phrasing.
    assert [m["best_phrasing"] for m in results] == [1] * len(results)
    assert all("best_phrasing" not in m for m in catalog.search("create a pull request"))
    with pytest.raises(scout.InvalidArgument, match="not one string"):
        catalog.search("q", alternatives="create a pull request")
    with pytest.raises(scout.InvalidArgument, match="at most 8"):
        catalog.search("q", alternatives=["x"] * 9)


def test_doctor_reports_what_the_cli_reports():
    servers = [{"name": "files", "tools": [
        {"name": "read"},
        {"name": "write", "description": "Write a file to the disk, replacing what it held"}]}]
    report = scout.doctor(servers, embedder="none")
    assert report["summary"]["tools"] == 2
    assert any(f.get("tool") == "read" and f["severity"] == "error" for f in report["findings"])
    assert [s["server"] for s in report["servers"]] == ["files"]
    whole = scout.doctor(ENTERPRISE, embedder="none")
    assert whole["summary"]["tools"] == 650
    with pytest.raises(scout.InvalidArgument):
        scout.doctor({"servers": 1}, embedder="none")
    with pytest.raises(scout.InvalidArgument):
        scout.doctor(servers, embedder="word2vec")
    with pytest.raises(TypeError, match="embedder"):
        scout.doctor(servers, embeder="none")


def test_record_outcome_and_prior():
    catalog = small()
    before = [m["name"] for m in catalog.search("open a pull request", top_k=3)]
    catalog.record_outcome("open a pull request", "gitlab", "create_merge_request")
    assert [m["name"] for m in catalog.search("open a pull request", top_k=3)] == before
    learned = catalog.search("open a pull request", top_k=3, outcome_prior=True)
    assert any(m["tool"] == "create_merge_request" for m in learned)
    with pytest.raises(scout.NotFound):
        catalog.record_outcome("q", "gitlab", "nope", success=False)


def test_same_json_as_the_cli(enterprise, tmp_path):
    cli = os.environ.get("SCOUT_CLI")
    if not cli:
        pytest.skip("the scout command is not built")
    query = "roll back the last deploy"
    out = subprocess.run(
        [cli, "search", "--catalog", str(ENTERPRISE), "--embedder", "none", "--mode", "bm25",
         "--json", "--top-k", "7", "--quiet", query],
        check=True, capture_output=True, text=True, timeout=120).stdout
    # BM25 on both sides: without an embedder the CLI picks it, the library degrades to it.
    results = enterprise.search(query, top_k=7, mode="bm25")
    assert results.to_json() == json.loads(out)


def test_save_and_open(enterprise, tmp_path):
    path = tmp_path / "enterprise.scoutidx"
    enterprise.save(path)
    reopened = scout.Catalog.open(path, embedder="none")
    assert isinstance(reopened, scout.Catalog)
    query = "send a message to the on-call channel"
    assert ([m["name"] for m in reopened.search(query)] ==
            [m["name"] for m in enterprise.search(query)])
    with pytest.raises(scout.Corrupt):
        broken = tmp_path / "broken.scoutidx"
        broken.write_bytes(path.read_bytes()[:1000])
        scout.Catalog.open(broken, embedder="none")


def test_stats(enterprise):
    before = enterprise.stats()["searches"]
    enterprise.search("list open incidents")
    stats = enterprise.stats()
    assert stats["searches"] == before + 1
    assert set(stats) >= {"p50_ms", "p95_ms", "fallbacks"}


def test_results_are_independent_copies(enterprise):
    first = enterprise.search("create a pull request", servers=["github-enterprise"])
    first[0]["inputSchema"]["properties"] = "changed by the caller"
    again = enterprise.search("create a pull request", servers=["github-enterprise"])
    assert isinstance(again[0]["inputSchema"]["properties"], dict)


def test_default_embedder_is_the_shipped_model():
    catalog = scout.Catalog()  # "static": the trained word model of the checkout's data/
    catalog.upsert_servers(SERVERS)
    assert catalog.commit()["dense_ready"]
    results = catalog.search("open a pull request")
    assert results.mode == "hybrid" and not results.degraded
    assert any(m["dense_rank"] > 0 for m in results)


@pytest.mark.parametrize("component, embedder", [
    ("http", {"kind": "http", "url": "https://127.0.0.1:1/v1", "model": "m", "dimensions": 4}),
    ("transformer", {"kind": "transformer", "dir": str(SOURCE / "tests" / "fixtures")}),
])
def test_left_out_component_is_refused(component, embedder):
    """A component the build left out: its embedder is refused, saying why."""
    if component not in LEFT_OUT:
        pytest.skip(f"built with scout::{component}")
    with pytest.raises(scout.InvalidArgument, match=f"SCOUT_WITH_{component.upper()}=OFF"):
        scout.Catalog(embedder=embedder)


def dead_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again: nothing listens there


@needs_transformer
def test_transformer_embedder():
    """The in-process encoder, chosen by name or object, on the tiny BERT of the test fixtures."""
    model = SOURCE / "tests" / "fixtures" / "transformer" / "tiny-bert"
    for embedder in (f"transformer:{model}", {"kind": "transformer", "dir": str(model)}):
        catalog = small(embedder)
        results = catalog.search("read a file", mode="dense")
        assert results and not results.degraded
    with pytest.raises(scout.NotFound):
        scout.Catalog(embedder={"kind": "transformer", "dir": str(model / "missing")})


@needs_http
def test_degraded_with_a_dead_embedder():
    embedder = {"kind": "http", "url": f"http://127.0.0.1:{dead_port()}/v1", "model": "m",
                "dimensions": 8, "timeout_ms": 2000}
    catalog = scout.Catalog(embedder=embedder)
    catalog.upsert_servers(SERVERS)
    info = catalog.commit()
    assert not info["dense_ready"] and info["dense_error"]
    results = catalog.search("open a pull request")
    assert results.degraded
    assert results.degraded_reason
    assert "github_create_pull_request" in [m["name"] for m in results]
    assert results.to_json()["degraded_reason"] == results.degraded_reason


class EmbeddingService(http.server.ThreadingHTTPServer):
    """An OpenAI-style /embeddings service in this process: deterministic 8-d vectors from a
    hash of each text. Written in Python, so it can only answer while the library has released
    the GIL."""

    daemon_threads = True

    def __init__(self):
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                data = []
                for i, text in enumerate(body["input"]):
                    digest = hashlib.sha256(text.encode()).digest()
                    data.append({"index": i, "embedding": [b / 255.0 + 0.01 for b in digest[:8]]})
                payload = json.dumps({"data": data}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)
        self.thread.start()

    def url(self):
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def stop(self):
        self.shutdown()
        self.server_close()


@needs_http
def test_gil_is_released_during_commit_and_search():
    # The embedding service runs on a Python thread of this interpreter: a commit or a search
    # that kept the GIL while waiting for it would time out and degrade.
    service = EmbeddingService()
    try:
        catalog = scout.Catalog(embedder={"kind": "http", "url": service.url(), "model": "m",
                                          "dimensions": 8, "timeout_ms": 3000})
        catalog.upsert_servers(SERVERS)
        info = catalog.commit()
        assert info["dense_ready"], info["dense_error"]
        results = catalog.search("open a pull request", mode="hybrid", embed_timeout_ms=3000)
        assert not results.degraded, results.degraded_reason
        assert results.mode == "hybrid"
        assert any(m["dense_rank"] > 0 for m in results)
    finally:
        service.stop()


def test_threads_search_while_another_commits():
    catalog = scout.Catalog(embedder="hashing:64")
    catalog.upsert_servers(ENTERPRISE)
    catalog.commit()
    errors = []
    stop = threading.Event()

    def searcher():
        try:
            last = 0
            for _ in range(150):
                results = catalog.search("create a pull request", top_k=5)
                assert len(results) == 5
                assert results.generation >= last  # a thread never sees an older snapshot
                last = results.generation
        except Exception as e:  # reported below, with the thread's failure
            errors.append(e)

    def committer():
        try:
            version = 0
            while not stop.is_set() and version < 40:
                version += 1
                catalog.upsert_servers([{
                    "name": "churn", "description": f"version {version}",
                    "tools": [{"name": f"tool_{version % 3}", "description": "churning tool"}]}])
                catalog.commit()
        except Exception as e:
            errors.append(e)

    threads = [threading.Thread(target=searcher) for _ in range(4)]
    writer = threading.Thread(target=committer)
    writer.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    stop.set()
    writer.join(timeout=120)
    assert not any(t.is_alive() for t in threads + [writer])
    assert errors == []
    assert catalog.stats()["searches"] >= 600


@pytest.mark.parametrize("call, error", [
    (lambda c: c.search(""), scout.InvalidArgument),
    (lambda c: c.search("x" * 20000), scout.InvalidArgument),
    (lambda c: c.search("pull request", mode="fast"), scout.InvalidArgument),
    (lambda c: c.search("pull request", top_k=-1), scout.InvalidArgument),
    (lambda c: c.search("a lone \ud800 surrogate"), scout.InvalidArgument),
    (lambda c: c.search(b"bytes"), scout.InvalidArgument),
    (lambda c: c.search("pull request", auto_k=1.5), scout.InvalidArgument),
    (lambda c: c.search("pull request", auto_k="yes"), scout.InvalidArgument),
    (lambda c: c.upsert_servers([{"name": ""}]), scout.InvalidArgument),
    (lambda c: c.upsert_servers([{"name": "s", "tools": [{"name": "t"}, {"name": "t"}]}]),
     scout.InvalidArgument),
    (lambda c: c.upsert_servers([{"name": "s", "tools": [{"name": "t", "inputSchema": 3}]}]),
     scout.InvalidArgument),
    (lambda c: c.upsert_servers([{"name": object()}]), scout.InvalidArgument),
    (lambda c: c.upsert_servers(42), scout.InvalidArgument),
    (lambda c: c.upsert_servers("/nonexistent/catalog.json"), scout.Error),
    (lambda c: c.remove_server("nobody"), scout.NotFound),
    (lambda c: c.set_server_status("github", "sleepy"), scout.InvalidArgument),
    (lambda c: c.save("/nonexistent/folder/x.scoutidx"), scout.IoError),
])
def test_bad_input_raises_scout_error(call, error):
    catalog = small()
    with pytest.raises(error) as raised:
        call(catalog)
    assert isinstance(raised.value, scout.Error)
    assert raised.value.code == type(raised.value).code > 0
    assert str(raised.value)
    # The catalog is unharmed.
    assert catalog.search("open a pull request")


@pytest.mark.parametrize("kwargs, error", [
    ({"embedder": "word2vec"}, scout.InvalidArgument),
    ({"embedder": {"kind": "http", "url": "ftp://nowhere", "model": "m", "dimensions": 4}},
     scout.InvalidArgument),
    ({"embedder": "none", "options": {"bm25": {"k1": "high"}}}, scout.InvalidArgument),
    ({"embedder": "none", "options": {"bm25": {"kl": 1.0}}}, scout.InvalidArgument),
    ({"embedder": "none", "options": {"fusion": {"method": "average"}}}, scout.InvalidArgument),
    ({"embedder": "none", "query_cache": -1}, scout.InvalidArgument),
    ({"embedder": "static:/nonexistent/vectors.scout"}, scout.Error),
])
def test_bad_catalog_options_raise(kwargs, error):
    with pytest.raises(error):
        scout.Catalog(**kwargs)


def test_open_errors(tmp_path):
    with pytest.raises(scout.NotFound):
        scout.Catalog.open(tmp_path / "missing.scoutidx", embedder="none")
    garbage = tmp_path / "garbage.scoutidx"
    garbage.write_bytes(b"\0" * 4096)
    with pytest.raises(scout.Corrupt):
        scout.Catalog.open(garbage, embedder="none")


def test_error_codes_match_the_c_abi():
    # scout.h: SCOUT_INVALID_ARGUMENT = 1 ... SCOUT_INTERNAL = 9
    assert scout.InvalidArgument.code == 1 and scout.InvalidArgument.code_name == "invalid_argument"
    assert scout.NotFound.code == 2
    assert scout.Corrupt.code == 4
    assert scout.Unavailable.code == 8
    assert scout.Internal.code == 9
    assert issubclass(scout.InvalidArgument, ValueError)
