"""`gsolve serve`: the JSON API is `gsolve query --json`'s object, byte for byte; and the
viewer in a real headless Chromium (skipped when none is installed)."""

import json
import shutil
import threading
import time
from pathlib import Path

import pytest
import reference

import solver
from solver.command.cli import main
from solver.use.serve import create_app, make_server

WORD = {1: "lose", 2: "draw", 3: "tie", 4: "win"}
FLIP = {"win": "lose", "lose": "win", "tie": "tie", "draw": "draw"}
RGB = {"win": "rgb(46, 125, 50)", "lose": "rgb(179, 38, 30)", "tie": "rgb(224, 168, 0)",
       "draw": "rgb(59, 111, 182)"}


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    root = tmp_path_factory.mktemp("serve") / "db"
    for game in ("tictactoe", "hexapawn"):
        solver.solve(game, db=root)
    return root


@pytest.fixture(scope="module")
def client(db):
    return create_app(db).test_client()


def cli_json(capsys, db, game, *positions, variant=None):
    args = ["query", game, *positions, "--json", "--db", str(db)]
    if variant:
        args += ["-V", variant]
    assert main(args) == 0
    return capsys.readouterr()[0].splitlines()


CASES = [
    ("tictactoe", None, None),
    ("tictactoe", None, "X--/-O-/--X"),
    ("tictactoe", None, "XXX/OO-/---"),  # over: no moves
    ("hexapawn", "width=3,height=3", "BBB/-W-/W-W b"),
    ("hexapawn", None, "-BB/-B-/W-W w"),
]


@pytest.mark.parametrize("game,variant,position", CASES)
def test_api_query_is_query_json(game, variant, position, client, db, capsys):
    params = {"game": game}
    if variant:
        params["variant"] = variant
    if position:
        params["position"] = position
    r = client.get("/api/query", query_string=params)
    assert r.status_code == 200 and r.mimetype == "application/json"
    expected = cli_json(capsys, db, game, *([position] if position else []), variant=variant)
    assert r.get_data(as_text=True) == expected[0]


def test_batch(client, db, capsys):
    positions = ["---/---/---", "X--/-O-/--X", "XXX/OO-/---"]
    r = client.post("/api/query", json={"game": "tictactoe", "positions": positions})
    assert r.status_code == 200
    assert r.get_json() == [json.loads(x) for x in cli_json(capsys, db, "tictactoe",
                                                            *positions)]
    r = client.post("/api/query", json={"game": "tictactoe", "positions": ["XXXX"]})
    assert "error" in r.get_json()[0]
    assert client.post("/api/query", json={"positions": []}).status_code == 400


def test_errors_and_games(client):
    r = client.get("/api/query?game=tictactoe&position=XYZ")
    assert r.status_code == 400 and "tictactoe position" in r.get_json()["error"]
    assert client.get("/api/query?game=nosuch").status_code == 400
    assert client.get("/api/query").status_code == 400
    r = client.get("/api/query?game=hexapawn&variant=width=4,height=4")
    assert r.status_code == 400 and "solve it first" in r.get_json()["error"]
    games = {(g["game"], g["variant"]): g for g in client.get("/api/games").get_json()}
    assert set(games) == {("tictactoe", ""), ("hexapawn", "width=3,height=3")}
    assert games["hexapawn", "width=3,height=3"]["start"] == {"value": "lose",
                                                              "remoteness": 6}
    assert not any(g["columns"] for g in games.values())  # a click plays one cell's move
    assert client.get("/").status_code == 200
    assert b"app.js" in client.get("/").data
    assert client.get("/static/app.js").status_code == 200


