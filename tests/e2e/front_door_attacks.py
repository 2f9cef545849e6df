#!/usr/bin/env python3
"""front_door_attacks.py: scout-gateway's HTTP listener (--listen) under hostile, mostly
unauthenticated clients. Python 3 standard library only.

Usage: front_door_attacks.py GATEWAY SCENARIO

Each scenario starts its own gateway on 127.0.0.1 (port 0, read from its log) in front of
attack_backend.py, runs one bounded attack (every socket has a timeout, every loop a bound in count
and time), checks what the listener must do, prints the measured numbers (times, bytes, RSS) and
a final line "N passed, M failed", stops the gateway and exits 0 (pass), 1 (fail) or 77 (skip: a
prerequisite such as /proc is missing).

Attackers connect from 127.0.0.2 when it can be bound (Linux routes all of 127/8 to loopback), the
legitimate clients from 127.0.0.1, so the per-address connection cap falls on the attackers.

Environment:
  SCOUT_FRONT_DOOR_OLD=1      drop the flags the gateway's --help does not list (to measure a
                              listener from before these flags; its failures are then expected)
  SCOUT_FRONT_DOOR_VERBOSE=1  copy the gateway's stderr to ours as it comes
  SCOUT_FRONT_DOOR_TIME_SCALE multiply the latency bounds (default 1; 3 for a sanitizer build,
                              which is detected; memory bounds are reported but not enforced then)
"""
import errno
import http.client
import json
import os
import re
import resource
import select
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
BACKEND = os.path.join(HERE, "attack_backend.py")
PROTOCOL = "2025-11-25"
KiB = 1 << 10
MiB = 1 << 20
TOKENS = {
    "admin": "admin-front-door-token-0123456789",
    "scoped": "scoped-front-door-token-0123456789",
    "nobody": "nobody-front-door-token-0123456789",
}
LEGIT_SOURCE = "127.0.0.1"
SEARCH_QUERY = "look up a customer record by account number"

SCENARIOS = ["chunked_body", "huge_headers", "slowloris", "idle_flood", "content_length_100mb",
             "session_flood", "hanging_calls", "metrics_scope", "dns_rebinding", "bad_arguments",
             "tls_flood"]


class GatewayDied(Exception):
    pass


def now():
    return time.monotonic()


def _pick_attack_source():
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.2", 0))
        return "127.0.0.2"
    except OSError:
        return "127.0.0.1"


ATTACK_SOURCE = _pick_attack_source()


def raise_fd_limit(wanted=8192):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(hard, wanted)
    if soft == resource.RLIM_INFINITY or soft >= target:
        return soft
    resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return target


def is_sanitized(binary):
    """Whether the gateway was built with a sanitizer (its RSS and speed are then not its own)."""
    markers = (b"__asan_init", b"__tsan_init", b"__msan_init")
    try:
        with open(binary, "rb") as f:
            tail = b""
            while True:
                block = f.read(8 * MiB)
                if not block:
                    return False
                if any(m in tail + block for m in markers):
                    return True
                tail = block[-32:]
    except OSError:
        return False


def gateway_help_flags(binary):
    p = subprocess.run([binary, "--help"], stdin=subprocess.DEVNULL, capture_output=True,
                       timeout=20)
    text = (p.stdout + p.stderr).decode("utf-8", "replace")
    return set(re.findall(r"--[a-z][a-z0-9-]*", text))


def filter_old_flags(binary, flags):
    """Under SCOUT_FRONT_DOOR_OLD=1, (kept, dropped): the flags the binary's --help lists (every
    flag given here takes a value)."""
    if os.environ.get("SCOUT_FRONT_DOOR_OLD") != "1":
        return list(flags), []
    known = gateway_help_flags(binary)
    kept, dropped = [], []
    for i in range(0, len(flags), 2):
        pair = flags[i:i + 2]
        (kept if pair[0] in known else dropped).extend(pair)
    return kept, dropped


# ---------------------------------------------------------------------------------------------
# The gateway process

PORT_LINE = re.compile(r"serving Streamable HTTP on https?://\S+/mcp \(port (\d+),")


class Gateway:
    def __init__(self, binary, args):
        self.binary = binary
        self.args = list(args)
        self.proc = None
        self.port = None
        self._lines = []
        self._lock = threading.Lock()
        self.verbose = os.environ.get("SCOUT_FRONT_DOOR_VERBOSE") == "1"

    def start(self, timeout=30.0):
        cmd = [self.binary] + self.args + ["--listen", "127.0.0.1:0"]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        threading.Thread(target=self._read_log, daemon=True).start()
        deadline = now() + timeout
        while now() < deadline:
            m = PORT_LINE.search(self.log())
            if m:
                self.port = int(m.group(1))
                return self.port
            if self.proc.poll() is not None:
                time.sleep(0.1)  # let the reader take the last lines
                first = "".join(self.log().splitlines(True)[:3])
                raise GatewayDied(f"the gateway exited ({self.proc.returncode}) before "
                                  f"listening:\n{first}")
            time.sleep(0.02)
        raise GatewayDied(f"the gateway did not log its port within {timeout:.0f} s")

    def _read_log(self):
        for raw in self.proc.stderr:
            line = raw.decode("utf-8", "replace")
            with self._lock:
                if len(self._lines) < 20000:
                    self._lines.append(line)
            if self.verbose:
                sys.stderr.write(line)

    def log(self):
        with self._lock:
            return "".join(self._lines)

    def log_tail(self, n=40):
        with self._lock:
            return "".join(self._lines[-n:])

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    @property
    def pid(self):
        return self.proc.pid

    def status_mib(self):
        """(VmRSS, VmHWM) in MiB, or (None, None) once the process is gone."""
        rss = hwm = None
        try:
            with open(f"/proc/{self.proc.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        rss = int(line.split()[1]) / 1024.0
                    elif line.startswith("VmHWM:"):
                        hwm = int(line.split()[1]) / 1024.0
        except OSError:
            pass
        return rss, hwm

    def rss_mib(self):
        return self.status_mib()[0]

    def socket_count(self):
        """Sockets the gateway holds open (listener and backend pipes are not sockets)."""
        n = 0
        try:
            fd_dir = f"/proc/{self.proc.pid}/fd"
            for fd in os.listdir(fd_dir):
                try:
                    if os.readlink(os.path.join(fd_dir, fd)).startswith("socket:"):
                        n += 1
                except OSError:
                    pass
        except OSError:
            return None
        return n

    def stop(self):
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait(timeout=10)


class RssSampler:
    """Samples the gateway's VmRSS every `interval` s; calls on_over(rss) when it passes `abort_mib`
    (so an attack can stop before it hurts the machine)."""

    def __init__(self, gw, interval=0.05, abort_mib=None, on_over=None):
        self.gw = gw
        self.interval = interval
        self.abort_mib = abort_mib
        self.on_over = on_over
        self.peak = 0.0
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self):
        while not self._stop.is_set():
            rss = self.gw.rss_mib()
            if rss is None:
                return
            self.samples += 1
            self.peak = max(self.peak, rss)
            if self.abort_mib is not None and rss > self.abort_mib and self.on_over:
                self.on_over(rss)
            self._stop.wait(self.interval)


# ---------------------------------------------------------------------------------------------
# A legitimate MCP client (keep-alive, http.client)

class LegitError(Exception):
    pass


