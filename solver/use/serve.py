"""`gsolve serve`: a local web viewer and JSON API over the solved databases of a root.

    GET  /                                        the viewer (solver/use/static/, plain files)
    GET  /api/games                               solved game variants under the root
    GET  /api/query?game=G&variant=V&position=P   exactly `gsolve query --json`'s object
    POST /api/query  {"game", "variant", "positions": [...]}   a JSON list, one per position

A position left out is the start; `variant` is `k=v,...` (empty or `default` for none). A
user error (a bad game, variant or position, no database) answers 400 with {"error": "..."};
a damaged database (a chunk lost or failing its checksum since the server opened it) 500
with {"error": "...", "damaged": true}; a database being written by a solve now 503; any
other bad request (a variant that is not text, a position that is not a string, an unknown
URL) a 4xx JSON error, never a page. A database solved again or repaired while the server
runs is opened again. Every spelling of a variant is normalised first (`width=7,height=7`
and `height=7, width=7` share one game object and one open database), and both caches keep
the few most recently used. The same server is a data provider of GamesCrafters' UWAPI, in
GamesmanClassic's and GamesmanOne's protocols (solver/use/uwapi.py, docs/uwapi.md).
HTTP/1.1 with keep-alive on a lean server of our own (solver/use/http.py: Flask and werkzeug
cost more than the query), at most MAX_CONNECTIONS connections at once, in one worker
process a core (serve(); Python answers one request at a time per process).
"""

from __future__ import annotations

import errno
import json
import os
import signal
import socket
import sys
import threading
from collections import OrderedDict
from pathlib import Path

from games.base import GsolveError
from solver.storage.database import DamagedDatabase
from solver.use import uwapi
from solver.use.api import Solved
from solver.use.http import App, Response, Server, file_response, json_response

STATIC = Path(__file__).with_name("static")
KEEP = 8  # game objects and open databases kept (the most recently used): a big variant's
#           game holds tens of MiB of tables
CHUNK_BUDGET = 256 << 20  # bytes of decoded chunks kept per open database
MAX_BATCH = 10_000  # positions in one POST /api/query
MAX_BODY = 4 << 20  # bytes of a request body
MAX_TEXT = 4096  # characters of a game, variant or position
MAX_CONNECTIONS = 64  # connections served at once by one worker process
IDLE = 30  # seconds an idle keep-alive connection is kept open
MAX_WORKERS = 4  # worker processes, at most


def _json(obj, status: int = 200, headers: dict | None = None) -> Response:
    # json.dumps as `gsolve query --json` writes it: same keys, same order, same bytes
    return json_response(obj, status, headers)


class Busy(GsolveError):
    """The database is being written now (a solve, or the swap that ends it): 503."""


def _meta(path) -> str | None:
    """A database's zarr.json as a file name; None where it is no local file (a store)."""
    try:
        return os.fspath(Path(path) / "zarr.json")
    except TypeError:
        return None


def _stamp(meta: str | None) -> tuple[int, int, int] | None:
    """What changes when a database is solved again or repaired in place: its group's
    zarr.json, `meta` (a new folder is swapped in; attributes such as `finished` are
    rewritten)."""
    try:
        st = os.stat(meta)
    except (OSError, TypeError):
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


