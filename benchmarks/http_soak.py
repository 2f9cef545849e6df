#!/usr/bin/env python3
"""http_soak.py: scout-gateway's HTTP listener serving legitimate clients while every attack of
tests/e2e/front_door_attacks.py runs against it at once. Python 3 standard library only.

Usage: http_soak.py GATEWAY [--seconds N] [--clients N]

One gateway (127.0.0.1, port 0) with an auth file and two attack_backend.py servers. For N
seconds (default 30), 20 legitimate clients (the admin token, from 127.0.0.1) each loop: a new
keep-alive connection, initialize, 25 tool_search calls on it, DELETE of the session. Meanwhile a
second process (so the clients do not share an interpreter lock with the attackers) attacks from
127.0.0.2, each attack bounded in connections, bytes and time: chunked bodies and 100 MB
Content-Lengths, header floods, slowloris heads and bodies, 300 idle connections kept open,
sessions opened by the `nobody` token, the `scoped` token's calls to a tool that never answers,
its /metrics, and requests with a foreign Host.

Prints the legitimate tool_search latency (p50, p99, max), the failed legitimate requests, the
gateway's idle and peak RSS (VmRSS sampled every 50 ms, and VmHWM), what the attacks saw, and a
final line "N passed, M failed". Exits 1 if any legitimate request failed (or the gateway died),
77 when a prerequisite (/proc) is missing. SCOUT_FRONT_DOOR_OLD=1 drops the flags the gateway does
not list in --help, as in front_door_attacks.py.
"""
import argparse
import http.client
import itertools
import json
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))
import front_door_attacks as fda  # noqa: E402

SEARCHES_PER_SESSION = 25
QUERIES = ["look up a customer record by account number", "find an account record",
           "customer lookup", "wait for a reply from a server", "record search by number"]


def percentile(sorted_values, p):
    if not sorted_values:
        return float("nan")
    k = min(len(sorted_values) - 1, max(0, int(round(p / 100.0 * (len(sorted_values) - 1)))))
    return sorted_values[k]


# ---------------------------------------------------------------------------------------------
# The attacker process

class Tally:
    def __init__(self):
        self.lock = threading.Lock()
        self.counts = {}

    def add(self, attack, outcome, n=1):
        with self.lock:
            d = self.counts.setdefault(attack, {})
            d[outcome] = d.get(outcome, 0) + n


def outcome_of(r):
    if isinstance(r, Exception):
        return type(r).__name__
    if r.get("status") is not None:
        return f"HTTP {r['status']}"
    return r.get("outcome", "?")