# -- the viewer in a real browser ----------------------------------------------------------
def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.fixture(scope="module")
def browser():
    path = _chromium()
    if path is None:
        pytest.skip("no Chromium installed (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        # as root in a container (CI): no sandbox, and /dev/shm may be tiny
        b = p.chromium.launch(executable_path=path, headless=True,
                              args=["--no-sandbox", "--disable-dev-shm-usage"])
        yield b
        b.close()


@pytest.fixture(scope="module")
def url(db):
    server = make_server(db, "127.0.0.1", 0)
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()


def test_viewer_in_chromium(browser, url, tmp_path):
    """Hexapawn: click a few moves; each move button is coloured by its value for the
    mover and each chart dot by the position's value, as the reference solver says."""
    g = reference.Hexapawn(3, 3)
    table = reference.solve(g)
    page = browser.new_page(viewport={"width": 1100, "height": 800})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url + "?game=hexapawn")
    page.wait_for_selector(".move")

    def check(plies):
        page.wait_for_function(f"document.body.dataset.ply === '{len(plies)}'")
        position = page.text_content("#position")
        assert position == (plies[-1][1] if plies else "BBB/---/WWW w")
        buttons = page.query_selector_all(".move")
        kids = sorted(g.children(position))
        assert len(buttons) == len(kids)
        for b in buttons:
            child = b.get_attribute("title").removeprefix("-> ")
            assert child in kids
            v, r = table[child]
            mover = FLIP[WORD[v]]
            assert b.get_attribute("data-value") == mover
            assert b.get_attribute("data-remoteness") == str(r + 1)
            assert b.evaluate("e => getComputedStyle(e).backgroundColor") == RGB[mover]
        dots = page.query_selector_all("#chart circle.dot")
        assert len(dots) == len(plies) + 1
        seen = ["BBB/---/WWW w"] + [p for _, p in plies]
        for i, (dot, pos) in enumerate(zip(dots, seen, strict=True)):
            v, r = table[pos]
            assert dot.get_attribute("data-ply") == str(i)
            assert dot.get_attribute("data-value") == WORD[v]
            assert dot.get_attribute("data-remoteness") == str(r)
            assert dot.get_attribute("fill") == {"win": "#2e7d32", "lose": "#b3261e"}[WORD[v]]
            assert dot.get_attribute("data-side") == ("first" if i % 2 == 0 else "second")
        status = page.text_content("#status")
        v, r = table[position]
        assert f"{WORD[v]} in {r}" in status

    plies = []
    check(plies)
    for move in ("b1-b2", "a3xb2", "c1xb2"):
        child = page.get_attribute(f".move[data-move='{move}']", "title").removeprefix("-> ")
        page.click(f".move[data-move='{move}']")
        plies.append((move, child))
        check(plies)
    page.screenshot(path=str(tmp_path / "viewer.png"), full_page=True)
    page.click("#undo")
    plies.pop()
    check(plies)
    page.click("#restart")
    check([])
    # a click on an empty board cell plays the one move that fills it (tic-tac-toe)
    page.select_option("#game", label="Tic-tac-toe")
    page.wait_for_function("document.querySelector('#position').textContent === "
                           "'---/---/---'")
    page.click("#board .cell[data-cell='1,1']")
    page.wait_for_function("document.body.dataset.ply === '1'")
    assert page.text_content("#position") == "---/-X-/---"
    # any position typed in; a bad one is a one-line error on the page
    page.fill("#position-input", "X--/-O-/--X")
    page.press("#position-input", "Enter")
    page.wait_for_function("document.querySelector('#position').textContent === "
                           "'X--/-O-/--X'")
    assert page.get_attribute(".move[data-move='3']", "data-value") == "lose"  # O's reply
    page.fill("#position-input", "XXXX")
    page.press("#position-input", "Enter")
    page.wait_for_function("document.querySelector('#error').textContent !== ''")
    assert "tictactoe position" in page.text_content("#error")
    assert not errors
    page.close()


# -- issue 25: restart goes to the game's start; Connect-4 plays a column from any cell ----
def test_restart_goes_to_the_games_start(browser, url):
    """Not to the position typed in (the history's first), and also from a typed position
    with no move played yet."""
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url + "?game=tictactoe")
    page.wait_for_selector(".move")
    assert page.is_disabled("#restart")  # at the start already
    page.fill("#position-input", "X--/-O-/--X")
    page.press("#position-input", "Enter")
    page.wait_for_function("document.querySelector('#position').textContent === "
                           "'X--/-O-/--X'")
    assert page.is_enabled("#restart")
    page.click(".move[data-move='3']")
    page.wait_for_function("document.body.dataset.ply === '1'")
    page.click("#restart")
    page.wait_for_function("document.querySelector('#position').textContent === "
                           "'---/---/---'")
    assert page.get_attribute("body", "data-ply") == "0"
    assert len(page.query_selector_all("#chart circle.dot")) == 1
    assert page.is_disabled("#restart") and page.is_disabled("#undo")
    page.click("#board .cell[data-cell='0,0']")
    page.wait_for_function("document.body.dataset.ply === '1'")
    page.click("#restart")  # within the history that began at the start: no request needed
    page.wait_for_function("document.body.dataset.ply === '0'")
    assert page.text_content("#position") == "---/---/---"
    assert not errors
    page.close()


@pytest.fixture(scope="module")
def c4_url(tmp_path_factory):
    root = tmp_path_factory.mktemp("serve-c4") / "db"
    solver.solve("connect4", db=root)
    server = make_server(root, "127.0.0.1", 0)
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()
    server.server_close()


