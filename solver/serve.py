"""`gsolve serve`: a local web viewer and JSON API over the solved databases of a root.

    GET  /                                        the viewer (solver/static/, plain files)
    GET  /api/games                               solved game variants under the root
    GET  /api/query?game=G&variant=V&position=P   exactly `gsolve query --json`'s object
    POST /api/query  {"game", "variant", "positions": [...]}   a JSON list, one per position

A position left out is the start; `variant` is `k=v,...` (empty or `default` for none). A
user error answers 400 with {"error": "..."}. Flask (werkzeug's threaded server).
"""

from __future__ import annotations

import errno
import json
import socket
import threading
from pathlib import Path

from flask import Flask, Response, request, send_from_directory

from games.base import GsolveError
from solver.api import Solved

STATIC = Path(__file__).with_name("static")


def _json(obj, status: int = 200) -> Response:
    # json.dumps as `gsolve query --json` writes it: same keys, same order, same bytes
    return Response(json.dumps(obj), status=status, mimetype="application/json")


class Databases:
    """Open databases by (game, variant), each opened once and read under its own lock
    (the database's chunk cache is not thread-safe)."""

    def __init__(self, root):
        from solver.database import default_root

        self.root = Path(root) if root is not None else default_root()
        self._open: dict[tuple[str, str], tuple[Solved, threading.Lock]] = {}
        self._lock = threading.Lock()

    def get(self, game: str, variant: str | None) -> tuple[Solved, threading.Lock]:
        key = (game, "" if variant in (None, "", "default") else variant)
        got = self._open.get(key)
        if got is None:
            with self._lock:
                got = self._open.get(key)
                if got is None:
                    from games import get_game

                    got = (Solved(get_game(game, key[1] or None), self.root), threading.Lock())
                    self._open[key] = got
        return got

    def query(self, game: str, variant: str | None, position: str | None) -> dict:
        solved, lock = self.get(game, variant)
        with lock:
            return solved.query(position or None).to_dict()

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
            except GsolveError as e:
                out.append({"position": p, "error": str(e)})
        return _json(out)

    @app.errorhandler(GsolveError)
    def user_error(e):
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
