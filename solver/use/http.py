"""A lean HTTP/1.1 layer on the standard library, for `gsolve serve` (solver/use/serve.py).

Flask on werkzeug cost about 1 ms of a 1.5 ms query answer (its request and response
objects, and werkzeug 3 closing every connection after one answer), and at 8 clients on
2 cores every request waits for the CPU time of the others: the bar (p99 under 10 ms)
needs about 1 ms of CPU a request all told. So: routes in Flask's `<name>` and
`<path:name>` form matched in order; a thread per connection (kept for the next one), at
most `max_connections` at once (the kernel's backlog holds the rest); persistent
connections (HTTP/1.1 keep-alive) dropped after `idle` seconds of silence; a request line
or header over MAX_LINE, more than MAX_HEADERS headers or a body over the app's
`max_body` answered 414, 431 or 413 before the body is read; every error JSON.
`App.test_client()` answers in process, without a socket, with Flask's test client's
names (`get`, `post`, `status_code`, `get_json()`...).
"""

from __future__ import annotations

import email.utils
import json
import mimetypes
import os
import re
import select
import selectors
import socket
import threading
import time
from pathlib import Path
from urllib.parse import parse_qsl, quote, unquote, urlencode

MAX_LINE = 65536  # bytes of the request line, and of each header line
MAX_HEADERS = 100  # header lines a request
_SAFE = "/%:@!$&'()*+,;=-._~"  # what a URL keeps as it is (its escapes too)
REASONS = {200: "OK", 204: "No Content", 308: "Permanent Redirect", 400: "Bad Request",
           404: "Not Found", 405: "Method Not Allowed", 411: "Length Required",
           413: "Request Entity Too Large", 414: "Request-URI Too Long",
           431: "Request Header Fields Too Large", 500: "Internal Server Error",
           503: "Service Unavailable", 505: "HTTP Version Not Supported"}


class HTTPError(Exception):
    """A request the server cannot answer as asked: its status, and headers to send."""

    def __init__(self, code: int, headers: dict | None = None):
        super().__init__(f"{code} {REASONS.get(code, 'Error')}")
        self.code, self.headers = code, headers or {}


class Response:
    def __init__(self, body: bytes = b"", status: int = 200,
                 content_type: str | None = None, headers: dict | None = None):
        self.body, self.status = body, status
        self.content_type, self.headers = content_type, headers or {}


def json_response(obj, status: int = 200, headers: dict | None = None) -> Response:
    return Response(json.dumps(obj).encode(), status, "application/json", headers)


def error_response(e: HTTPError) -> Response:
    """An HTTP error as every other answer: JSON, {"error": "404 Not Found"}."""
    return json_response({"error": str(e)}, e.code, e.headers)


def file_response(directory: Path, name: str) -> Response:
    """A file of `directory` (never outside it: no `..`, no absolute path), or 404."""
    parts = name.split("/")
    if not name or any(p in ("", ".", "..") or "\\" in p or "\0" in p for p in parts):
        raise HTTPError(404)
    path = directory.joinpath(*parts)
    try:
        body = path.read_bytes()
    except OSError:  # missing, a directory, unreadable
        raise HTTPError(404) from None
    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return Response(body, 200, kind + "; charset=utf-8" * kind.startswith("text/"))


class Request:
    """What a view is given: the method, the decoded path, the query's arguments (the first
    value of each name), the headers (names in lower case) and the body."""

    def __init__(self, method: str, target: str, headers: dict | None = None,
                 body: bytes = b""):
        self.method, self.headers, self.body = method, headers or {}, body
        self.close = False  # the connection ends after the answer (HTTP/1.0, or asked)
        path, _, self.query = target.partition("?")
        self.raw_path, self.path = path, unquote(path, errors="replace")
        self.args: dict[str, str] = {}
        for k, v in parse_qsl(self.query, keep_blank_values=True, errors="replace"):
            self.args.setdefault(k, v)

    def json(self):
        """The body as JSON where it says it is JSON (application/json, or
        application/...+json), else None; None for a body that does not parse."""
        kind = self.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if kind != "application/json" and not (kind.startswith("application/")
                                               and kind.endswith("+json")):
            return None
        try:
            return json.loads(self.body)
        except (ValueError, RecursionError):  # not JSON, or nested past Python's stack
            return None