def test_connect4_click_anywhere_in_a_column_plays_it(browser, c4_url):
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(c4_url + "?game=connect4")
    page.wait_for_selector(".move")
    assert page.text_content("#position") == "----/----/----/----"
    steps = [("0,1", "----/----/----/-X--"),  # the top cell of column 2: X falls to the bottom
             ("3,1", "----/----/-O--/-X--"),  # its bottom cell, filled: on top of it
             ("1,3", "----/----/-O--/-X-X"),  # a middle cell of column 4
             ("1,1", "----/-O--/-O--/-X-X")]  # the cell the piece lands on, as before
    for ply, (cell, position) in enumerate(steps, 1):
        page.click(f"#board .cell[data-cell='{cell}']")
        page.wait_for_function(f"document.body.dataset.ply === '{ply}'")
        assert page.text_content("#position") == position
    page.click("#board .cell[data-cell='3,1']")  # column 2 again: its last empty cell
    page.wait_for_function("document.body.dataset.ply === '5'")
    assert page.text_content("#position") == "-X--/-O--/-O--/-X-X"
    page.click("#board .cell[data-cell='2,1']")  # column 2 is full: nothing to play
    page.wait_for_timeout(300)
    assert page.get_attribute("body", "data-ply") == "5"
    assert not errors
    page.close()


# -- issue 23: a port in use, a bad host: one line, exit 2 --------------------------------
def serve_cli(*args):
    import os
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "solver", "serve", *args],
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=os.getcwd()))


def test_port_in_use_is_one_line_exit_2(db):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        r = serve_cli("--db", str(db), "--port", str(port))
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert f"gsolve: error: cannot listen on 127.0.0.1:{port}: Address already in use" \
        in r.stderr and "--port" in r.stderr


@pytest.mark.parametrize("host,needle", [
    ("999.1.1.1", "--host '999.1.1.1' is not a host name or address of this machine"),
    ("192.0.2.1", "192.0.2.1 is not an address of this machine"),  # TEST-NET-1, not ours
])
def test_bad_host_is_one_line_exit_2(db, host, needle):
    r = serve_cli("--db", str(db), "--host", host, "--port", "0")
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert r.stderr.startswith(f"gsolve: error: cannot listen on {host}:0") and needle in r.stderr


def test_make_server_port_0_answers_on_a_free_port(db):
    import urllib.request

    server = make_server(db, "127.0.0.1", 0)
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    try:
        assert server.server_port > 0 and server.socket.getsockname()[1] == server.server_port
        with urllib.request.urlopen(f"http://127.0.0.1:{server.server_port}/api/games",
                                    timeout=30) as r:
            assert r.status == 200 and {g["game"] for g in json.load(r)} == {"tictactoe",
                                                                              "hexapawn"}
    finally:
        server.shutdown()
        server.server_close()


# -- issue 47: connections served at once are bounded; worker processes ------------------
def test_connections_beyond_the_bound_wait_for_a_free_slot(db, monkeypatch):
    """One slot: a client that connects and says nothing holds it, so the next waits
    (accepted by the kernel, not served) until the silent one is dropped after IDLE s."""
    import http.client
    import socket

    from solver.use import serve

    monkeypatch.setattr(serve, "MAX_CONNECTIONS", 1)
    monkeypatch.setattr(serve, "IDLE", 2)
    server = make_server(db, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    answered = threading.Event()

    def second():
        c = http.client.HTTPConnection("127.0.0.1", server.server_port, timeout=30)
        c.request("GET", START)
        assert c.getresponse().status == 200
        answered.set()
        c.close()

    silent = socket.create_connection(("127.0.0.1", server.server_port))
    try:
        time.sleep(0.3)  # accepted: the one slot taken
        threading.Thread(target=second, daemon=True).start()
        assert not answered.wait(1.0)
        assert answered.wait(30)  # the silent one timed out, never having closed
    finally:
        silent.close()
        server.shutdown()
        server.server_close()


def test_workers_share_the_port_and_stop_with_the_server(db):
    """serve() with two workers: both answer on one port; SIGTERM to the parent stops
    them (exit 0), and none is left running."""
    import os
    import signal
    import subprocess
    import sys
    import urllib.request

    code = (f"from solver.use.serve import serve; serve({str(db)!r}, '127.0.0.1', 0, "
            "workers=2)")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=os.getcwd()))
    try:
        line = proc.stdout.readline()
        assert "2 workers" in line, line
        port = int(line.split("http://127.0.0.1:", 1)[1].split("/", 1)[0])
        for _ in range(6):  # answered by the workers (the parent only waits)
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{START}", timeout=30) as r:
                assert json.load(r)["value"] == "tie"
        kids = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
        if kids.exists():
            pids = [int(x) for x in kids.read_text().split()]
            assert len(pids) == 2
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
        if kids.exists():
            for pid in pids:  # waited for by the parent: gone, not even a zombie
                assert not Path(f"/proc/{pid}").exists()
    finally:
        proc.kill()
        proc.wait()