def parse_jsonrpc_body(content_type, body, want_id):
    """The JSON-RPC message with id want_id in a JSON or SSE body, or raises LegitError."""
    if not body:
        raise LegitError("empty response body")
    text = body.decode("utf-8", "replace")
    if "text/event-stream" in (content_type or ""):
        for event in text.replace("\r\n", "\n").split("\n\n"):
            data = "\n".join(l[5:].lstrip() for l in event.split("\n") if l.startswith("data:"))
            if not data:
                continue
            try:
                m = json.loads(data)
            except ValueError:
                continue
            if isinstance(m, dict) and m.get("id") == want_id:
                return m
        raise LegitError(f"no JSON-RPC answer with id {want_id} in the event stream")
    try:
        m = json.loads(text)
    except ValueError as e:
        raise LegitError(f"the body is not JSON ({e}): {text[:200]!r}")
    if not isinstance(m, dict) or m.get("id") != want_id:
        raise LegitError(f"not the answer to request {want_id}: {text[:200]!r}")
    return m


class McpClient:
    """One HTTP/1.1 keep-alive connection and one MCP session. Every failure (a refused or closed
    connection, a timeout, a status other than 200, an answer without our id, a JSON-RPC error)
    raises LegitError: nothing short of a whole, right answer counts as a success."""

    def __init__(self, port, token=None, timeout=5.0, source=LEGIT_SOURCE, session=None,
                 tls=None):
        self.port = port
        self.tls = tls  # an ssl.SSLContext for an https listener
        self.token = token
        self.timeout = timeout
        self.source = source
        self.session = session
        self.next_id = 1
        self.conn = None

    def _connection(self):
        if self.conn is None and self.tls is not None:
            self.conn = http.client.HTTPSConnection("127.0.0.1", self.port, timeout=self.timeout,
                                                    source_address=(self.source, 0),
                                                    context=self.tls)
        elif self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout,
                                                   source_address=(self.source, 0))
        return self.conn

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def new_connection(self):
        self.close()

    def headers(self, extra=None):
        h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self.session:
            h["Mcp-Session-Id"] = self.session
            h["MCP-Protocol-Version"] = PROTOCOL
        if self.token:
            h["Authorization"] = "Bearer " + self.token
        if extra:
            h.update(extra)
        return h

    def post_raw(self, message):
        """(status, headers with lower-case names, body); raises LegitError on a transport error."""
        body = json.dumps(message).encode()
        conn = self._connection()
        try:
            conn.request("POST", "/mcp", body=body, headers=self.headers())
            resp = conn.getresponse()
            data = resp.read()
            headers = {k.lower(): v for k, v in resp.getheaders()}
            if resp.will_close:
                self.close()
            return resp.status, headers, data
        except (OSError, http.client.HTTPException) as e:
            self.close()
            raise LegitError(f"{type(e).__name__}: {e}") from None

    def call(self, method, params=None):
        request_id = self.next_id
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        status, headers, body = self.post_raw(message)
        if status != 200:
            raise LegitError(f"{method}: HTTP {status}: {body[:200]!r}")
        m = parse_jsonrpc_body(headers.get("content-type"), body, request_id)
        if "error" in m:
            raise LegitError(f"{method}: JSON-RPC error {m['error']}")
        if "result" not in m or not isinstance(m["result"], dict):
            raise LegitError(f"{method}: no result: {body[:200]!r}")
        return m["result"], headers

    def initialize(self):
        self.session = None
        result, headers = self.call("initialize", {
            "protocolVersion": PROTOCOL, "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}})
        session = headers.get("mcp-session-id")
        if not session:
            raise LegitError("initialize: no Mcp-Session-Id header")
        if "serverInfo" not in result:
            raise LegitError(f"initialize: no serverInfo in {result}")
        self.session = session
        status, _, body = self.post_raw({"jsonrpc": "2.0", "method": "notifications/initialized"})
        if status not in (200, 202):
            raise LegitError(f"notifications/initialized: HTTP {status}: {body[:200]!r}")
        return session

    def ping(self):
        self.call("ping")

    def tools_list(self):
        result, _ = self.call("tools/list")
        tools = result.get("tools")
        if not isinstance(tools, list) or not tools:
            raise LegitError(f"tools/list: no tools in {result}")
        return [t.get("name") for t in tools]

    def tool_search(self, query=SEARCH_QUERY, top_k=None):
        arguments = {"query": query}
        if top_k:
            arguments["top_k"] = top_k
        result, _ = self.call("tools/call", {"name": "tool_search", "arguments": arguments})
        if result.get("isError"):
            raise LegitError(f"tool_search: isError: {json.dumps(result)[:300]}")
        matches = (result.get("structuredContent") or {}).get("matches")
        if not isinstance(matches, list) or not matches:
            raise LegitError(f"tool_search: no matches: {json.dumps(result)[:300]}")
        return matches

    def execute(self, tool, server, arguments=None):
        result, _ = self.call("tools/call", {"name": "execute_tool", "arguments": {
            "tool_name": tool, "server_name": server, "arguments": arguments or {}}})
        return result


def timed(fn, *args, **kwargs):
    t0 = now()
    value = fn(*args, **kwargs)
    return now() - t0, value


# ---------------------------------------------------------------------------------------------
# Raw attack sockets

def attack_socket(port, timeout=3.0, sndbuf=None, source=None):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        if sndbuf:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, sndbuf)
        s.bind((source or ATTACK_SOURCE, 0))
        s.settimeout(timeout)
        s.connect(("127.0.0.1", port))
    except BaseException:
        s.close()
        raise
    return s


STATUS_LINE = re.compile(rb"HTTP/1\.[01] (\d{3})")


def parse_response_head(buf):
    """(status or None, {lower-case header: value}) of the response head in buf."""
    m = STATUS_LINE.match(buf)
    if not m:
        return None, {}
    headers = {}
    head = buf.split(b"\r\n\r\n", 1)[0]
    for line in head.split(b"\r\n")[1:]:
        if b":" in line:
            k, v = line.split(b":", 1)
            headers[k.strip().lower().decode("latin-1")] = v.strip().decode("latin-1")
    return int(m.group(1)), headers


def read_response_head(sock, buf, wait):
    """Reads more of a response (until its head is complete, the peer closes or `wait` s)."""
    end = now() + wait
    while b"\r\n\r\n" not in buf and now() < end:
        try:
            r, _, _ = select.select([sock], [], [], max(0.0, min(0.2, end - now())))
            if not r:
                continue
            data = sock.recv(65536)
        except (OSError, ValueError):
            break
        if not data:
            break
        buf += data
    return buf


def stream_until_answered(sock, head, piece, max_bytes, deadline, abort=None, linger=2.0):
    """Sends head, then piece again and again (at most max_bytes after the head), watching for an
    answer between sends, until the gateway answers, closes, max_bytes were sent (then waits up to
    `linger` s more), the deadline or `abort` (an Event). Returns a dict: sent (bytes after the
    head when the answer or close was first seen), total (bytes sent in all, head included),
    status, headers, outcome (answered | closed | reset | no_answer | deadline | aborted), seconds
    (from the head's first byte to the answer or close)."""
    t0 = now()
    result = {"sent": 0, "total": 0, "status": None, "headers": {}, "outcome": "no_answer",
              "seconds": None}
    try:
        sock.settimeout(max(0.1, deadline - now()))
        sock.sendall(head)
    except socket.timeout:
        result["outcome"] = "deadline"
        return result
    except OSError:
        result["outcome"] = "reset"
    result["total"] = len(head)
    sent = 0
    pending = memoryview(piece)
    buf = b""
    done_sending_at = None
    sock.settimeout(0.2)
    while result["outcome"] == "no_answer":
        t = now()
        if t > deadline:
            result["outcome"] = "deadline"
            break
        if abort is not None and abort.is_set():
            result["outcome"] = "aborted"
            break
        if sent >= max_bytes:
            if done_sending_at is None:
                done_sending_at = t
            elif t - done_sending_at > linger:
                break  # no_answer
        try:
            r, w, _ = select.select([sock], [sock] if sent < max_bytes else [], [], 0.2)
        except (OSError, ValueError):
            result["outcome"] = "reset"
            break
        if r:
            try:
                data = sock.recv(65536)
            except socket.timeout:
                data = None
            except OSError:
                result["outcome"] = "reset"
                break
            if data == b"":
                result["outcome"] = "closed"
                break
            if data:
                buf += data
                result["outcome"] = "answered"
                break
        if w:
            try:
                n = sock.send(pending[:max_bytes - sent])
            except socket.timeout:
                continue
            except OSError:
                result["outcome"] = "reset"
                break
            sent += n
            pending = pending[n:]
            if not pending:
                pending = memoryview(piece)
    result["seconds"] = now() - t0
    result["sent"] = sent
    result["total"] = len(head) + sent
    if result["outcome"] in ("answered", "closed", "reset"):
        # An answer may sit in our receive queue behind a reset; a partial head is completed.
        buf = read_response_head(sock, buf, 1.0)
        status, headers = parse_response_head(buf)
        result["status"], result["headers"] = status, headers
        if status is not None and result["outcome"] != "answered":
            result["outcome"] = "answered"
    return result


def http_head(method, port, extra_lines=(), body_headers=()):
    lines = [f"{method} /mcp HTTP/1.1", f"Host: 127.0.0.1:{port}",
             "Accept: application/json, text/event-stream"]
    lines += list(body_headers) + list(extra_lines)
    return ("\r\n".join(lines) + "\r\n").encode()


# ---------------------------------------------------------------------------------------------
# Attacks (shared with benchmarks/http_soak.py): each is bounded in bytes and time.

def chunked_piece(size=16 * KiB):
    data = b"a" * size
    return b"%x\r\n" % size + data + b"\r\n"


def attack_chunked_body(port, max_bytes=200 * MiB, seconds=8.0, abort=None, extra=()):
    """extra: more header lines (a token, so that the body is what gets refused)."""
    s = attack_socket(port, sndbuf=64 * KiB)
    try:
        head = http_head("POST", port, extra, ["Content-Type: application/json",
                                               "Transfer-Encoding: chunked"]) + b"\r\n"
        return stream_until_answered(s, head, chunked_piece(), max_bytes, now() + seconds, abort)
    finally:
        s.close()


def attack_huge_headers(port, style="lines", max_bytes=48_000_000, seconds=8.0, abort=None):
    """style "lines": 4 KiB header lines one after another; "long": one header line that never
    ends."""
    s = attack_socket(port, sndbuf=64 * KiB)
    try:
        head = http_head("GET", port)
        if style == "lines":
            piece = b"X-Flood: " + b"a" * (4 * KiB - 11) + b"\r\n"
        else:
            head += b"X-Flood: "
            piece = b"a" * (16 * KiB)
        return stream_until_answered(s, head, piece, max_bytes, now() + seconds, abort)
    finally:
        s.close()


def attack_content_length(port, declared=104857600, seconds=8.0, abort=None, extra=()):
    s = attack_socket(port, sndbuf=64 * KiB)
    try:
        head = http_head("POST", port, extra, [
            "Content-Type: application/json", f"Content-Length: {declared}"]) + b"\r\n"
        return stream_until_answered(s, head, b"a" * (16 * KiB), declared, now() + seconds, abort)
    finally:
        s.close()


def dribble(port, head_now, trickle, limit_s, interval=0.2, stop=None):
    """Sends head_now at once, then trickle one byte every `interval` s, until the gateway answers
    or closes, or limit_s after the trickle started. Returns a dict: outcome (answered | closed |
    open | connect_failed), status, seconds (from the trickle's start to the answer or close)."""
    result = {"outcome": "open", "status": None, "seconds": None}
    try:
        s = attack_socket(port, timeout=3.0)
    except OSError as e:
        result["outcome"] = "connect_failed"
        result["error"] = str(e)
        return result
    try:
        s.settimeout(1.0)
        if head_now:
            s.sendall(head_now)
        t0 = now()
        i = 0
        while now() - t0 < limit_s and not (stop is not None and stop.is_set()):
            try:
                r, _, _ = select.select([s], [], [], interval)
                if r:
                    data = s.recv(65536)
                    if data:
                        buf = read_response_head(s, data, 1.0)
                        result["status"] = parse_response_head(buf)[0]
                        result["outcome"] = "answered"
                    else:
                        result["outcome"] = "closed"
                    break
                s.send(trickle[i % len(trickle):i % len(trickle) + 1])
                i += 1
            except socket.timeout:
                continue
            except OSError:
                # A reset: an answer may still be queued.
                buf = read_response_head(s, b"", 0.5)
                status = parse_response_head(buf)[0]
                result["status"] = status
                result["outcome"] = "answered" if status is not None else "closed"
                break
        result["seconds"] = now() - t0
        result["bytes"] = i
    finally:
        s.close()
    return result


def slow_head(port):
    return (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            "Accept: application/json, text/event-stream\r\nX-Padding: " + "a" * 2000).encode()


def slow_body_head(port, length=4096, extra=()):
    return http_head("POST", port, extra, ["Content-Type: application/json",
                                           f"Content-Length: {length}"]) + b"\r\n"


def slow_body():
    return b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"' + b"a" * 4000 + b'"}}'