class Route:
    def __init__(self, pattern: str, methods: frozenset, view):
        out = []
        for part in re.split(r"(<[^>]+>)", pattern):
            if part.startswith("<"):
                kind, _, name = part[1:-1].rpartition(":")
                out.append(f"(?P<{name}>{'[^/].*' if kind == 'path' else '[^/]+'})")
            else:
                out.append(re.escape(part))
        self.regex = re.compile("".join(out) + r"\Z", re.DOTALL)
        self.greedy = "<path:" in pattern  # takes slashes: tried after the exact routes
        self.methods, self.view = methods | ({"HEAD"} if "GET" in methods else set()), view


class App:
    """Routes tried in the order added, a view called as view(request, **parts) and
    answering a Response. A path that matches no route but would with a slash at its end
    is redirected there (308); a route's path asked with another method is 405; errors
    raised by a view go to on_error (a Response, or None for the generic answer: an
    HTTPError's JSON, or 500 with the exception's type, never a traceback)."""

    def __init__(self, max_body: int, on_error=None):
        self.routes: list[Route] = []
        self.max_body, self.on_error = max_body, on_error
        self.config: dict = {}

    def route(self, pattern: str, methods=("GET",)):
        def add(view):
            self.routes.append(Route(pattern, frozenset(methods), view))
            return view
        return add

    def get(self, pattern: str):
        return self.route(pattern, ("GET",))

    def post(self, pattern: str):
        return self.route(pattern, ("POST",))

    def _slashed(self, path: str, routes: list[Route]) -> bool:
        return not path.endswith("/") and any(
            not r.greedy and r.regex.match(path + "/") for r in routes)

    def _match(self, req: Request):
        """(view, parts) of the first route that takes the request; a route of slashes
        (`<path:...>`) yields to an earlier one that the path with a slash added matches,
        as werkzeug's routing does (/ttt/3/start redirects to /ttt/3/start/)."""
        allowed: set = set()
        for i, r in enumerate(self.routes):
            m = r.regex.match(req.path)
            if m is None:
                continue
            if r.greedy and self._slashed(req.path, self.routes[:i]):
                break
            if req.method in r.methods:
                return r.view, m.groupdict()
            allowed |= r.methods
        if not allowed and self._slashed(req.path, self.routes):
            where = quote(req.raw_path, safe=_SAFE) + "/" + (
                "?" + quote(req.query, safe=_SAFE + "?")) * bool(req.query)
            raise HTTPError(308, {"Location": where})
        if req.method == "OPTIONS" and allowed:
            allow = ", ".join(sorted(allowed | {"OPTIONS"}))
            return (lambda _req: Response(status=200, headers={"Allow": allow})), {}
        if allowed:
            raise HTTPError(405, {"Allow": ", ".join(sorted(allowed))})
        raise HTTPError(404)

    def handle(self, req: Request) -> Response:
        """The answer to a request; never raises."""
        try:
            if len(req.body) > self.max_body:
                raise HTTPError(413)
            view, parts = self._match(req)
            return view(req, **parts)
        except Exception as e:  # noqa: BLE001 - every error answers JSON
            return self.error(e)

    def error(self, e: Exception) -> Response:
        got = self.on_error(e) if self.on_error is not None else None
        if got is not None:
            return got
        if isinstance(e, HTTPError):
            return error_response(e)
        return json_response({"error": f"internal error: {type(e).__name__}"}, 500)

    def test_client(self) -> Client:
        return Client(self)


class Reply:
    """An answer as Flask's test client gives it (the names tests use)."""

    def __init__(self, r: Response):
        self.status_code, self.data = r.status, r.body
        self.mimetype = (r.content_type or "").split(";", 1)[0]
        self.headers = {**({"Content-Type": r.content_type} if r.content_type else {}),
                        **r.headers}

    def get_data(self, as_text: bool = False):
        return self.data.decode() if as_text else self.data

    def get_json(self):
        return json.loads(self.data)


class Client:
    """Requests answered in process by App.handle, as the server would answer them."""

    def __init__(self, app: App):
        self.app = app

    def open(self, path: str, method: str = "GET", query_string: dict | None = None,
             json=None, data: bytes = b"", content_type: str | None = None) -> Reply:
        headers = {}
        if json is not None:
            data, content_type = _json_bytes(json), "application/json"
        if content_type:
            headers["content-type"] = content_type
        if query_string:
            path += ("&" if "?" in path else "?") + urlencode(query_string)
        return Reply(self.app.handle(Request(method, path, headers, data)))

    def get(self, path: str, **kw) -> Reply:
        return self.open(path, "GET", **kw)

    def post(self, path: str, **kw) -> Reply:
        return self.open(path, "POST", **kw)


