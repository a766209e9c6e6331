"""`gsolve serve`: a local web viewer and JSON API over the solved databases of a root.

    GET  /                                        the viewer (solver/use/static/, plain files)
    GET  /api/games                               solved game variants under the root
    GET  /api/query?game=G&variant=V&position=P   exactly `gsolve query --json`'s object
    POST /api/query  {"game", "variant", "positions": [...]}   a JSON list, one per position

A position left out is the start; `variant` is `k=v,...` (empty or `default` for none). A
user error (a bad game, variant or position, no database) answers 400 with {"error": "..."};
a damaged database (a chunk lost or failing its checksum since the server opened it) 500
with {"error": "...", "damaged": true}; a database being written by a solve now 503. A
database solved again or repaired while the server runs is opened again. Flask (werkzeug's
threaded server).
"""

from __future__ import annotations

import errno
import json
import os
import socket
import threading
from pathlib import Path

from flask import Flask, Response, request, send_from_directory

from games.base import GsolveError
from solver.storage.database import DamagedDatabase
from solver.use.api import Solved

STATIC = Path(__file__).with_name("static")
# games whose pieces fall to the lowest empty cell of a column: in the viewer a click anywhere
# in a column plays that column (the move changes one cell, which need not be the one clicked)
COLUMN_GAMES = frozenset({"connect4"})


def _json(obj, status: int = 200) -> Response:
    # json.dumps as `gsolve query --json` writes it: same keys, same order, same bytes
    return Response(json.dumps(obj), status=status, mimetype="application/json")


class Busy(GsolveError):
    """The database is being written now (a solve, or the swap that ends it): 503."""


def _stamp(path) -> tuple[int, int, int] | None:
    """What changes when a database is solved again or repaired in place: its group's
    zarr.json (a new folder is swapped in; attributes such as `finished` are rewritten)."""
    try:
        st = os.stat(Path(path) / "zarr.json")
    except (OSError, TypeError):
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


class Opened:
    """One open database, read under its own lock (its chunk cache is not thread-safe),
    and the stamp of its zarr.json when it was opened."""

    def __init__(self, solved: Solved):
        self.solved = solved
        self.lock = threading.Lock()
        self.stamp = _stamp(solved.db.path)


class Databases:
    """Open databases by (game, variant), each opened once and kept while its zarr.json
    stays the same: a database solved again (`--force`) or repaired while the server runs
    is opened again. A damaged one (a chunk lost or failing its checksum) is opened again
    once before the request fails with DamagedDatabase (500), in case it was repaired."""

    def __init__(self, root):
        from solver.storage.database import default_root

        self.root = Path(root) if root is not None else default_root()
        self._open: dict[tuple[str, str], Opened] = {}
        self._games: dict[tuple[str, str], object] = {}
        self._lock = threading.Lock()

    @staticmethod
    def key(game: str, variant: str | None) -> tuple[str, str]:
        return game, "" if variant in (None, "", "default") else variant

    def get(self, game: str, variant: str | None) -> Opened:
        key = self.key(game, variant)
        got = self._open.get(key)
        if got is not None and _stamp(got.solved.db.path) == got.stamp:
            return got
        with self._lock:
            now = self._open.get(key)
            if now is not None and now is not got:  # another thread opened it meanwhile
                return now
            self._open.pop(key, None)
            got = Opened(self._solved(*key))
            self._open[key] = got
        return got

    def game(self, game: str, variant: str | None):
        """The Game of a request (a bad name or variant: GsolveError), made once."""
        from games import get_game

        key = self.key(game, variant)
        g = self._games.get(key)
        if g is None:
            g = self._games[key] = get_game(key[0], key[1] or None)
        return g

    def _solved(self, game: str, variant: str) -> Solved:
        from solver.storage.database import DamagedDatabase, DatabaseError, group_path
        from solver.storage.lock import running_writer

        g = self.game(game, variant)
        try:
            return Solved(g, self.root)
        except DamagedDatabase:
            raise
        except DatabaseError as e:
            if running_writer(group_path(self.root, g)) is not None:
                raise Busy(str(e)) from None
            raise

    def forget(self, game: str, variant: str | None, opened: Opened) -> None:
        with self._lock:
            if self._open.get(self.key(game, variant)) is opened:
                del self._open[self.key(game, variant)]

    def query(self, game: str, variant: str | None, position: str | None) -> dict:
        def ask(opened: Opened) -> dict:
            try:
                with opened.lock:
                    return opened.solved.query(position or None).to_dict()
            except DamagedDatabase:
                self.forget(game, variant, opened)  # opened afresh next time
                raise

        if position:  # a bad position is the request's fault, whatever the database's state
            self.game(game, variant).from_string(position)
        try:
            return ask(self.get(game, variant))
        except DamagedDatabase:  # opened again: it may have been repaired meanwhile
            return ask(self.get(game, variant))

    def solved_games(self) -> list[dict]:
        """Every complete database under the root, with what the viewer needs to know."""
        from games.registry import available, game_class

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
                    "columns": gdir.name in COLUMN_GAMES,
                    "variant": "" if vdir.name == "default" else vdir.name,
                    "positions": attrs.get("positions"),
                    "start": {"value": start, "remoteness": attrs.get("start_remoteness")},
                })
        return out