def run_attacks(port, seconds):
    """Runs every attack until `seconds` have passed; returns the outcome counts."""
    fda.raise_fd_limit()
    end = fda.now() + seconds
    stop = threading.Event()
    tally = Tally()

    def left():
        return end - fda.now()

    def loop(name, fn, pause=0.0):
        while left() > 0.5 and not stop.is_set():
            try:
                r = fn()
            except OSError as e:
                r = e
            tally.add(name, outcome_of(r))
            if isinstance(r, Exception) or pause:
                stop.wait(max(pause, 0.05 if isinstance(r, Exception) else 0.0))

    # The body attacks carry a valid token (the nobody caller's), so they reach the body limits
    # rather than a 401.
    token = ["Authorization: Bearer " + fda.TOKENS["nobody"]]
    ids = itertools.count(1)
    jobs = []
    for _ in range(2):
        jobs.append(("chunked_body", lambda: fda.attack_chunked_body(
            port, 200 * fda.MiB, min(5.0, left()), stop, token), 0.0))
    for style in ("lines", "long"):
        jobs.append(("huge_headers", lambda style=style: fda.attack_huge_headers(
            port, style, 48_000_000, min(5.0, left()), stop), 0.0))
    jobs.append(("content_length_100mb", lambda: fda.attack_content_length(
        port, 104857600, min(5.0, left()), stop, token), 0.0))
    for _ in range(20):
        jobs.append(("slowloris_head", lambda: fda.dribble(
            port, b"", fda.slow_head(port), min(8.0, left()), 0.2, stop), 0.0))
    for _ in range(5):
        jobs.append(("slowloris_body", lambda: fda.dribble(
            port, fda.slow_body_head(port, extra=token), fda.slow_body(), min(8.0, left()), 0.2,
            stop), 0.0))

    def session_flood():
        c = fda.McpClient(port, fda.TOKENS["nobody"], timeout=5.0, source=fda.ATTACK_SOURCE)
        message = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": fda.PROTOCOL, "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}
        try:
            status, _, _ = c.post_raw(message)
            return {"status": status}
        except fda.LegitError as e:
            return {"status": None, "outcome": str(e).split(":")[0]}
        finally:
            c.close()

    jobs.append(("session_flood", session_flood, 0.0))

    def hang_call(session_holder):
        if not session_holder:
            c = fda.McpClient(port, fda.TOKENS["scoped"], timeout=5.0, source=fda.ATTACK_SOURCE)
            try:
                session_holder.append(c.initialize())
            except fda.LegitError as e:
                return {"status": None, "outcome": "initialize " + str(e).split(":")[0]}
            finally:
                c.close()
        c = fda.McpClient(port, fda.TOKENS["scoped"], timeout=min(8.0, max(0.5, left())),
                          source=fda.ATTACK_SOURCE, session=session_holder[0])
        call_id = next(ids)
        try:
            status, headers, body = c.post_raw({
                "jsonrpc": "2.0", "id": call_id, "method": "tools/call", "params": {
                    "name": "execute_tool", "arguments": {
                        "tool_name": "hang", "server_name": "one-server", "arguments": {}}}})
        except fda.LegitError as e:
            return {"status": None, "outcome": str(e).split(":")[0]}
        finally:
            c.close()
        if status == 200:
            try:
                m = fda.parse_jsonrpc_body(headers.get("content-type"), body, call_id)
                kind = "JSON-RPC error" if "error" in m else (
                    "isError" if (m.get("result") or {}).get("isError") else "success")
            except fda.LegitError:
                kind = "bad body"
            return {"status": None, "outcome": f"HTTP 200 {kind}"}
        return {"status": status}

    for i in range(12):
        holder = []
        jobs.append(("hanging_calls", lambda holder=holder: hang_call(holder), 0.05))

    def metrics_scoped():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5,
                                          source_address=(fda.ATTACK_SOURCE, 0))
        try:
            conn.request("GET", "/metrics",
                         headers={"Authorization": "Bearer " + fda.TOKENS["scoped"]})
            resp = conn.getresponse()
            text = resp.read().decode("utf-8", "replace")
            leaked = "other-server" in text or "zebra_" in text
            return {"status": None, "outcome": f"HTTP {resp.status}" + (
                " LEAKED other-server" if leaked else "")}
        except (OSError, http.client.HTTPException) as e:
            return {"status": None, "outcome": type(e).__name__}
        finally:
            conn.close()

    jobs.append(("metrics_scope", metrics_scoped, 0.1))

    def rebinding():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5,
                                          source_address=(fda.ATTACK_SOURCE, 0))
        try:
            conn.request("GET", "/metrics", headers={
                "Host": "rebind.evil.example",
                "Authorization": "Bearer " + fda.TOKENS["nobody"]})
            resp = conn.getresponse()
            resp.read()
            return {"status": resp.status}
        except (OSError, http.client.HTTPException) as e:
            return {"status": None, "outcome": type(e).__name__}
        finally:
            conn.close()

    jobs.append(("dns_rebinding", rebinding, 0.1))

    def idle_holder(target=300):
        held = []
        while left() > 0.5 and not stop.is_set():
            want = target - len(held)
            if want > 0:
                opened, failed, pending = fda.open_idle(port, want, seconds=min(2.0, left()))
                held += opened
                tally.add("idle_flood", "opened", len(opened))
                if failed:
                    tally.add("idle_flood", "connect refused", failed)
                if pending:
                    tally.add("idle_flood", "connect pending after 2 s", pending)
            stop.wait(1.0)
            states = fda.classify_idle(held)
            keep = []
            for s, st in zip(held, states):
                if st[0] == "open":
                    keep.append(s)
                else:
                    tally.add("idle_flood", st[0] if st[1] is None else f"HTTP {st[1]}")
                    s.close()
            held = keep
            with tally.lock:
                d = tally.counts.setdefault("idle_flood", {})
                d["most held open"] = max(d.get("most held open", 0), len(held))
        for s in held:
            s.close()

    threads = [threading.Thread(target=loop, args=job, daemon=True) for job in jobs]
    threads.append(threading.Thread(target=idle_holder, daemon=True))
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=max(0.0, left() + 12.0))
    stop.set()
    return tally.counts


# ---------------------------------------------------------------------------------------------
# The legitimate clients

class Legit:
    def __init__(self):
        self.lock = threading.Lock()
        self.latencies = []
        self.init_latencies = []
        self.failures = []
        self.searches_by_client = {}