def open_idle(port, count, seconds=8.0):
    """Starts `count` TCP connections at once (non-blocking connects) that send nothing, and waits
    up to `seconds` for them to complete. Returns (connected sockets, refused or failed, still
    pending at the end: a listener that stops accepting leaves them in SYN retries)."""
    pending, failed = {}, 0
    for _ in range(count):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            s.bind((ATTACK_SOURCE, 0))
            s.setblocking(False)
            err = s.connect_ex(("127.0.0.1", port))
        except OSError:
            s.close()
            failed += 1
            continue
        if err not in (0, errno.EINPROGRESS, errno.EAGAIN):
            s.close()
            failed += 1
            continue
        pending[s.fileno()] = s
    poller = select.poll()
    for fd in pending:
        poller.register(fd, select.POLLOUT)
    opened = []
    end = now() + seconds
    while pending and now() < end:
        for fd, _ in poller.poll(max(1, int((end - now()) * 1000))):
            s = pending.pop(fd, None)
            if s is None:
                continue
            poller.unregister(fd)
            if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
                opened.append(s)
            else:
                s.close()
                failed += 1
    for s in pending.values():
        s.close()
    return opened, failed, len(pending)


def classify_idle(sockets):
    """For each socket: "open" (nothing to read), "closed", or ("answered", status, headers)."""
    poller = select.poll()
    by_fd = {s.fileno(): s for s in sockets}
    for fd in by_fd:
        poller.register(fd, select.POLLIN)
    readable = {fd for fd, _ in poller.poll(0)}
    out = []
    for s in sockets:
        if s.fileno() not in readable:
            out.append(("open", None, {}))
            continue
        try:
            data = s.recv(65536, socket.MSG_DONTWAIT)
        except BlockingIOError:
            out.append(("open", None, {}))
            continue
        except OSError:
            out.append(("closed", None, {}))
            continue
        if not data:
            out.append(("closed", None, {}))
            continue
        status, headers = parse_response_head(data)
        out.append(("answered", status, headers))
    return out


