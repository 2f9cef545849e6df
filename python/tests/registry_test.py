"""scout.Replica against a PostgreSQL server of the test's own (tests/support/pg_test_server.sh),
filled with the `scout` command: a replica opened from a URL (one carrying a password refused;
the password from a file over TCP), its status, searches, and read-your-writes (a search that
asks for a change not made yet waits and raises, then finds it once another writer pushes it),
and outcomes recorded on one replica learned alike by another.

Registered by ctest (python:registry) only in builds with libpq where PostgreSQL's server
binaries are found, with PYTHONPATH=<build>/python, SCOUT_SOURCE_DIR and SCOUT_CLI."""

import json
import os
import pathlib
import socket
import subprocess
import tempfile
import time
from typing import Iterator, Tuple

import pytest

import scout

SOURCE = pathlib.Path(os.environ.get("SCOUT_SOURCE_DIR", pathlib.Path(__file__).parents[2]))
CLI = os.environ["SCOUT_CLI"]
SERVER = SOURCE / "tests" / "support" / "pg_test_server.sh"
PASSWORD = "scout-test-password"

GITHUB = {"servers": [{"name": "github", "description": "Code hosting", "tools": [
    {"name": "create_pull_request", "description": "Open a pull request from a branch"},
    {"name": "list_issues", "description": "List the issues of a repository"}]}]}
PAGER = {"servers": [{"name": "pager", "description": "On-call paging", "tools": [
    {"name": "page_oncall", "description": "Page the engineer on call"}]}]}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def push(url: str, catalog: dict, folder: pathlib.Path) -> int:
    """Pushes `catalog` with the `scout` command; the registry's head after it."""
    path = folder / "push.json"
    path.write_text(json.dumps(catalog))
    out = subprocess.run([CLI, "registry", "push", str(path), "--embedder", "hashing:32",
                          "--json", "--registry", url],
                         check=True, capture_output=True, text=True, timeout=60).stdout
    return int(json.loads(out)["head_seq"])


@pytest.fixture(scope="module")
def registry() -> Iterator[Tuple[str, str, pathlib.Path]]:
    """(socket URL, TCP URL, folder) of a running registry holding GITHUB."""
    with tempfile.TemporaryDirectory() as work:
        folder = pathlib.Path(work)
        os.chmod(folder, 0o755)  # the server may run as another user (nobody, under root)
        port = free_port()
        subprocess.run(["timeout", "90", str(SERVER), "start", str(folder / "pg"), str(port),
                        str(os.getpid())], check=True, timeout=120)
        try:
            url = f"postgresql:///postgres?host={folder / 'pg'}&port={port}&user=scout"
            tcp_url = f"postgresql://scout@127.0.0.1:{port}/postgres"
            subprocess.run([CLI, "registry", "init", "--registry", url], check=True,
                           capture_output=True, timeout=60)
            push(url, GITHUB, folder)
            yield url, tcp_url, folder
        finally:
            subprocess.run(["timeout", "30", str(SERVER), "stop", str(folder / "pg")],
                           check=False, capture_output=True)


def test_the_module_has_the_registry() -> None:
    assert scout.HAS_REGISTRY
    assert "Replica" in scout.__all__


def test_a_password_in_the_url_is_refused(registry: Tuple[str, str, pathlib.Path]) -> None:
    with pytest.raises(scout.InvalidArgument, match="password") as refused:
        scout.Replica("postgresql://scout:secret@127.0.0.1/postgres", embedder="hashing:32")
    assert "secret" not in str(refused.value)
    with pytest.raises(scout.InvalidArgument, match="degraded_ttl_s"):
        scout.Replica(registry[0], embedder="hashing:32", degraded_ttl_s=0)
    with pytest.raises(scout.InvalidArgument, match="poll_interval_ms"):
        scout.Replica(registry[0], embedder="hashing:32", poll_interval_ms=-1)
    with pytest.raises(TypeError):
        scout.Replica(registry[0], embedder="hashing:32", colour=1)  # type: ignore[call-arg]