def _json_bytes(obj) -> bytes:
    return json.dumps(obj).encode()


_date = [0, ""]  # the second and its Date header, made once a second


def _now() -> str:
    t = int(time.time())
    if t != _date[0]:
        _date[:] = [t, email.utils.formatdate(t, usegmt=True)]
    return _date[1]


def read_request(rfile, max_body: int, conn=None) -> Request | None:
    """The next request of a connection, its body read; None at the end of the stream.
    HTTPError for a request that breaks the limits or HTTP/1.1's form (the connection is
    then closed, its state unknown). `conn` is told 100 Continue where the client waits."""
    line = rfile.readline(MAX_LINE + 1)
    while line in (b"\r\n", b"\n"):  # blank lines before a request are allowed
        line = rfile.readline(MAX_LINE + 1)
    if not line:
        return None
    if len(line) > MAX_LINE:
        raise HTTPError(414)
    parts = line.split()
    if len(parts) != 3 or not parts[1].startswith(b"/"):
        raise HTTPError(400)
    method, target, version = parts
    if version not in (b"HTTP/1.1", b"HTTP/1.0"):
        raise HTTPError(505 if version.startswith(b"HTTP/") else 400)
    headers: dict[str, str] = {}
    for _ in range(MAX_HEADERS + 1):
        h = rfile.readline(MAX_LINE + 1)
        if h in (b"\r\n", b"\n"):
            break
        if len(h) > MAX_LINE or not h.endswith(b"\n"):
            raise HTTPError(431 if len(h) > MAX_LINE else 400)
        name, colon, value = h.decode("latin-1").partition(":")
        if not colon or not name or name != name.strip():
            raise HTTPError(400)
        name = name.lower()
        value = value.strip()
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    else:
        raise HTTPError(431)
    if "transfer-encoding" in headers:  # chunked bodies: not taken (browsers send lengths)
        raise HTTPError(411)
    try:
        length = int(headers.get("content-length", "0"))
    except ValueError:
        raise HTTPError(400) from None
    if length < 0:
        raise HTTPError(400)
    if length > max_body:
        raise HTTPError(413)
    if length and conn is not None and headers.get("expect", "").lower() == "100-continue":
        conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
    body = rfile.read(length) if length else b""
    if len(body) != length:
        raise HTTPError(400)
    req = Request(method.decode("latin-1"), target.decode("utf-8", "replace"), headers, body)
    req.close = version == b"HTTP/1.0" or "close" in headers.get("connection", "").lower()
    return req


def response_bytes(r: Response, head_only: bool, close: bool) -> bytes:
    lines = [f"HTTP/1.1 {r.status} {REASONS.get(r.status, 'Unknown')}", f"Date: {_now()}"]
    if r.content_type:
        lines.append(f"Content-Type: {r.content_type}")
    if r.status != 204:
        lines.append(f"Content-Length: {len(r.body)}")
    lines.extend(f"{k}: {v}" for k, v in r.headers.items())
    if close:
        lines.append("Connection: close")
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    return head if head_only or r.status == 204 else head + r.body


def _poller(listening: int, wake: int):
    """(wait, close): wait() blocks until a connection or a wake-up, answering the ready
    descriptors. On Linux, epoll with EPOLLEXCLUSIVE on the listening socket: of the
    processes sharing it, one is woken a connection, not all (the others would wake for
    nothing, to find it taken)."""
    if hasattr(select, "EPOLLEXCLUSIVE"):
        ep = select.epoll()
        ep.register(listening, select.EPOLLIN | select.EPOLLEXCLUSIVE)
        ep.register(wake, select.EPOLLIN)
        return (lambda: [fd for fd, _ in ep.poll()]), ep.close
    sel = selectors.DefaultSelector()
    for fd in (listening, wake):
        sel.register(fd, selectors.EVENT_READ)
    return (lambda: [key.fd for key, _ in sel.select()]), sel.close