# ---------------------------------------------------------------------------------------------
# The harness

class Harness:
    def __init__(self, binary, scenario):
        self.binary = binary
        self.scenario = scenario
        self.passed = 0
        self.failed = 0
        self.tmp = tempfile.mkdtemp(prefix="scout-front-door-")
        self.gw = None
        self.sanitized = is_sanitized(binary)
        scale = os.environ.get("SCOUT_FRONT_DOOR_TIME_SCALE")
        self.scale = float(scale) if scale else (3.0 if self.sanitized else 1.0)
        self.enforce_memory = not self.sanitized
        self.idle_rss = None
        self.idle_hwm = None
        self.auth = False
        self.tls = None  # the legitimate clients' ssl.SSLContext once the listener speaks TLS
        self.started = now()

    # -- reporting
    def check(self, ok, message):
        if ok:
            self.passed += 1
            print(f"ok - {message}", flush=True)
        else:
            self.failed += 1
            print(f"FAIL - {message}", flush=True)
        return ok

    def check_memory(self, ok, message):
        if self.enforce_memory:
            return self.check(ok, message)
        print(f"(not enforced under a sanitizer) {'ok' if ok else 'over'} - {message}", flush=True)
        return True

    def note(self, message):
        print(f"  {message}", flush=True)

    # -- setup
    def write_config(self, servers):
        """servers: {name: tool-name prefix}."""
        config = {"mcpServers": {name: {"command": sys.executable, "args": [BACKEND, prefix]}
                                 for name, prefix in servers.items()}}
        path = os.path.join(self.tmp, "servers.json")
        with open(path, "w") as f:
            json.dump(config, f)
        return path

    def write_auth(self):
        auth = {"callers": [
            {"name": "admin", "token": TOKENS["admin"]},
            {"name": "scoped", "token": TOKENS["scoped"], "servers": ["one-server"]},
            {"name": "nobody", "token": TOKENS["nobody"], "servers": []},
        ]}
        path = os.path.join(self.tmp, "auth.json")
        with open(path, "w") as f:
            json.dump(auth, f)
        return path

    def start_gateway(self, flags=(), auth=False, servers=None, call_timeout_ms=30000):
        servers = servers or {"one-server": ""}
        self.auth = auth
        base = ["--config", self.write_config(servers), "--embedder", "none",
                "--startup-timeout-ms", "15000", "--call-timeout-ms", str(call_timeout_ms)]
        if auth:
            base += ["--auth-file", self.write_auth()]
        kept, dropped = filter_old_flags(self.binary, list(flags))
        if dropped:
            self.note("SCOUT_FRONT_DOOR_OLD=1: flags this gateway does not know were dropped: "
                      + " ".join(dropped))
        self.gw = Gateway(self.binary, base + kept)
        t0 = now()
        port = self.gw.start()
        self.note(f"gateway pid {self.gw.pid} listening on 127.0.0.1:{port} "
                  f"({(now() - t0) * 1000:.0f} ms); flags: {' '.join(kept) or '(defaults)'}; "
                  f"attackers from {ATTACK_SOURCE}")
        return port

    def tls_identity(self):
        """(certificate, key): a self-signed P-256 certificate for 127.0.0.1 made with the openssl
        command; the legitimate clients trust it from then on. None without openssl."""
        cert = os.path.join(self.tmp, "cert.pem")
        key = os.path.join(self.tmp, "key.pem")
        try:
            subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                            "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj",
                            "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                            "-keyout", key, "-out", cert], check=True, timeout=30,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError):
            return None
        self.tls = ssl.create_default_context(cafile=cert)
        return cert, key

    def admin_token(self):
        return TOKENS["admin"] if self.auth else None

    def warm_up(self, want_servers=("one-server",)):
        """A legitimate initialize and tool_search until the backends' tools are indexed (at most
        20 s); then the gateway's idle RSS."""
        deadline = now() + 20
        last = None
        while now() < deadline:
            c = McpClient(self.gw.port, self.admin_token(), timeout=20, tls=self.tls)
            try:
                c.initialize()
                matches = c.tool_search(SEARCH_QUERY, top_k=10)
                seen = {m.get("server") for m in matches}
                if all(s in seen for s in want_servers):
                    break
                last = f"tool_search saw servers {sorted(seen)}"
            except LegitError as e:
                last = str(e)
            finally:
                c.close()
            time.sleep(0.2)
        else:
            raise GatewayDied(f"the backends' tools were not searchable within 20 s ({last})")
        time.sleep(0.5)
        self.idle_rss, self.idle_hwm = self.gw.status_mib()
        self.note(f"idle: VmRSS {self.idle_rss:.1f} MiB, VmHWM {self.idle_hwm:.1f} MiB")
        return self.idle_rss

    def peak_since_idle(self, sampled_peak):
        """The highest RSS seen since idle: sampled, or VmHWM if it grew past its idle value."""
        rss, hwm = self.gw.status_mib()
        peak = max(sampled_peak, rss or 0.0)
        if hwm is not None and self.idle_hwm is not None and hwm > self.idle_hwm + 0.5:
            peak = max(peak, hwm)
        return peak

    def legit_ping(self, budget_s, label):
        """A new connection's initialize then ping, within budget_s in all."""
        c = McpClient(self.gw.port, self.admin_token(), timeout=max(5.0, budget_s * 2),
                      tls=self.tls)
        t0 = now()
        try:
            c.initialize()
            c.ping()
            took = now() - t0
            return self.check(took < budget_s,
                              f"{label}: initialize + ping answered in {took * 1000:.0f} ms "
                              f"(< {budget_s * 1000:.0f} ms)")
        except LegitError as e:
            return self.check(False, f"{label}: initialize + ping failed after "
                                     f"{(now() - t0) * 1000:.0f} ms: {e}")
        finally:
            c.close()

    # -- end
    def finish(self):
        if self.gw is not None and self.gw.port is None:
            self.gw.stop()
            if self.failed:
                print("--- gateway stderr (last lines) ---\n" + self.gw.log_tail(60), flush=True)
        elif self.gw is not None:
            alive = self.gw.alive()
            self.check(alive, "the gateway is still running after the attack"
                       + ("" if alive else f" (exit code {self.gw.proc.returncode})"))
            if alive:
                self.legit_ping(2.0 * self.scale, "after the attack, a legitimate client")
            code = self.gw.stop()
            log = self.gw.log()
            self.check(not re.search(r"(Address|Thread|UndefinedBehavior|Leak)Sanitizer|"
                                     r"runtime error:", log),
                       "no sanitizer report in the gateway's log")
            if alive:
                self.check(code == 0, f"the gateway exits cleanly on SIGTERM ({code})")
            if self.failed:
                print("--- gateway stderr (last lines) ---\n" + self.gw.log_tail(60), flush=True)
        shutil.rmtree(self.tmp, ignore_errors=True)
        print(f"scenario {self.scenario} took {now() - self.started:.1f} s", flush=True)
        print(f"{self.passed} passed, {self.failed} failed", flush=True)
        return 0 if self.failed == 0 else 1