def test_a_wrong_password_is_unavailable(registry: Tuple[str, str, pathlib.Path]) -> None:
    _, tcp_url, folder = registry
    wrong = folder / "wrong-password"
    wrong.write_text("wrong\n")
    env_before = {k: os.environ.pop(k) for k in ("PGPASSWORD", "PGPASSFILE") if k in os.environ}
    try:
        with pytest.raises(scout.Unavailable):
            scout.Replica(tcp_url, embedder="hashing:32", password_file=wrong)
    finally:
        os.environ.update(env_before)


def test_status_search_and_read_your_writes(registry: Tuple[str, str, pathlib.Path]) -> None:
    url, tcp_url, folder = registry
    with scout.Replica(url, embedder="hashing:32", poll_interval_ms=200) as replica:
        status = replica.status()
        applied = status["applied_seq"]
        assert applied >= 1
        assert status["head_seq"] == applied
        assert status["lag"] == 0
        assert status["degraded_served"] == []
        found = replica.search("open a pull request", top_k=3)
        assert any(m["tool"] == "create_pull_request" for m in found)

        # A change not made yet: the search waits, bounded, and says which numbers.
        with pytest.raises(scout.Unavailable, match="not applied"):
            replica.search("page the engineer on call", min_seq=applied + 1, timeout_ms=200)
        assert not replica.wait_for(applied + 1, timeout_ms=0)

        head = push(url, PAGER, folder)
        assert head == applied + 1
        found = replica.search("page the engineer on call", min_seq=head, timeout_ms=10000)
        assert any(m["tool"] == "page_oncall" for m in found)
        assert replica.status()["applied_seq"] >= head

        password = folder / "password"
        password.write_text(PASSWORD + "\n")
        with scout.Replica(tcp_url, embedder="hashing:32", password_file=password) as over_tcp:
            found = over_tcp.search("page the engineer on call", min_seq=head, timeout_ms=0)
            assert any(m["tool"] == "page_oncall" for m in found)
    assert replica.closed
    with pytest.raises(scout.InvalidArgument, match="closed"):
        replica.status()


def _scores(replica: "scout.Replica", query: str, prior: bool) -> list:
    found = replica.search(query, top_k=5, outcome_prior=prior)
    return [(m["server"], m["tool"], m["score"]) for m in found]


def test_outcomes_are_learned_by_every_replica(registry: Tuple[str, str, pathlib.Path]) -> None:
    url, _, _ = registry
    query = "list the issues of a pull request"
    with scout.Replica(url, embedder="hashing:32", poll_interval_ms=100) as a, \
            scout.Replica(url, embedder="hashing:32", poll_interval_ms=100) as b:
        start = b.status()["outcome_seq"]
        before = _scores(b, query, True)
        with pytest.raises(scout.NotFound):
            a.record_outcome(query, "github", "no_such_tool")
        for _ in range(4):
            a.record_outcome(query, "github", "list_issues", success=True)
        a.record_outcome(query, "github", "create_pull_request", success=False)
        assert a.status()["outcomes_recorded"] == 5
        deadline = 200  # x 50 ms: bounded, the followers poll every 100 ms
        while b.status()["outcome_seq"] < start + 5 or a.status()["outcome_seq"] < start + 5:
            deadline -= 1
            assert deadline > 0, (a.status(), b.status())
            time.sleep(0.05)
        assert a.status()["outcomes_dropped"] == 0
        assert b.status()["outcome_events_applied"] >= 5
        after = _scores(b, query, True)
        assert after == _scores(a, query, True)  # the same prior on both
        assert after != before
        boosted = {(s, t): score for s, t, score in after}
        plain = {(s, t): score for s, t, score in _scores(b, query, False)}
        assert boosted[("github", "list_issues")] > plain[("github", "list_issues")]