def legit_client(index, port, end, stats):
    c = fda.McpClient(port, fda.TOKENS["admin"], timeout=10.0)
    searches = 0
    mine, inits, failures = [], [], []
    while fda.now() < end:
        # Each session on a connection of its own, as clients come and go: a listener whose
        # threads or slots the attackers hold fails here, not only on a connection kept since
        # before the attack.
        c.new_connection()
        try:
            took, _ = fda.timed(c.initialize)
            inits.append(took)
        except fda.LegitError as e:
            failures.append(f"client {index} initialize: {e}")
            c.new_connection()
            time.sleep(0.2)
            continue
        failed = False
        for i in range(SEARCHES_PER_SESSION):
            if fda.now() >= end:
                break
            try:
                took, _ = fda.timed(c.tool_search, QUERIES[(index + i) % len(QUERIES)])
                mine.append(took)
                searches += 1
            except fda.LegitError as e:
                failures.append(f"client {index} tool_search: {e}")
                c.new_connection()
                failed = True
                break  # a new session next
        if failed:
            continue
        # End the session, as a well-behaved client does before opening another.
        try:
            conn = c._connection()
            conn.request("DELETE", "/mcp", headers=c.headers())
            resp = conn.getresponse()
            resp.read()
            if resp.will_close:
                c.close()
            if resp.status not in (200, 202, 204):
                failures.append(f"client {index} DELETE: HTTP {resp.status}")
        except (OSError, http.client.HTTPException) as e:
            failures.append(f"client {index} DELETE: {type(e).__name__}: {e}")
            c.close()
    c.close()
    with stats.lock:
        stats.latencies += mine
        stats.init_latencies += inits
        stats.failures += failures
        stats.searches_by_client[index] = searches


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gateway")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--attack", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args(argv[1:])
    if args.attack is not None:  # the attacker process
        counts = run_attacks(args.attack, args.seconds)
        print(json.dumps(counts))
        return 0
    if not os.path.exists("/proc/self/status"):
        print("SKIP: /proc is not mounted (the gateway's RSS is read from it)")
        return fda.SKIP
    fda.raise_fd_limit()
    h = fda.Harness(args.gateway, "http_soak")
    print(f"soak: {args.clients} legitimate clients for {args.seconds:g} s under every attack"
          + (" (sanitizer build)" if h.sanitized else ""), flush=True)
    attackers = None
    try:
        port = h.start_gateway(
            ["--max-body-bytes", "1048576", "--max-header-bytes", "16384",
             "--head-timeout-ms", "2000", "--body-timeout-ms", "3000",
             "--max-calls-per-caller", "8", "--max-sessions-per-caller", "64"],
            auth=True, servers={"one-server": "", "other-server": "zebra_"},
            call_timeout_ms=5000)
        h.warm_up(("one-server", "other-server"))
        idle_rss, idle_hwm = h.idle_rss, h.idle_hwm
        attackers = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), args.gateway, "--attack", str(port),
             "--seconds", str(args.seconds)],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        stats = Legit()
        t0 = fda.now()
        end = t0 + args.seconds
        with fda.RssSampler(h.gw, interval=0.05) as sampler:
            clients = [threading.Thread(target=legit_client, args=(i, port, end, stats),
                                        daemon=True) for i in range(args.clients)]
            for t in clients:
                t.start()
            for t in clients:
                t.join(timeout=max(0.0, end - fda.now()) + 30.0)
            elapsed = fda.now() - t0
            try:
                out, err = attackers.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                attackers.kill()
                out, err = attackers.communicate()
        peak = h.peak_since_idle(sampler.peak)
        _, hwm = h.gw.status_mib()
        stuck = sum(1 for t in clients if t.is_alive())
        lat = sorted(stats.latencies)
        n = len(lat)
        print(f"legitimate tool_search: {n} calls in {elapsed:.1f} s ({n / elapsed:.0f}/s); "
              f"p50 {percentile(lat, 50) * 1000:.1f} ms, p99 {percentile(lat, 99) * 1000:.1f} ms, "
              f"max {(lat[-1] if lat else float('nan')) * 1000:.1f} ms", flush=True)
        inits = sorted(stats.init_latencies)
        print(f"legitimate initialize: {len(inits)} calls; p50 "
              f"{percentile(inits, 50) * 1000:.1f} ms, p99 {percentile(inits, 99) * 1000:.1f} ms",
              flush=True)
        print(f"legitimate failures: {len(stats.failures)}", flush=True)
        for f in stats.failures[:10]:
            print(f"  {f}", flush=True)
        print(f"gateway RSS: idle {idle_rss:.1f} MiB, peak {peak:.1f} MiB (VmHWM {hwm or 0:.1f} "
              f"MiB; {sampler.samples} samples)", flush=True)
        try:
            counts = json.loads(out.decode().strip().splitlines()[-1])
        except (ValueError, IndexError):
            counts = None
        if counts is None:
            h.check(False, f"the attacker process reported (exit {attackers.returncode}): "
                           f"{err.decode(errors='replace')[-2000:]}")
        else:
            print("attacks (outcome: count):", flush=True)
            for name in sorted(counts):
                print(f"  {name}: {json.dumps(counts[name], sort_keys=True)}", flush=True)
        h.check(stuck == 0, f"every legitimate client finished ({stuck} stuck)")
        h.check(not stats.failures, f"no legitimate request failed ({len(stats.failures)} did)")
        per_client = [stats.searches_by_client.get(i, 0) for i in range(args.clients)]
        h.check(min(per_client) > 0, f"every legitimate client completed searches "
                                     f"(fewest {min(per_client)}, most {max(per_client)})")
    except fda.GatewayDied as e:
        h.check(False, str(e))
    finally:
        if attackers is not None and attackers.poll() is None:
            attackers.kill()
            attackers.wait()
    return h.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