def run_parallel(fn, argument_lists, timeout):
    """Runs fn(*args) for each args on its own thread; the results in order (None for a thread
    still running after `timeout` s, or an exception object)."""
    results = [None] * len(argument_lists)

    def one(i, args):
        try:
            results[i] = fn(*args)
        except Exception as e:  # reported by the caller
            results[i] = e

    threads = [threading.Thread(target=one, args=(i, a), daemon=True)
               for i, a in enumerate(argument_lists)]
    for t in threads:
        t.start()
    end = now() + timeout
    for t in threads:
        t.join(timeout=max(0.0, end - now()))
    return results


def describe(r):
    if isinstance(r, Exception):
        return f"error {type(r).__name__}: {r}"
    if r is None:
        return "still running"
    return (f"{r['outcome']} status={r['status']} after {r['sent'] / MiB:.2f} MiB "
            f"in {(r['seconds'] or 0) * 1000:.0f} ms")


# ---------------------------------------------------------------------------------------------
# Scenarios

def scenario_chunked_body(h):
    limit = 1 * MiB
    port = h.start_gateway(["--max-body-bytes", str(limit)])
    idle = h.warm_up()
    bound = 2 * limit
    r = attack_chunked_body(port)
    h.note(f"one chunked 200 MiB POST: {describe(r)}")
    h.check(r["status"] == 413, f"a chunked body over --max-body-bytes is answered 413 "
                                f"(got {r['status']}, {r['outcome']})")
    h.check(r["outcome"] != "deadline" and r["sent"] <= bound,
            f"the answer or close came before 2x the limit was sent "
            f"({r['sent'] / MiB:.2f} MiB <= {bound / MiB:.0f} MiB)")
    abort = threading.Event()
    with RssSampler(h.gw, abort_mib=idle + 512, on_over=lambda _: abort.set()) as sampler:
        results = run_parallel(attack_chunked_body,
                               [(port, 200 * MiB, 10.0, abort) for _ in range(6)], 15)
    peak = h.peak_since_idle(sampler.peak)
    for i, r in enumerate(results):
        h.note(f"parallel chunked POST {i + 1}: {describe(r)}")
    ok = [isinstance(r, dict) and r["status"] == 413 and r["sent"] <= bound for r in results]
    h.check(all(ok), f"6 parallel chunked POSTs each answered 413 within 2x the limit "
                     f"({sum(ok)} of 6)")
    if abort.is_set():
        h.note("the attack was stopped early: the gateway's RSS passed idle + 512 MiB")
    h.check_memory(peak < idle + 64, f"peak VmRSS {peak:.1f} MiB < idle {idle:.1f} + 64 MiB "
                                     f"({sampler.samples} samples)")


def scenario_huge_headers(h):
    port = h.start_gateway(["--max-header-bytes", "16384"])
    idle = h.warm_up()
    bound = 1 * MiB
    for style in ("lines", "long"):
        r = attack_huge_headers(port, style)
        h.note(f"one 48 MB header flood ({style}): {describe(r)}; {r['total'] / MiB:.2f} MiB "
               f"sent in all")
        answered_ok = r["status"] == 431 or (r["status"] is None and
                                             r["outcome"] in ("closed", "reset"))
        h.check(answered_ok, f"a header flood ({style}) is answered 431 or closed "
                             f"(got {r['status']}, {r['outcome']})")
        h.check(answered_ok and r["total"] <= bound,
                f"... before 1 MiB was sent ({r['total'] / MiB:.2f} MiB)")
    abort = threading.Event()
    with RssSampler(h.gw, abort_mib=idle + 512, on_over=lambda _: abort.set()) as sampler:
        results = run_parallel(attack_huge_headers,
                               [(port, "lines" if i % 2 == 0 else "long", 48_000_000, 8.0, abort)
                                for i in range(8)], 15)
    peak = h.peak_since_idle(sampler.peak)
    good = 0
    for i, r in enumerate(results):
        h.note(f"parallel header flood {i + 1}: {describe(r)}")
        if isinstance(r, dict) and (r["status"] == 431 or (
                r["status"] is None and r["outcome"] in ("closed", "reset"))) \
                and r["total"] <= bound:
            good += 1
    h.check(good == 8, f"8 parallel header floods each answered 431 or closed within 1 MiB "
                       f"({good} of 8)")
    if abort.is_set():
        h.note("the attack was stopped early: the gateway's RSS passed idle + 512 MiB")
    after = h.gw.rss_mib() or 0.0
    end = now() + 3.0
    while after >= idle + 32 and now() < end:
        time.sleep(0.1)
        after = h.gw.rss_mib() or 0.0
    h.note(f"peak VmRSS during the floods {peak:.1f} MiB")
    h.check_memory(after < idle + 32, f"VmRSS after the floods {after:.1f} MiB < idle "
                                      f"{idle:.1f} + 32 MiB")


def scenario_slowloris(h):
    head_timeout, body_timeout = 2.0, 3.0
    port = h.start_gateway(["--head-timeout-ms", "2000", "--body-timeout-ms", "3000"])
    h.warm_up()
    margin = 2.0 * h.scale
    stop = threading.Event()
    jobs = [(port, b"", slow_head(port), head_timeout + margin + 2.0, 0.2, stop)
            for _ in range(70)]
    jobs += [(port, slow_body_head(port), slow_body(), body_timeout + margin + 2.0, 0.2, stop)
             for _ in range(10)]
    holder = {}
    runner = threading.Thread(
        target=lambda: holder.setdefault("r", run_parallel(dribble, jobs, 20)), daemon=True)
    t0 = now()
    runner.start()
    legit = []
    for at in (1.0, 2.2, 3.4):
        time.sleep(max(0.0, t0 + at - now()))
        c = McpClient(port, None, timeout=2.0 * h.scale)
        try:
            init_s, _ = timed(c.initialize)
            search_s, _ = timed(c.tool_search)
            legit.append((init_s, search_s, None))
        except LegitError as e:
            legit.append((None, None, str(e)))
        finally:
            c.close()
    runner.join(timeout=25)
    stop.set()
    results = holder.get("r") or []
    for i, (init_s, search_s, err) in enumerate(legit):
        if err:
            h.check(False, f"legitimate client {i + 1} during the slowloris: {err}")
        else:
            h.check(init_s < 1.0 * h.scale and search_s < 1.0 * h.scale,
                    f"legitimate client {i + 1} during the slowloris: initialize "
                    f"{init_s * 1000:.0f} ms, tool_search {search_s * 1000:.0f} ms (each < 1 s)")

    def judge(rs, timeout, kind):
        good, times, outcomes = 0, [], {}
        for r in rs:
            if not isinstance(r, dict):
                outcomes["error"] = outcomes.get("error", 0) + 1
                continue
            key = r["outcome"] if r["status"] is None else f"answered {r['status']}"
            outcomes[key] = outcomes.get(key, 0) + 1
            if r["seconds"] is not None and r["outcome"] in ("closed", "answered"):
                times.append(r["seconds"])
            if (r["outcome"] == "closed" or (r["outcome"] == "answered" and r["status"] == 408)) \
                    and r["seconds"] <= timeout + margin:
                good += 1
        span = f"{min(times):.2f}..{max(times):.2f} s" if times else "none ended"
        h.note(f"{kind}: outcomes {outcomes}; ended after {span}")
        h.check(good == len(rs) and rs, f"{kind}: each answered 408 or closed within "
                                        f"{timeout + margin:.1f} s ({good} of {len(rs)})")

    judge(results[:70], head_timeout, "70 heads at 1 byte / 200 ms")
    judge(results[70:], body_timeout, "10 bodies at 1 byte / 200 ms")


