"""Runs examples/python/tool_search_service.py on 127.0.0.1 (a free port) with the bundled
catalog, sends it real HTTP requests, and stops it. Every wait is bounded."""

import json
import os
import pathlib
import selectors
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

HERE = pathlib.Path(__file__).parent
SOURCE = pathlib.Path(os.environ.get("SCOUT_SOURCE_DIR", HERE.parents[1]))


@pytest.fixture(scope="module")
def service():
    process = subprocess.Popen(
        [sys.executable, str(HERE / "tool_search_service.py"),
         "--catalog", str(SOURCE / "data" / "enterprise_catalog.json"),
         "--embedder", "none", "--port", "0"],
        stdout=subprocess.PIPE, text=True)
    try:
        selector = selectors.DefaultSelector()
        selector.register(process.stdout, selectors.EVENT_READ)
        assert selector.select(timeout=60), "the service did not start within 60 s"
        line = process.stdout.readline()
        assert line.startswith("listening on http://127.0.0.1:"), line
        yield line.split()[2]
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def post(url, body):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(url + "/search", data=data, method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_search(service):
    status, answer = post(service, {"query": "create a pull request", "top_k": 3,
                                    "servers": ["github-enterprise"]})
    assert status == 200
    assert answer["query"] == "create a pull request"
    names = [m["name"] for m in answer["matches"]]
    assert 1 <= len(names) <= 3
    assert "github-enterprise_create_pull_request" in names
    assert all(m["server"] == "github-enterprise" for m in answer["matches"])
    assert isinstance(answer["matches"][0]["inputSchema"], dict)


def test_health(service):
    with urllib.request.urlopen(service + "/health", timeout=10) as response:
        assert json.loads(response.read()) == {"status": "ok", "tools": 650}


@pytest.mark.parametrize("body", [
    b"not json",
    {"top_k": 3},
    {"query": ""},
    {"query": "deploy", "mode": "fast"},
    {"query": "deploy", "colour": "blue"},
    {"query": "deploy", "top_k": "many"},
])
def test_bad_requests_get_400(service, body):
    status, answer = post(service, body)
    assert status == 400
    assert answer["code"] == "invalid_argument" and answer["error"]
