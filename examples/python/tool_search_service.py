#!/usr/bin/env python3
"""tool_search_service.py: a small tool-search HTTP service on the `scout` Python module, with
the standard library's HTTP server (no framework needed).

    PYTHONPATH=build/python python3 examples/python/tool_search_service.py \\
        --catalog data/enterprise_catalog.json --port 8000
    curl -s -X POST 127.0.0.1:8000/search -d '{"query": "open a pull request", "top_k": 3}'

POST /search takes {"query", "top_k"?, "mode"?, "servers"?, "environment"?} and answers with the
JSON of `scout search --json`; GET /health answers {"status": "ok", "tools": N}. Bad requests get
400 with {"error", "code"}; bodies are capped at 64 KiB and each connection has a 10 s socket
timeout, so a slow or hostile client cannot hold a worker forever. Requests are served on
threads, and searches run in parallel: the module releases the GIL while it searches.
"""

import argparse
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import scout

MAX_BODY_BYTES = 64 * 1024
SEARCH_KEYS = {"query", "top_k", "mode", "servers", "environment"}


class Handler(BaseHTTPRequestHandler):
    catalog = None  # set by main()
    tools = 0
    timeout = 10  # seconds a connection may stay silent
    server_version = "scout-tool-search/" + scout.__version__
    protocol_version = "HTTP/1.1"

    def reply(self, status, payload):
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/health":
            self.reply(200, {"status": "ok", "tools": self.tools})
        else:
            self.reply(404, {"error": "not found", "code": "not_found"})

    def do_POST(self):
        if self.path != "/search":
            self.reply(404, {"error": "not found", "code": "not_found"})
            return
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            self.reply(411, {"error": "Content-Length required", "code": "invalid_argument"})
            return
        if length < 0 or length > MAX_BODY_BYTES:
            self.reply(413, {"error": f"body over {MAX_BODY_BYTES} bytes", "code": "invalid_argument"})
            self.close_connection = True
            return
        try:
            request = json.loads(self.rfile.read(length))
        except (ValueError, UnicodeDecodeError) as e:
            self.reply(400, {"error": f"body is not JSON: {e}", "code": "invalid_argument"})
            return
        if not isinstance(request, dict) or not isinstance(request.get("query"), str):
            self.reply(400, {"error": 'expected {"query": "..."}', "code": "invalid_argument"})
            return
        unknown = set(request) - SEARCH_KEYS
        if unknown:
            self.reply(400, {"error": f"unknown keys: {sorted(unknown)}", "code": "invalid_argument"})
            return
        try:
            results = self.catalog.search(
                request["query"],
                top_k=request.get("top_k", 5),
                mode=request.get("mode"),
                servers=request.get("servers"),
                environment=request.get("environment"))
        except scout.InvalidArgument as e:
            self.reply(400, {"error": str(e), "code": e.code_name})
            return
        except (TypeError, ValueError) as e:  # a value of the wrong type in the request
            self.reply(400, {"error": str(e), "code": "invalid_argument"})
            return
        except scout.Error as e:
            self.reply(500, {"error": str(e), "code": e.code_name})
            return
        self.reply(200, results.to_json())

    def log_message(self, fmt, *args):
        if self.server.verbose:
            sys.stderr.write("%s - %s\n" % (self.address_string(), fmt % args))


def main():
    parser = argparse.ArgumentParser(description="A tool-search HTTP service on scout.")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--catalog", help="catalog JSON file to index")
    source.add_argument("--index", help="index file written by `scout index`")
    parser.add_argument("--embedder", default="static",
                        help="static, static:PATH, hashing, none (default: static)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port; 0 picks a free one (default: 8000)")
    parser.add_argument("--verbose", action="store_true", help="log each request on stderr")
    args = parser.parse_args()

    try:
        if args.index:
            catalog = scout.Catalog.open(args.index, embedder=args.embedder)
        else:
            catalog = scout.Catalog(embedder=args.embedder)
            catalog.upsert_servers(args.catalog)
        info = catalog.commit()
    except scout.Error as e:
        sys.exit(f"tool_search_service: {e}")

    Handler.catalog = catalog
    Handler.tools = info["tools"]
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.daemon_threads = True
    server.verbose = args.verbose
    host, port = server.server_address[:2]
    print(f"listening on http://{host}:{port} ({info['tools']} tools)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