class SocketSampler:
    """Samples how many sockets the gateway holds (from /proc/PID/fd) every 20 ms."""

    def __init__(self, gw):
        self.gw = gw
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self):
        while not self._stop.is_set():
            n = self.gw.socket_count()
            if n is None:
                return
            self.peak = max(self.peak, n)
            self._stop.wait(0.02)


def scenario_idle_flood(h):
    cap = 256
    port = h.start_gateway(["--max-connections", str(cap)])
    h.warm_up()
    base = h.gw.socket_count()
    socks = []
    try:
        with SocketSampler(h.gw) as sampler:
            t0 = now()
            socks, failed, pending = open_idle(port, 500, seconds=8.0)
            h.note(f"500 connects at once: {len(socks)} connected, {failed} refused, {pending} "
                   f"still pending after {(now() - t0) * 1000:.0f} ms")
            h.check(pending == 0, f"the listener keeps accepting: every connect completed "
                                  f"within 8 s ({pending} still pending)")
            time.sleep(1.5)
            first = classify_idle(socks)
            openn = sum(1 for st in first if st[0] == "open")
            closed = sum(1 for st in first if st[0] == "closed")
            refused = sum(1 for st in first if st[0] == "answered" and st[1] == 503
                          and "retry-after" in st[2])
            other = [st[1] for st in first if st[0] == "answered" and not (
                st[1] == 503 and "retry-after" in st[2])]
            held = h.gw.socket_count()
            h.note(f"1.5 s later, as the clients see them: {openn} open, {refused} answered 503 "
                   f"with Retry-After, {closed} closed, {len(other)} other answers "
                   f"{sorted(set(map(str, other)))}; the gateway holds {held - base} sockets "
                   f"more than at idle")
            h.legit_ping(1.0 * h.scale, "a legitimate client while 500 idle connections are open")
            second = classify_idle([sk for sk, st in zip(socks, first) if st[0] == "open"])
            still = sum(1 for st in second if st[0] == "open")
            h.note(f"after the legitimate ping: {still} of them still open")
        peak = sampler.peak - base
        h.note(f"most sockets the gateway held over its idle count: {peak}")
        # Sockets accepted only to be answered 503 and closed are counted for a moment: 8 spare.
        h.check(peak <= cap + 8, f"the gateway never holds more than {cap} of them "
                                 f"(peak {peak}, sampled every 20 ms)")
        h.check(openn <= cap and still <= cap,
                f"the connections over the cap are answered or closed at once: at most {cap} "
                f"stay open ({openn} 1.5 s after the flood, {still} after the legitimate ping)")
        h.check(not other, f"those answered get 503 with Retry-After ({len(other)} other answers)")
    finally:
        for sk in socks:
            sk.close()


# The first bytes of a TLS ClientHello (a handshake record header, then the start of the message):
# a client that sends them and stops leaves the server waiting inside the handshake.
TLS_CONNECTION_KIB = 160
PARTIAL_CLIENT_HELLO = bytes([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03])


def scenario_tls_flood(h):
    identity = h.tls_identity()
    if identity is None:
        h.check(os.environ.get("SCOUT_REQUIRE_FIXTURES") != "1",
                "the openssl command makes a test certificate")
        h.note("SKIP: no openssl command to make a certificate")
        return
    cert, key = identity
    head_ms = 3000
    per_address = 256
    port = h.start_gateway(["--tls-cert", cert, "--tls-key", key, "--head-timeout-ms", str(head_ms),
                            "--max-connections-per-address", str(per_address)])
    h.warm_up()
    base = h.gw.socket_count()
    socks = []
    try:
        with SocketSampler(h.gw) as sampler, RssSampler(h.gw) as rss:
            t0 = now()
            socks, failed, pending = open_idle(port, 1000, seconds=8.0)
            stalled_mid_hello = 0
            for s in socks[::2]:
                try:
                    s.send(PARTIAL_CLIENT_HELLO)
                    stalled_mid_hello += 1
                except OSError:
                    pass
            h.note(f"1,000 TLS connects at once: {len(socks)} connected, {failed} refused, "
                   f"{pending} still pending after {(now() - t0) * 1000:.0f} ms; "
                   f"{stalled_mid_hello} of them stopped inside a ClientHello, the rest sent nothing")
            h.check(pending == 0, f"the listener keeps accepting: every connect completed within "
                                  f"8 s ({pending} still pending)")
            h.legit_ping(1.5 * h.scale, "a legitimate TLS client while 1,000 handshakes stall")
            # Every stalled handshake is closed at the head deadline (those over the address cap
            # at once); a little slack for a loaded machine.
            time.sleep(head_ms / 1000.0 + 1.5 * h.scale)
            states = classify_idle(socks)
            still = sum(1 for st in states if st[0] == "open")
            h.note(f"{head_ms + 1500 * h.scale:.0f} ms after the flood: {still} still open, "
                   f"{sum(1 for st in states if st[0] != 'open')} closed or refused")
            h.check(still == 0, f"no stalled handshake outlives the {head_ms} ms head deadline "
                                f"({still} still open)")
            h.legit_ping(1.0 * h.scale, "a legitimate TLS client after the deadline")
        peak = sampler.peak - base
        h.note(f"most sockets the gateway held over its idle count: {peak}; peak VmRSS "
               f"{rss.peak:.1f} MiB (idle {h.idle_rss:.1f} MiB)")
        h.check(peak <= per_address + 8, f"the gateway never holds more than the {per_address} "
                                         f"connections one address may open (peak {peak})")
        # A TLS connection costs about 120 KiB before its first request (Asio's two 17 KiB
        # record buffers and its BIO pair, OpenSSL's SSL object): the caps bound the sum.
        peak_rss = h.peak_since_idle(rss.peak)
        budget = h.idle_rss + per_address * TLS_CONNECTION_KIB / 1024.0
        h.note(f"{(peak_rss - h.idle_rss) * 1024 / max(peak, 1):.0f} KiB per connection held")
        h.check_memory(peak_rss <= budget, f"memory stays bounded by the cap: peak {peak_rss:.1f} "
                                           f"MiB <= idle + {per_address} x {TLS_CONNECTION_KIB} "
                                           f"KiB ({budget:.1f} MiB)")
    finally:
        for s in socks:
            s.close()


def scenario_content_length_100mb(h):
    limit = 4 * MiB
    port = h.start_gateway(["--max-body-bytes", str(limit)])
    h.warm_up()
    abort = threading.Event()
    with RssSampler(h.gw, abort_mib=h.idle_rss + 512, on_over=lambda _: abort.set()) as sampler:
        r = attack_content_length(port, abort=abort)
    h.note(f"Content-Length: 104857600: {describe(r)}; peak VmRSS "
           f"{h.peak_since_idle(sampler.peak):.1f} MiB")
    h.check(r["status"] == 413, f"a declared 100 MB body is answered 413 (got {r['status']}, "
                                f"{r['outcome']})")
    h.check(r["status"] == 413 and r["seconds"] is not None and r["seconds"] < 1.0 * h.scale,
            f"... in < 1 s ({(r['seconds'] or 0) * 1000:.0f} ms)")
    h.check(r["sent"] < 8 * MiB, f"... before 8 MiB of the body were sent "
                                 f"({r['sent'] / MiB:.2f} MiB)")