def create_app(db=None) -> Flask:
    app = Flask(__name__, static_folder=None)
    dbs = Databases(db)
    app.config["databases"] = dbs

    @app.get("/")
    def index():
        return send_from_directory(STATIC, "index.html")

    @app.get("/favicon.ico")
    def favicon():
        return Response(status=204)

    @app.get("/static/<path:name>")
    def static_file(name):
        return send_from_directory(STATIC, name)

    @app.get("/api/games")
    def games():
        return _json(dbs.solved_games())

    @app.get("/api/query")
    def query():
        args = request.args
        game = args.get("game")
        if not game:
            return _json({"error": "name a game: /api/query?game=G&variant=V&position=P"},
                         400)
        return _json(dbs.query(game, args.get("variant"), args.get("position")))

    @app.post("/api/query")
    def batch():
        body = request.get_json(silent=True)
        if not isinstance(body, dict) or not body.get("game") or not isinstance(
                body.get("positions"), list):
            return _json({"error": 'post {"game": G, "variant": V, "positions": [P, ...]}'},
                         400)
        dbs.get(body["game"], body.get("variant"))  # a bad game or database: one error
        out = []
        for p in body["positions"]:
            try:
                out.append(dbs.query(body["game"], body.get("variant"), p))
            except (DamagedDatabase, Busy):
                raise  # the database's fault, not this position's: the whole request fails
            except GsolveError as e:
                out.append({"position": p, "error": str(e)})
        return _json(out)

    @app.errorhandler(GsolveError)
    def user_error(e):
        if isinstance(e, DamagedDatabase):  # the server's data, not the request
            return _json({"error": str(e), "damaged": True}, 500)
        if isinstance(e, Busy):
            r = _json({"error": str(e)}, 503)
            r.headers["Retry-After"] = "10"
            return r
        return _json({"error": str(e)}, 400)

    return app


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port; a host that does not resolve or is not this
    machine's, or a port in use or not allowed, is a GsolveError of one line. (werkzeug
    would print two lines of its own and exit 1 instead.)"""
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


def make_server(db, host: str, port: int):
    """The app on a threaded werkzeug server, quiet per request, keep-alive."""
    from werkzeug.serving import WSGIRequestHandler
    from werkzeug.serving import make_server as werkzeug_server

    class Handler(WSGIRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_request(self, *args, **kwargs):
            pass

    sock = listen(host, port)
    try:  # werkzeug serves a duplicate of the socket's descriptor
        server = werkzeug_server(host, port, create_app(db), threaded=True,
                                 request_handler=Handler, fd=sock.fileno())
    finally:
        sock.close()
    server.server_port = server.port  # the port bound (0 picks one), as http.server names it
    return server


def serve(db, host: str = "127.0.0.1", port: int = 8000) -> None:
    server = make_server(db, host, port)
    root = server.app.config["databases"].root
    shown = f"[{host}]" if ":" in host else host
    print(f"gsolve serve: http://{shown}:{server.server_port}/  (databases in {root}; "
          "Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()
