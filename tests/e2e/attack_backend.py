#!/usr/bin/env python3
"""attack_backend.py: a minimal MCP stdio server (Python 3 standard library only) for the
front-door attack tests. It answers initialize and tools/list with two tools, PREFIX +
"lookup_record" (answered at once) and PREFIX + "hang" (a tools/call that is never answered), and
-32601 for anything else, server/discover included (so the gateway falls back to initialize).

Usage: attack_backend.py [PREFIX]   (PREFIX defaults to "", so the tools are lookup_record, hang)
"""
import json
import sys


def main():
    prefix = sys.argv[1] if len(sys.argv) > 1 else ""
    lookup = prefix + "lookup_record"
    hang = prefix + "hang"
    update = prefix + "update_record"
    updates = 0  # calls that reached this backend
    tools = [
        {"name": lookup,
         "description": "Look up a customer record by its account number",
         "inputSchema": {"type": "object", "properties": {"account": {"type": "string"}}}},
        {"name": update,
         "description": "Change the balance of a customer record",
         "inputSchema": {"type": "object",
                         "properties": {"account": {"type": "string", "minLength": 1},
                                        "amount": {"type": "integer", "minimum": 0}},
                         "required": ["account", "amount"],
                         "additionalProperties": False}},
        {"name": hang,
         "description": "Wait for a reply from a server that never answers",
         "inputSchema": {"type": "object"}},
    ]
    out = sys.stdout

    def send(message):
        message["jsonrpc"] = "2.0"
        out.write(json.dumps(message) + "\n")
        out.flush()

    while True:
        line = sys.stdin.readline()  # as each line arrives
        if not line:
            break
        try:
            m = json.loads(line)
        except ValueError:
            continue
        if not isinstance(m, dict) or "id" not in m or "method" not in m:
            continue  # notifications and responses
        method = m["method"]
        params = m.get("params") or {}
        if method == "initialize":
            send({"id": m["id"], "result": {
                "protocolVersion": params.get("protocolVersion", "2025-11-25"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "attack-backend" + (":" + prefix if prefix else ""),
                               "version": "1"}}})
        elif method == "tools/list":
            send({"id": m["id"], "result": {"tools": tools}})
        elif method == "tools/call":
            name = params.get("name")
            if name == lookup:
                send({"id": m["id"], "result": {
                    "content": [{"type": "text", "text": "record found"}]}})
            elif name == update:
                updates += 1
                send({"id": m["id"], "result": {
                    "content": [{"type": "text", "text": f"update_record calls: {updates}"}]}})
            elif name == hang:
                pass  # never answered
            else:
                send({"id": m["id"], "error": {"code": -32602, "message": "unknown tool"}})
        elif method == "ping":
            send({"id": m["id"], "result": {}})
        else:
            send({"id": m["id"], "error": {"code": -32601, "message": "Method not found"}})


if __name__ == "__main__":
    try:
        main()
    except (BrokenPipeError, KeyboardInterrupt):
        pass