def scenario_session_flood(h):
    per_caller = 64
    port = h.start_gateway(["--max-sessions-per-caller", str(per_caller)], auth=True)
    h.warm_up()
    admin = McpClient(port, TOKENS["admin"])
    try:
        admin.initialize()
        h.check(len(admin.tools_list()) > 0, "the admin's session answers tools/list before")
    except LegitError as e:
        h.check(False, f"the admin's session before the flood: {e}")
        return
    finally:
        admin.close()
    total, threads = 1030, 4
    created, statuses, dropped = [], {}, [0]
    lock = threading.Lock()

    def flood(n):
        c = McpClient(port, TOKENS["nobody"], timeout=5.0, source=ATTACK_SOURCE)
        mine, counts, lost = [], {}, 0
        message = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": PROTOCOL, "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}
        for _ in range(n):
            c.session = None
            try:
                status, headers, _ = c.post_raw(message)
            except LegitError:
                lost += 1
                continue
            counts[status] = counts.get(status, 0) + 1
            if status == 200 and headers.get("mcp-session-id"):
                mine.append(headers["mcp-session-id"])
            elif status in (429, 503) and "retry-after" not in headers:
                counts[f"{status} without Retry-After"] = \
                    counts.get(f"{status} without Retry-After", 0) + 1
        c.close()
        with lock:
            created.extend(mine)
            for k, v in counts.items():
                statuses[k] = statuses.get(k, 0) + v
            dropped[0] += lost

    t0 = now()
    run_parallel(flood, [(total // threads + (1 if i < total % threads else 0),)
                         for i in range(threads)], 60)
    h.note(f"{total} initializes with the nobody token in {now() - t0:.1f} s: statuses "
           f"{statuses}, {dropped[0]} connections dropped, {len(created)} sessions opened")
    admin.new_connection()
    try:
        tools = admin.tools_list()
        h.check(True, f"the admin's session, opened first, still answers tools/list with 200 "
                      f"({len(tools)} tools)")
    except LegitError as e:
        h.check(False, f"the admin's session, opened first, still answers tools/list: {e}")
    finally:
        admin.close()
    odd = {k: v for k, v in statuses.items() if k not in (200, 429, 503)}
    h.check(not odd, f"every initialize is answered 200, or refused 429/503 with Retry-After "
                     f"(other: {odd})")
    alive = [0]

    def probe(ids):
        c = McpClient(port, TOKENS["nobody"], timeout=5.0, source=ATTACK_SOURCE)
        n = 0
        for sid in ids:
            c.session = sid
            try:
                status, _, _ = c.post_raw({"jsonrpc": "2.0", "id": 2, "method": "ping"})
            except LegitError:
                continue
            if status == 200:
                n += 1
        c.close()
        with lock:
            alive[0] += n

    t0 = now()
    run_parallel(probe, [(created[i::threads],) for i in range(threads)], 60)
    h.note(f"probed the {len(created)} nobody sessions in {now() - t0:.1f} s: {alive[0]} alive")
    h.check(alive[0] <= per_caller, f"the nobody caller holds at most {per_caller} sessions "
                                    f"({alive[0]})")


def scenario_hanging_calls(h):
    cap, calls, sessions = 8, 70, 7
    port = h.start_gateway(["--max-calls-per-caller", str(cap)], auth=True)
    h.warm_up()
    admin = McpClient(port, TOKENS["admin"], timeout=2.0 * h.scale)
    scoped_sessions = []
    try:
        admin.initialize()
        for _ in range(sessions):
            c = McpClient(port, TOKENS["scoped"], source=ATTACK_SOURCE)
            c.initialize()
            scoped_sessions.append(c.session)
            c.close()
    except LegitError as e:
        h.check(False, f"opening the sessions: {e}")
        return
    finally:
        admin.close()
    barrier = threading.Barrier(calls + 1, timeout=20)
    wait_s = 4.0 * h.scale
    results = [None] * calls

    def hang_call(i):
        c = McpClient(port, TOKENS["scoped"], timeout=wait_s, source=ATTACK_SOURCE,
                      session=scoped_sessions[i % sessions])
        c.next_id = 1000 + i
        message = {"jsonrpc": "2.0", "id": 1000 + i, "method": "tools/call", "params": {
            "name": "execute_tool",
            "arguments": {"tool_name": "hang", "server_name": "one-server", "arguments": {}}}}
        try:
            c._connection().connect()
        except OSError as e:
            barrier.wait()
            results[i] = {"kind": "connect failed", "error": str(e)}
            return
        barrier.wait()
        t0 = now()
        try:
            status, headers, body = c.post_raw(message)
        except LegitError as e:
            results[i] = {"kind": "no answer", "seconds": now() - t0, "error": str(e)}
            return
        finally:
            c.close()
        r = {"seconds": now() - t0, "status": status}
        if status in (429, 503):
            r["kind"] = f"HTTP {status}" + ("" if "retry-after" in headers
                                             else " without Retry-After")
        elif status == 200:
            try:
                m = parse_jsonrpc_body(headers.get("content-type"), body, 1000 + i)
                if "error" in m:
                    r["kind"] = "JSON-RPC error"
                elif (m.get("result") or {}).get("isError"):
                    r["kind"] = "isError result"
                else:
                    r["kind"] = "success"
            except LegitError as e:
                r["kind"] = f"bad body ({e})"
        else:
            r["kind"] = f"HTTP {status}"
        results[i] = r

    threads = [threading.Thread(target=hang_call, args=(i,), daemon=True) for i in range(calls)]
    for t in threads:
        t.start()
    try:
        barrier.wait()
    except threading.BrokenBarrierError:
        h.check(False, "the 70 scoped callers could not all connect within 20 s")
        return
    released = now()
    time.sleep(1.0)
    for i in range(5):
        admin.new_connection()  # each search on a fresh connection
        try:
            took, matches = timed(admin.tool_search)
            h.check(took < 1.0 * h.scale, f"the admin's tool_search {i + 1} during the hanging "
                                          f"calls: {took * 1000:.0f} ms (< 1 s), "
                                          f"{len(matches)} matches")
        except LegitError as e:
            h.check(False, f"the admin's tool_search {i + 1} during the hanging calls: {e}")
    admin.close()
    for t in threads:
        t.join(timeout=max(0.0, released + wait_s + 2.0 - now()))
    fast = 2.0 * h.scale
    kinds = {}
    refused_fast = 0
    for r in results:
        r = r or {"kind": "no answer"}
        kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
        if r["kind"] in ("HTTP 429", "HTTP 503", "JSON-RPC error", "isError result") \
                and r["seconds"] <= fast:
            refused_fast += 1
    h.note(f"70 hang calls by the scoped caller: {kinds}")
    h.check(refused_fast >= calls - cap,
            f"the calls beyond the cap of {cap} get an error within {fast:.0f} s "
            f"({refused_fast} of the {calls - cap} at least)")
    h.check(kinds.get("success", 0) == 0, "no hang call answers a success")
    waiting = kinds.get("no answer", 0)
    h.check(0 < waiting <= cap, f"the calls within the cap are taken and wait on the backend "
                                f"({waiting} unanswered after {wait_s:.0f} s; 1 to {cap})")


def scenario_metrics_scope(h):
    port = h.start_gateway(auth=True, servers={"one-server": "", "other-server": "zebra_"},
                           call_timeout_ms=1000)
    h.warm_up(("one-server", "other-server"))
    admin = McpClient(port, TOKENS["admin"])
    try:
        admin.initialize()
        for tool, server in (("lookup_record", "one-server"),
                             ("zebra_lookup_record", "other-server"),
                             ("zebra_hang", "other-server")):
            r = admin.execute(tool, server)
            h.note(f"admin ran {server}/{tool}: isError={bool(r.get('isError'))}")
    except LegitError as e:
        h.check(False, f"the admin's calls: {e}")
        return
    finally:
        admin.close()
    secrets = ("other-server", "zebra_lookup_record", "zebra_hang")

    def metrics(token):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        try:
            conn.request("GET", "/metrics", headers={"Authorization": f"Bearer {token}"})
            resp = conn.getresponse()
            return resp.status, resp.read().decode("utf-8", "replace")
        finally:
            conn.close()

    status, text = metrics(TOKENS["admin"])
    found = [s for s in secrets if s in text]
    h.check(status == 200 and len(found) == len(secrets),
            f"the admin's /metrics (HTTP {status}, {len(text)} bytes) names the other server "
            f"and its tools (found {found})")
    status, text = metrics(TOKENS["scoped"])
    leaked = [s for s in secrets if s in text]
    h.note(f"the scoped caller's /metrics: HTTP {status}, {len(text)} bytes")
    h.check(status == 200 and "scout_" in text and "one-server" in text,
            "the scoped caller's /metrics answers 200 with its own server's series")
    h.check(not leaked, f"the scoped caller's /metrics does not name the other server or its "
                        f"tools (leaked: {leaked})")


def scenario_dns_rebinding(h):
    port = h.start_gateway()
    h.warm_up()
    init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": PROTOCOL, "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}}).encode()

    def send(method, path, host):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5,
                                          source_address=(LEGIT_SOURCE, 0))
        headers = {"Host": host, "Accept": "application/json, text/event-stream"}
        body = None
        if method == "POST":
            headers["Content-Type"] = "application/json"
            body = init
        try:
            conn.request(method, path, body=body, headers=headers)
            resp = conn.getresponse()
            data = resp.read()
            return resp.status, {k.lower(): v for k, v in resp.getheaders()}, data
        except (OSError, http.client.HTTPException) as e:
            return f"{type(e).__name__}", {}, b""
        finally:
            conn.close()

    for host in ("rebind.evil.example", f"rebind.evil.example:{port}"):
        for method, path in (("GET", "/metrics"), ("POST", "/mcp")):
            status, _, _ = send(method, path, host)
            h.check(status in (403, 421), f"{method} {path} with Host: {host} is refused 403 or "
                                          f"421 (got {status})")
    for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
        status, _, body = send("GET", "/metrics", host)
        h.check(status == 200 and b"scout_" in body,
                f"GET /metrics with Host: {host} answers 200 with metrics (got {status})")
        status, headers, body = send("POST", "/mcp", host)
        ok = status == 200 and bool(headers.get("mcp-session-id"))
        if ok:
            try:
                m = parse_jsonrpc_body(headers.get("content-type"), body, 1)
                ok = "result" in m
            except LegitError:
                ok = False
        h.check(ok, f"POST /mcp initialize with Host: {host} answers 200 with a session "
                    f"(got {status})")