class Opened:
    """One open database, read under its own lock (its chunk cache is not thread-safe),
    the stamp of its zarr.json when it was opened, and `made`: what a route derives from
    its game once (uwapi's strings objects), kept as long as the database is open."""

    def __init__(self, solved: Solved):
        self.solved = solved
        self.lock = threading.Lock()
        self.meta = _meta(solved.db.path)  # stat'ed every request: made once
        self.stamp = _stamp(self.meta)
        self.made: dict = {}
        # random positions touch every chunk (a position and its children lie far apart
        # under symmetry): keep up to CHUNK_BUDGET of decoded chunks, not the 16 a command
        # keeps (Quixo 4x4: all 83 chunks, 166 MiB; a miss decodes 2 MiB in about 2 ms)
        db = solved.db
        per_chunk = db._chunk * (db.value_array.dtype.itemsize
                                 + db.remoteness_array.dtype.itemsize)
        db.cache_chunks = max(db.cache_chunks, CHUNK_BUDGET // max(per_chunk, 1))


def _text(what: str, value, allow_none: bool = True) -> str | None:
    """A request's game, variant or position: text of a bounded length (GsolveError, so
    400, for a number, a list, an object or a megabyte)."""
    if value is None and allow_none:
        return None
    if not isinstance(value, str):
        raise GsolveError(f"the {what} should be text, not {type(value).__name__} "
                          f"{json.dumps(value)[:40]}")
    if len(value) > MAX_TEXT:
        raise GsolveError(f"a {what} of {len(value)} characters: at most {MAX_TEXT}")
    return value


class _Recent(OrderedDict):
    """A dict that keeps its `size` most recently used entries (callers hold a lock)."""

    def __init__(self, size: int):
        super().__init__()
        self.size = size

    def use(self, key):
        got = self.get(key)
        if got is not None:
            self.move_to_end(key)
        return got

    def put(self, key, value):
        self[key] = value
        self.move_to_end(key)
        while len(self) > self.size:
            self.popitem(last=False)
        return value


class Databases:
    """Open databases by (game, normalised variant), each opened once and kept while its
    zarr.json stays the same: a database solved again (`--force`) or repaired while the
    server runs is opened again. A damaged one (a chunk lost or failing its checksum) is
    opened again once before the request fails with DamagedDatabase (500), in case it was
    repaired. At most KEEP games and KEEP open databases are kept, the least recently used
    dropped first; a variant without a database builds no game object."""

    def __init__(self, root):
        from solver.storage.database import default_root

        self.root = Path(root) if root is not None else default_root()
        self._open: _Recent = _Recent(KEEP)
        self._games: _Recent = _Recent(KEEP)
        self._keys: _Recent = _Recent(1024)  # spelling -> key (a few hundred bytes each)
        self._lock = threading.RLock()  # opening a database builds its game under it

    def key(self, game, variant) -> tuple[str, str]:
        """(game, variant key) with every spelling of a variant made one: the game's keys
        in order with their defaults (`default` for a game without keys). Remembered by
        spelling (finding a game's class looks for every game module: 0.1 ms)."""
        from games import game_class
        from games.base import parse_variant

        game = _text("game", game, allow_none=False)
        variant = _text("variant", variant)
        got = self._keys.get((game, variant))
        if got is None:
            cls = game_class(game)
            text = "" if variant in (None, "", "default") else variant
            given = cls.check_variant(parse_variant(text))
            got = game, ",".join(f"{k}={v}" for k, v in given.items()) or "default"
            with self._lock:
                self._keys.put((game, variant), got)
        return got

    def get(self, game, variant) -> Opened:
        key = self.key(game, variant)
        with self._lock:
            got = self._open.use(key)
        if got is not None and _stamp(got.meta) == got.stamp:
            return got
        with self._lock:
            now = self._open.get(key)
            if now is not None and now is not got:  # another thread opened it meanwhile
                return now
            self._open.pop(key, None)
            return self._open.put(key, Opened(self._solved(*key)))

    def game(self, game, variant):
        """The Game of a request (a bad name or variant: GsolveError), made once, and only
        where its database directory exists (a game object of a big variant is big)."""
        from games import get_game

        key = self.key(game, variant)
        with self._lock:
            g = self._games.use(key)
        if g is None:
            where = self.root / key[0] / key[1]
            if not any(where.with_name(where.name + end).exists()
                       for end in ("", ".lock", ".partial")):  # neither solved nor solving
                raise GsolveError(f"no database of {key[0]} {key[1]} under {self.root}: "
                                  f"solve it first (gsolve {key[0]}"
                                  f"{'' if key[1] == 'default' else ' -V ' + key[1]} "
                                  f"--db {self.root})")
            g = get_game(key[0], None if key[1] == "default" else key[1])
            with self._lock:
                g = self._games.use(key) or self._games.put(key, g)
        return g

    def _solved(self, game: str, variant: str) -> Solved:
        from solver.storage.database import DamagedDatabase, DatabaseError, group_path
        from solver.storage.stores import running_writer

        g = self.game(game, variant)
        try:
            return Solved(g, self.root)
        except DamagedDatabase:
            raise
        except DatabaseError as e:
            if running_writer(group_path(self.root, g)) is not None:
                raise Busy(str(e)) from None
            raise

    def forget(self, game, variant, opened: Opened) -> None:
        key = self.key(game, variant)
        with self._lock:
            if self._open.get(key) is opened:
                del self._open[key]

    def run(self, game, variant, ask, opened: Opened | None = None):
        """ask(solved) under the database's lock (its chunk cache and its game's move
        buffers are not thread-safe), on `opened` where the caller has just got it; a
        damaged database is opened again once."""
        def once(opened: Opened):
            try:
                with opened.lock:
                    return ask(opened.solved)
            except DamagedDatabase:
                self.forget(game, variant, opened)  # opened afresh next time
                raise

        try:
            return once(opened or self.get(game, variant))
        except DamagedDatabase:  # opened again: it may have been repaired meanwhile
            return once(self.get(game, variant))

    def query(self, game, variant, position) -> dict:
        position = _text("position", position)
        # a bad position is the request's fault, whatever the database's state; parsed once
        h = self.game(game, variant).from_string(position) if position else None
        return self.run(game, variant, lambda s: s.query_hash(
            s.game.start if h is None else h).to_dict())

    def solved_games(self) -> list[dict]:
        """Every complete database under the root, with what the viewer needs to know."""
        from games import available, game_class

        out = []
        known = set(available())
        if not self.root.is_dir():
            return out
        for gdir in sorted(p for p in self.root.iterdir() if p.is_dir()):
            if gdir.name not in known:
                continue
            cls = game_class(gdir.name)
            for vdir in sorted(p for p in gdir.iterdir() if p.is_dir()):
                meta = vdir / "zarr.json"
                if "." in vdir.name.replace("=", "") or not meta.exists():
                    continue  # partial and old copies
                try:
                    attrs = json.loads(meta.read_text()).get("attributes", {})
                except (OSError, ValueError):
                    continue
                if not attrs.get("complete"):
                    continue
                start = attrs.get("start_value")
                out.append({
                    "game": gdir.name, "title": cls.title, "puzzle": cls.puzzle,
                    "columns": cls.columns,
                    "variant": "" if vdir.name == "default" else vdir.name,
                    "positions": attrs.get("positions"),
                    "start": {"value": start, "remoteness": attrs.get("start_remoteness")},
                })
        return out


def create_app(db=None) -> App:
    dbs = Databases(db)

    def user_error(e):
        if isinstance(e, DamagedDatabase):  # the server's data, not the request
            return _json({"error": str(e), "damaged": True}, 500)
        if isinstance(e, Busy):
            return _json({"error": str(e)}, 503, {"Retry-After": "10"})
        if isinstance(e, GsolveError):
            return _json({"error": str(e)}, 400)
        return None  # an HTTPError's JSON, or a bug: 500, one line, never a traceback

    app = App(MAX_BODY, user_error)
    app.config["databases"] = dbs

    @app.get("/")
    def index(req):
        return file_response(STATIC, "index.html")

    @app.get("/favicon.ico")
    def favicon(req):
        return Response(status=204)

    @app.get("/static/<path:name>")
    def static_file(req, name):
        return file_response(STATIC, name)

    @app.get("/api/games")
    def games(req):
        return _json(dbs.solved_games())

    @app.get("/api/query")
    def query(req):
        args = req.args
        game = args.get("game")
        if not game:
            return _json({"error": "name a game: /api/query?game=G&variant=V&position=P"},
                         400)
        return _json(dbs.query(game, args.get("variant"), args.get("position")))

    @app.post("/api/query")
    def batch(req):
        body = req.json()
        if not isinstance(body, dict) or not body.get("game") or not isinstance(
                body.get("positions"), list):
            return _json({"error": 'post {"game": G, "variant": V, "positions": [P, ...]}'},
                         400)
        game, variant, positions = body["game"], body.get("variant"), body["positions"]
        if len(positions) > MAX_BATCH:
            return _json({"error": f"{len(positions)} positions: at most {MAX_BATCH} a "
                                   "request"}, 400)
        for p in positions:
            _text("position", p)  # one that is not text: the request's shape is wrong
        dbs.get(game, variant)  # a bad game or database: one error
        out = []
        for p in positions:
            try:
                out.append(dbs.query(game, variant, p))
            except (DamagedDatabase, Busy):
                raise  # the database's fault, not this position's: the whole request fails
            except GsolveError as e:
                out.append({"position": p, "error": str(e)})
        return _json(out)

    uwapi.add_routes(app, dbs, _json)  # after the exact routes: /<game>/<variant>/...
    return app


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port; a host that does not resolve or is not this
    machine's, or a port in use or not allowed, is a GsolveError of one line."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    where = f"[{host}]:{port}" if family == socket.AF_INET6 else f"{host}:{port}"
    try:
        addr = socket.getaddrinfo(host, port, family, socket.SOCK_STREAM,
                                  socket.IPPROTO_TCP)[0][4]
    except (socket.gaierror, UnicodeError) as e:
        why = e.strerror if isinstance(e, socket.gaierror) else "not a valid name"
        raise GsolveError(f"cannot listen on {where}: --host '{host}' is not a host name or "
                          f"address of this machine ({why})") from None
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as http.server does
        sock.bind(addr)
        sock.listen(128)
    except OSError as e:
        sock.close()
        hint = {errno.EADDRINUSE: ": another program uses that port; choose another "
                                  "--port (0 picks a free one)",
                errno.EADDRNOTAVAIL: f": {host} is not an address of this machine",
                errno.EACCES: ": ports below 1024 need privileges; choose another --port",
                }.get(e.errno, "")
        raise GsolveError(f"cannot listen on {where}: {e.strerror or e}{hint}") from None
    return sock


def make_server(db, host: str, port: int, sock: socket.socket | None = None) -> Server:
    """The app on a Server (solver/use/http.py): at most MAX_CONNECTIONS connections at
    once, each kept open while it asks again within IDLE seconds; on `sock` (a listening
    socket, left open) where given, else on a new one that server_close() closes."""
    own = sock is None
    sock = listen(host, port) if own else sock
    return Server(create_app(db), sock, MAX_CONNECTIONS, IDLE, own=own)


def workers_default() -> int:
    """One worker process per core this process may run on, at most MAX_WORKERS: Python
    answers one request at a time per process (its lock), so processes are what let
    several clients be answered at once."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(MAX_WORKERS, cores))


def _worker(db, host: str, sock: socket.socket) -> None:
    """A forked worker: its own app, caches and open databases, on the shared socket; on
    Linux it gets SIGTERM when its parent ends, however that ends (PR_SET_PDEATHSIG)."""
    code = 0
    try:
        if sys.platform.startswith("linux"):
            import ctypes

            ctypes.CDLL(None).prctl(1, signal.SIGTERM)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C: the parent stops us
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        server = make_server(db, host, sock.getsockname()[1], sock)
        server.serve_forever()
    except SystemExit:
        pass
    except BaseException as e:  # noqa: BLE001 - a worker must not outlive its error
        print(f"gsolve serve: a worker stopped: {type(e).__name__}: {e}", file=sys.stderr,
              flush=True)
        code = 1
    finally:
        os._exit(code)  # never run the parent's clean-up in a forked child


def serve(db, host: str = "127.0.0.1", port: int = 8000, workers: int | None = None) -> None:
    """Serve until Ctrl-C or SIGTERM: `workers` processes (default workers_default()) on
    one listening socket, each a Server of threads with its own caches (so up to
    workers x CHUNK_BUDGET of chunks a database); one worker serves in this process."""
    from solver.storage.database import default_root

    workers = workers_default() if workers is None else max(1, int(workers))
    sock = listen(host, port)
    root = Path(db) if db is not None else default_root()
    shown = f"[{host}]" if ":" in host else host
    print(f"gsolve serve: http://{shown}:{sock.getsockname()[1]}/  (databases in {root}; "
          f"{workers} worker{'s' * (workers > 1)}; Ctrl-C stops)", flush=True)
    if workers == 1:
        server = make_server(db, host, port, sock)
        try:
            server.serve_forever()
        finally:
            server.server_close()
            sock.close()
        return
    children = []
    try:
        for _ in range(workers):  # forked before any thread or database exists here
            pid = os.fork()
            if pid == 0:
                _worker(db, host, sock)
            children.append(pid)
        if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:  # `gsolve serve` has its own
            signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # (one line, status 143)
        pid, status = os.wait()  # a worker that stops stops the server
        children.remove(pid)
        raise GsolveError(f"a worker process stopped (status {status}): serve stopped")
    finally:
        for pid in children:
            os.kill(pid, signal.SIGTERM)  # a zombie until waited for: never a lost pid
        for pid in children:
            os.waitpid(pid, 0)
        sock.close()