class Server:
    """App served on a listening socket (left open by server_close unless `own`) until
    shutdown(), by at most `max_connections` threads, each serving one connection at a
    time: of the threads not serving, one waits for a new connection (the leader; the
    others wait for its turn), and the one that accepts serves that connection itself
    (no hand-off to another thread: under load every wake-up waits for a core) while the
    next takes the lead; a new thread is started only when none is left to lead. With all
    serving, none accepts: the kernel's backlog holds the rest. The socket may be shared
    with other processes, each with a Server of its own."""

    def __init__(self, app: App, sock: socket.socket, max_connections: int, idle: float,
                 own: bool = False):
        self.app, self.socket, self.own, self.idle = app, sock, own, idle
        self.server_port = sock.getsockname()[1]
        self.max_connections = max_connections
        self._wake_r, self._wake_w = os.pipe()
        self._wait, self._close_poller = _poller(sock.fileno(), self._wake_r)
        self._lead = threading.Lock()  # held by the thread waiting for a connection
        self._count = threading.Lock()
        self._threads = self._free = 0  # threads, and those not serving a connection
        self._stop = False
        self._stopped = threading.Event()
        self._done = threading.Event()

    def serve_forever(self) -> None:
        """Starts the first thread, then waits (in this thread) for shutdown()."""
        self._done.clear()
        self.socket.setblocking(False)  # another process may take a connection first
        try:
            with self._count:
                self._start()
            self._stopped.wait()
        finally:
            self._done.set()

    def shutdown(self) -> None:
        """Stops serve_forever (run in another thread) and waits for it to end; open
        connections end as their clients leave or fall silent."""
        self._halt()
        self._done.wait()

    def _halt(self) -> None:
        self._stop = True
        os.write(self._wake_w, b"x")  # left unread: whoever leads next sees it too
        if self._lead.acquire(timeout=5):  # the leader has left its wait
            self._lead.release()
        self._stopped.set()

    def server_close(self) -> None:
        if not self._stopped.is_set():
            self._halt()
        self._close_poller()
        for fd in (self._wake_r, self._wake_w):
            os.close(fd)
        if self.own:
            self.socket.close()

    def _start(self) -> None:  # under _count
        self._threads += 1
        self._free += 1
        threading.Thread(target=self._thread, daemon=True).start()

    def _thread(self) -> None:
        while True:
            with self._lead:
                if self._stop:
                    return
                with self._count:
                    self._free -= 1
                    if not self._free and self._threads < self.max_connections:
                        self._start()  # to lead while this one serves
                conn = self._accept()
            if conn is None:
                return
            self._connection(conn)
            with self._count:
                self._free += 1

    def _accept(self) -> socket.socket | None:
        """The next connection, or None once shutdown() is asked."""
        while not self._stop:
            if self.socket.fileno() not in self._wait():
                continue  # woken by shutdown()
            try:
                return self.socket.accept()[0]
            except (BlockingIOError, InterruptedError, ConnectionAbortedError):
                continue  # another process took it, or the client left
            except OSError:  # out of descriptors: wait for a connection to end
                time.sleep(0.05)
        return None

    def _connection(self, conn: socket.socket) -> None:
        try:
            conn.settimeout(self.idle)
            if conn.family in (socket.AF_INET, socket.AF_INET6):
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            rfile = conn.makefile("rb")
            while True:
                try:
                    req = read_request(rfile, self.app.max_body, conn)
                except HTTPError as e:  # the stream's state is unknown: answer and close
                    conn.sendall(response_bytes(self.app.error(e), False, True))
                    _linger(conn)
                    return
                if req is None:
                    return
                r = self.app.handle(req)
                conn.sendall(response_bytes(r, req.method == "HEAD", req.close))
                if req.close:
                    return
        except OSError:  # the client left, or fell silent for `idle` seconds
            pass
        except Exception:  # noqa: BLE001 - no request may end the thread (never seen)
            pass
        finally:
            conn.close()


def _linger(conn: socket.socket, seconds: float = 2.0, most: int = 64 << 20) -> None:
    """After an answer sent before the request was read to its end (a body over the
    limit): read what the client still sends, for a while, so that closing does not
    reset the connection before the client reads the answer."""
    conn.shutdown(socket.SHUT_WR)
    end, got = time.monotonic() + seconds, 0
    while got < most and (left := end - time.monotonic()) > 0:
        conn.settimeout(left)
        chunk = conn.recv(65536)
        if not chunk:
            return
        got += len(chunk)