def scenario_bad_arguments(h):
    """execute_tool with arguments that break the tool's inputSchema: a JSON-RPC -32602 naming
    the field, at once, and the backend never sees the call."""
    port = h.start_gateway(auth=True)
    h.warm_up()
    c = McpClient(port, TOKENS["admin"])
    try:
        c.initialize()
        first = c.execute("update_record", "one-server", {"account": "a-1", "amount": 5})
        h.check(first.get("content", [{}])[0].get("text") == "update_record calls: 1",
                f"a valid call reaches the backend ({json.dumps(first)[:120]})")
        bad = [({"account": 5, "amount": 1}, "arguments.account"),
               ({"account": "a-1"}, "\"amount\""),
               ({"account": "a-1", "amount": -3}, "arguments.amount"),
               ({"account": "a-1", "amount": 1.5}, "arguments.amount"),
               ({"account": "", "amount": 1}, "arguments.account"),
               ({"account": "a-1", "amount": 1, "note": "x"}, "\"note\""),
               ({"account": [[[[[[[[[["deep"]]]]]]]]]], "amount": 1}, "arguments.account")]
        for arguments, field in bad:
            t0 = now()
            status, headers, body = c.post_raw({
                "jsonrpc": "2.0", "id": 900, "method": "tools/call",
                "params": {"name": "execute_tool", "arguments": {
                    "tool_name": "update_record", "server_name": "one-server",
                    "arguments": arguments}}})
            elapsed = now() - t0
            m = parse_jsonrpc_body(headers.get("content-type"), body, 900)
            error = m.get("error") or {}
            h.check(status == 200 and error.get("code") == -32602 and
                    field in error.get("message", "") and elapsed < 1.0 * h.scale,
                    f"{json.dumps(arguments)[:60]}: -32602 naming {field} in "
                    f"{elapsed * 1000:.0f} ms ({error.get('message', body[:120])!r})")
        last = c.execute("update_record", "one-server", {"account": "a-1", "amount": 0})
        h.check(last.get("content", [{}])[0].get("text") == "update_record calls: 2",
                "none of the refused calls reached the backend")
    except LegitError as e:
        h.check(False, f"the admin's calls: {e}")
    finally:
        c.close()


def main(argv):
    if len(argv) != 3 or argv[2] not in SCENARIOS:
        print(f"usage: {os.path.basename(argv[0])} GATEWAY SCENARIO\n"
              f"scenarios: {' '.join(SCENARIOS)}", file=sys.stderr)
        return 2
    binary, scenario = argv[1], argv[2]
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        print(f"FAIL: {binary} is not an executable file")
        return 1
    if not os.path.exists("/proc/self/status"):
        print("SKIP: /proc is not mounted (the gateway's RSS and sockets are read from it)")
        return SKIP
    limit = raise_fd_limit()
    if scenario in ("idle_flood", "tls_flood") and limit != resource.RLIM_INFINITY and limit < 1200:
        print(f"SKIP: the open-file limit is {limit}; {scenario} needs 1200")
        return SKIP
    h = Harness(binary, scenario)
    print(f"scenario {scenario}" + (" (sanitizer build: latency bounds x"
                                    f"{h.scale:g}, memory bounds reported only)"
                                    if h.sanitized else ""), flush=True)
    watchdog = threading.Timer(50.0, lambda: (
        print(f"FAIL: scenario {scenario} exceeded 50 s", flush=True),
        h.gw and h.gw.proc and h.gw.proc.kill(), os._exit(1)))
    watchdog.daemon = True
    watchdog.start()
    try:
        globals()["scenario_" + scenario](h)
    except GatewayDied as e:
        h.check(False, str(e))
    except Exception as e:  # a bug here or an unexpected answer: a failure, with its trace
        import traceback
        traceback.print_exc()
        h.check(False, f"the scenario raised {type(e).__name__}: {e}")
    code = h.finish()
    watchdog.cancel()
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