# -- issue 23: a database damaged after the server opened it is the server's fault (5xx) --
@pytest.fixture
def own_db(db, tmp_path):
    """A copy of the solved tic-tac-toe database, for a test to damage."""
    root = tmp_path / "db"
    shutil.copytree(db / "tictactoe", root / "tictactoe")
    return root


START = "/api/query?game=tictactoe"


def test_lost_chunk_is_500_then_a_new_solve_answers(own_db, client):
    expected = client.get(START).get_json()  # from the module's intact database
    app = create_app(own_db)
    dbs = app.config["databases"]
    c = app.test_client()
    first = dbs.get("tictactoe", None)  # the server has opened (and checked) it
    (own_db / "tictactoe" / "default" / "value" / "c" / "0").unlink()
    r = c.get(START)
    assert r.status_code == 500 and r.mimetype == "application/json"
    body = r.get_json()
    assert body["damaged"] is True
    assert "chunk 0 of value" in body["error"] and "missing" in body["error"]
    assert "cannot be reached" not in body["error"]
    r = c.post("/api/query", json={"game": "tictactoe", "positions": ["X--/-O-/--X"]})
    assert r.status_code == 500 and "chunk 0 of value" in r.get_json()["error"]
    # user errors stay 4xx: a position that does not parse is the request's fault
    r = c.get(START + "&position=XYZ")
    assert r.status_code == 400 and "tictactoe position" in r.get_json()["error"]
    # solved again while the server runs: the new database answers, no restart
    solver.solve("tictactoe", db=own_db, force=True)
    r = c.get(START)
    assert r.status_code == 200 and r.get_json() == expected
    assert dbs.get("tictactoe", None) is not first


def test_chunk_failing_its_checksum_is_500_then_repaired_in_place(own_db, client):
    expected = client.get(START + "&position=X--/-O-/--X").get_json()
    c = create_app(own_db).test_client()
    chunk = own_db / "tictactoe" / "default" / "remoteness" / "c" / "0"
    good = chunk.read_bytes()
    assert c.get("/api/games").status_code == 200
    bad = bytearray(good)
    bad[len(bad) // 2] ^= 0xFF
    chunk.write_bytes(bytes(bad))
    for _ in range(2):  # and again: each request opens it afresh, still damaged
        r = c.get(START + "&position=X--/-O-/--X")
        assert r.status_code == 500 and r.get_json()["damaged"] is True
        assert "chunk 0 of remoteness" in r.get_json()["error"]
        assert "checksum" in r.get_json()["error"]
    chunk.write_bytes(good)  # put back from a copy: the zarr.json did not change
    r = c.get(START + "&position=X--/-O-/--X")
    assert r.status_code == 200 and r.get_json() == expected


def test_unreachable_position_stays_400(own_db):
    c = create_app(own_db).test_client()
    r = c.get(START + "&position=XXX/XOO/OO-")
    assert r.status_code == 400 and "cannot be reached" in r.get_json()["error"]


def test_database_solved_again_is_reopened(own_db):
    app = create_app(own_db)
    dbs = app.config["databases"]
    c = app.test_client()
    assert c.get(START).status_code == 200
    before = dbs.get("tictactoe", None)
    assert dbs.get("tictactoe", None) is before  # unchanged: kept open
    solver.solve("tictactoe", db=own_db, force=True, method="dfs")
    assert c.get(START).status_code == 200
    after = dbs.get("tictactoe", None)
    assert after is not before and after.solved.db.attrs["method"] == "dfs"
    # removed while the server runs: the request's game has no database now (400)
    shutil.rmtree(own_db / "tictactoe" / "default")
    r = c.get(START)
    assert r.status_code == 400 and "solve it first" in r.get_json()["error"]


def test_database_being_written_is_503(own_db):
    import subprocess

    c = create_app(own_db).test_client()
    shutil.rmtree(own_db / "tictactoe" / "default")
    writer = subprocess.Popen(["sleep", "60"])
    try:  # a live solve holds the lock file and writes its pid there
        (own_db / "tictactoe" / "default.lock").write_text(str(writer.pid))
        r = c.get(START)
        assert r.status_code == 503 and "being solved now" in r.get_json()["error"]
        assert r.headers["Retry-After"]
    finally:
        writer.kill()
        writer.wait()
