"""`gsolve serve` as a UWAPI data provider (solver/use/uwapi.py): the JSON shapes of
GamesmanClassic's and GamesmanOne's protocols, the providers' own strings for the games UWAPI
lists (written down here from their C sources, not from our code), every move's child
answering as `gsolve query` does, and the requests that must fail as JSON 4xx."""

import os
import random
import re

import pytest

import solver
from games import get_game
from games.base import PositionError
from solver.use import autogui, uwapi
from solver.use.serve import KEEP, create_app

SLOW = bool(os.environ.get("GSOLVE_SLOW"))
CLASSIC_TOP = ["position", "autoguiPosition", "positionValue", "remoteness", "moves"]
CLASSIC_MOVE = ["autoguiPosition", "position", "positionValue", "remoteness", "move",
                "autoguiMove"]
ONE_TOP = ["position", "autoguiPosition", "positionValue", "remoteness", "moves", "partMoves"]
ONE_MOVE = ["position", "autoguiPosition", "positionValue", "remoteness", "move",
            "autoguiMove"]
AUTOGUI_POSITION = re.compile(r"[12]_[^_;]+")
AUTOGUI_MOVE = re.compile(r"A_[^_]_\d+_[^_]|M_\d+_\d+_[^_]|T_[^_]+_\d+_[^_]"
                          r"|A_[^_]_\d+")  # the last: Classic's Quarto, no sound
FLIP = {"win": "lose", "lose": "win", "tie": "tie", "draw": "draw"}

# (gsolve game, variant) solved for these tests, and the provider URL of each
SOLVED = [("tictactoe", None), ("hexapawn", "width=3,height=3"), ("quixo", "size=3"),
          ("connect4", "width=4,height=4"), ("teeko", "size=3,pieces=3"),
          ("baghchal", None), ("quarto", None)]
URLS = [("ttt", "3"), ("hexapawn", "0"), ("quixo", "2"),
        ("connect4", "width=4,height=4"), ("teeko", "size=3,pieces=3")]
# strings classes of variants too big for CI: (gsolve game, small variant) walked instead
SMALL = {autogui.BaghChal: ("baghchal", None), autogui.Quarto: ("quarto", None)}


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    root = tmp_path_factory.mktemp("uwapi") / "db"
    for game, variant in SOLVED:
        solver.solve(game, variant=variant, db=root)
    return root


@pytest.fixture(scope="module")
def client(db):
    return create_app(db).test_client()


def get(client, path, status=200):
    r = client.get(path)
    assert r.status_code == status, r.get_data(as_text=True)
    assert r.mimetype == "application/json"
    return r.get_json()


def classic(client, game, variant, position):
    r = client.get(f"/{game}/{variant}/positions/", query_string={"p": position})
    assert r.status_code == 200, r.get_data(as_text=True)
    return r.get_json()


def one(client, game, variant, position):
    from urllib.parse import quote

    return get(client, f"/{game}/{variant}/{quote(position)}")


def check_shape(data, protocol):
    top, move = (ONE_TOP, ONE_MOVE) if protocol == uwapi.ONE else (CLASSIC_TOP, CLASSIC_MOVE)
    assert list(data) == [k for k in top if k != "remoteness" or "remoteness" in data]
    assert data["positionValue"] in ("win", "lose", "tie", "draw")
    assert AUTOGUI_POSITION.fullmatch(data["autoguiPosition"]), data["autoguiPosition"]
    for m in data["moves"]:
        assert list(m) == [k for k in move if k != "remoteness" or "remoteness" in m]
        assert AUTOGUI_MOVE.fullmatch(m["autoguiMove"]), m["autoguiMove"]
        assert AUTOGUI_POSITION.fullmatch(m["autoguiPosition"])
        if m["positionValue"] != "draw" or protocol == uwapi.ONE:
            assert isinstance(m["remoteness"], int)
    if protocol == uwapi.ONE:
        assert data["partMoves"] == []


# -- the providers' strings, as their C sources write them ----------------------------------
def test_tictactoe_as_gamesman_classic(client):
    assert get(client, "/ttt/3/start/") == {"autoguiPosition": "1_---------",
                                           "position": "1_---------"}
    data = classic(client, "ttt", "3", "1_---------")
    check_shape(data, uwapi.CLASSIC)
    assert (data["positionValue"], data["remoteness"]) == ("tie", 9)
    assert [m["move"] for m in data["moves"]] == [str(i) for i in range(9, 0, -1)]
    assert data["moves"][0] == {"autoguiPosition": "2_--------x", "position": "2_--------x",
                                "positionValue": "tie", "remoteness": 8, "move": "9",
                                "autoguiMove": "A_x_8_-"}
    data = classic(client, "ttt", "3", "2_x---o---x")  # X--/-O-/--X less one O: O to move
    assert data["moves"] == [] or data["moves"][0]["autoguiMove"].startswith("A_o_")


def test_quixo_as_gamesman_one(client):
    assert get(client, "/quixo/2/") == {"position": "1_---------",
                                       "autoguiPosition": "1_BBBBBBBBB"}
    data = one(client, "quixo", "2", "1_---------")
    check_shape(data, uwapi.ONE)
    # GamesmanOne lists each direction's i-th source in turn: R, L, D, U
    assert [m["move"] for m in data["moves"][:8]] == ["1 R", "2 L", "1 D", "4 U",
                                                      "2 R", "3 L", "2 D", "6 U"]
    first = data["moves"][0]
    assert first["position"] == "2_--X------"
    assert first["autoguiPosition"] == "2_BBXBBBBBB"
    assert first["autoguiMove"] == "M_0_9_x"  # cell 0, R: the arrow's end in block 1
    assert data["moves"][1]["autoguiMove"] == "M_1_19_x"  # cell 1, L: block 2
    assert data["moves"][3]["autoguiMove"] == "M_3_39_x"  # cell 3, U: block 4
    assert len(data["moves"]) == 4 * 2 + 4 * 3  # corners push two ways, edges three


def test_hexapawn_as_gamesman_classic(client):
    assert get(client, "/hexapawn/0/start/")["position"] == "1_BBB---WWW"
    data = classic(client, "hexapawn", "0", "1_BBB---WWW")
    check_shape(data, uwapi.CLASSIC)
    assert (data["positionValue"], data["remoteness"]) == ("lose", 6)
    # from the last cell back; columns lettered to end at z, rows from Black's side
    assert [(m["move"], m["autoguiMove"]) for m in data["moves"]] == [
        ("z3z2", "M_8_5_x"), ("y3y2", "M_7_4_x"), ("x3x2", "M_6_3_x")]
    assert data["moves"][0]["position"] == "2_BBB--WWW-"
    data = classic(client, "hexapawn", "0", "1_BB--B-W-W")
    assert ("x3y2", "M_6_4_y") in [(m["move"], m["autoguiMove"]) for m in data["moves"]]


def test_connect4_and_teeko_strings(db):
    """The table's Connect-4 (6x6, 6x7) and Teeko (5x5) are too big to solve here: the
    same strings classes on small boards."""
    c4 = solver.open("connect4", "width=4,height=4", db=db)
    s = autogui.Connect4(c4.game)
    data = uwapi.position_data(uwapi.CLASSIC, s, c4, "1_" + "-" * 16)
    assert [(m["move"], m["autoguiMove"]) for m in data["moves"]] == [
        ("1", "M_16_20_x"), ("2", "M_17_21_x"), ("3", "M_18_22_x"), ("4", "M_19_23_x")]
    # column by column from the left, each from the top
    assert data["moves"][1]["position"] == "2_-------X--------"
    assert s.to_gsolve("1_---X---O--------") == "----/----/----/XO--"
    tk = solver.open("teeko", "size=3,pieces=3", db=db)
    t = autogui.Teeko(tk.game)
    data = uwapi.position_data(uwapi.ONE, t, tk, "1_---------")
    assert [(m["move"], m["autoguiMove"]) for m in data["moves"][:2]] == [
        ("0", "A_-_0_y"), ("1", "A_-_1_y")]
    assert data["moves"][0]["position"] == data["moves"][0]["autoguiPosition"] == "2_X--------"
    moving = "2_XOXO--X-O"  # no line: O to step
    data = uwapi.position_data(uwapi.ONE, t, tk, moving)
    steps = [m["move"] for m in data["moves"]]
    assert steps == sorted(steps, key=lambda m: tuple(map(int, m.split())))
    assert "1 4" in steps and any(m["autoguiMove"] == "M_1_4_x" for m in data["moves"])


def test_baghchal_as_gamesman_classic():
    """UWAPI's Bagh-Chal (Classic's variant 5, 5x5) is too big to solve here: its strings,
    written out from GamesmanClassic's src/mbaghchal.c, on the 5x5 game's own moves."""
    e = uwapi.BY_PROVIDER[("baghchal", "5")]
    g = get_game(e.game, e.variant)
    b = e.strings(g)
    # setOption (lines 1176-1186): tigers on the corners, 20 goats in hand, none captured;
    # PositionToAutoGUIString (1634-1647): turn 1 (GOAT), 25 cells, "20", "00"
    start = "1_T---T---------------T---T2000"
    assert uwapi.start_data(uwapi.CLASSIC, b, g) == {"autoguiPosition": start,
                                                    "position": start}
    assert b.to_gsolve(start) == g.to_string(g.start)

    def listed(pos):
        gs = b.to_gsolve(pos)
        assert b.position(gs) == pos
        h = g.from_string(gs)
        return [b.move(gs, name, g.to_string(c))
                for name, c in sorted(g.moves(h), key=lambda m: b.order(m[0]))]

    # GenerateMoves (807-833) prepends: cell 24 first (a tiger), so 23 'd1' (MoveToString,
    # 1406-1419: column from 'a', row 5 - x + 1), 22 'c1', 21 'b1', then 19 'e2'
    assert listed(start)[:4] == [("d1", "A_-_23_g"), ("c1", "A_-_22_g"),
                                 ("b1", "A_-_21_g"), ("e2", "A_-_19_g")]
    assert len(listed(start)) == 21
    # a goat on cell 6 (b4), 19 in hand, tigers to move: cells 24, 20, 4, 0 in turn, each
    # cell's lines by neighbour descending (diagMoveMatrix5, 474-576); the tiger on 0
    # jumps 6 to 12 ('a5c3', M_0_12_t, 1649-1666)
    tigers = listed("2_T---T-G-------------T---T1900")
    assert [m for m, _ in tigers] == ["e1d1", "e1e2", "e1d2", "a1b1", "a1b2", "a1a2",
                                      "e5e4", "e5d4", "e5d5", "a5c3", "a5a4", "a5b5"]
    assert tigers[9][1] == "M_0_12_t" and tigers[0][1] == "M_24_23_t"
    after = b.position(g.to_string(dict(g.moves(g.from_string(
        b.to_gsolve("2_T---T-G-------------T---T1900"))))["a5xc3"]))
    assert after == "1_----T-------T-------T---T1901"  # goats to move, one captured
    with pytest.raises(PositionError):
        b.to_gsolve("1_T---T---------------T---T20")  # the counts are two digits each


def test_quarto_as_gamesman_classic():
    """UWAPI's Quarto (Classic's 0, 4x4, 16 pieces) is too big to solve here: its strings,
    written out from GamesmanClassic's src/core/quartodb.c, on the 4x4 game's own moves."""
    e = uwapi.BY_PROVIDER[("quarto", "0")]
    g = get_game(e.game, e.variant)
    q = e.strings(g)
    start = "1_" + "-" * 17  # mquarto.c 313-316: 16 cells and no piece to place
    assert uwapi.start_data(uwapi.CLASSIC, q, g) == {"autoguiPosition": start,
                                                    "position": start}

    def listed(pos):
        gs = q.to_gsolve(pos)
        assert q.position(gs) == pos
        h = g.from_string(gs)
        return [(*q.move(gs, name, g.to_string(c)), q.position(g.to_string(c)))
                for name, c in sorted(g.moves(h), key=lambda m: q.order(m[0]))]

    # quartodb.c 660-666: the first move gives piece i: '2_' + 16 '-' + 'A'+i,
    # button A_<letter>_<272+i>, move its 4 bits
    first = listed(start)
    assert first[:2] == [("0000", "A_A_272", "2_----------------A"),
                         ("0001", "A_B_273", "2_----------------B")]
    assert first[-1] == ("1111", "A_P_287", "2_----------------P") and len(first) == 16
    # 667-692: place the piece in hand on each empty slot, give each piece left (by slot,
    # then piece): 'slot+1-bits', A_<given>_<16 + 16 slot + given>
    moves = listed("2_----------------F")
    assert len(moves) == 16 * 15
    assert moves[0] == ("1-0000", "A_A_16", "1_F---------------A")
    assert moves[15] == ("2-0000", "A_A_32", "1_-F--------------A")  # slot 2 after F's 15
    # 693-705: a placement that completes a line is listed once, 'slot+1', A_-_<slot>
    # (pieces A, B, C, D share the attribute of bit 3, 0: a fourth in the top row wins)
    near = listed("1_ABC-------------D")  # 3 placed + 1 given: 4 moves made, player 1
    assert ("4", "A_-_3", "2_ABCD-------------") in near
    assert sum(m[0].startswith("4") for m in near) == 1
    with pytest.raises(PositionError):
        q.to_gsolve("2_ABC-------------D")  # the turn does not match the pieces


# -- every position of a random walk: children as `gsolve query` says ----------------------
@pytest.mark.parametrize("url", URLS, ids=[f"{g}-{v}" for g, v in URLS])
@pytest.mark.parametrize("protocol", [uwapi.CLASSIC, uwapi.ONE])
def test_walk_children_answer_as_query(url, protocol, client, db):
    game_id, variant_id = url
    name, variant, cls = uwapi.resolve(game_id, variant_id)
    solved = solver.open(name, variant or None, db=db)
    ask = one if protocol == uwapi.ONE else classic
    start = "/start/" if protocol == uwapi.CLASSIC else "/"
    walk(lambda p: ask(client, game_id, variant_id, p), cls(solved.game), solved, protocol,
         get(client, f"/{game_id}/{variant_id}{start}")["position"])


@pytest.mark.parametrize("cls", SMALL, ids=[c.__name__ for c in SMALL])
def test_walk_children_answer_as_query_small_boards(cls, db):
    """The strings classes of variants too big to solve here, on a small board of the
    same game (the provider's format on that board), through position_data."""
    game, variant = SMALL[cls]
    solved = solver.open(game, variant, db=db)
    strings = cls(solved.game)
    walk(lambda p: uwapi.position_data(uwapi.CLASSIC, strings, solved, p), strings, solved,
         uwapi.CLASSIC, uwapi.start_data(uwapi.CLASSIC, strings, solved.game)["position"],
         steps=30)


def walk(ask, strings, solved, protocol, pos, steps=12):
    """A random walk from pos: each position answers as `gsolve query` does, both ways
    through the strings, and so does every move's child, asked itself."""
    rng = random.Random(47)
    for _ in range(steps):
        data = ask(pos)
        check_shape(data, protocol)
        gs = strings.to_gsolve(pos)
        assert strings.position(gs) == pos  # both ways
        info = solved.query(gs)
        assert data["positionValue"] == info.value
        assert data.get("remoteness") == (0 if info.value == "draw" and protocol == uwapi.ONE
                                          else info.remoteness)
        want = {m.position: (m.value, m.remoteness) for m in info.moves}
        assert len(data["moves"]) == len(info.moves)
        for m in data["moves"]:
            child = strings.to_gsolve(m["position"])
            assert child in want
            value, rem = want[child]
            assert m["positionValue"] == value
            if value != "draw":
                assert m["remoteness"] == rem
            again = ask(m["position"])  # the child itself
            assert (again["positionValue"], again.get("remoteness")) == (
                m["positionValue"], m.get("remoteness"))
        if not data["moves"]:
            break
        pos = rng.choice(data["moves"])["position"]


@pytest.mark.skipif(not SLOW, reason="set GSOLVE_SLOW=1 (solves Quixo 4x4: 10 to 60 s)")
def test_quixo_4x4_start_wins_in_21_with_32_moves(tmp_path):
    from solver.command.cli import main

    assert main(["quixo", "-V", "size=4", "--method", "tiers", "--symmetry",
                 "--db", str(tmp_path)]) == 0
    c = create_app(tmp_path).test_client()
    start = get(c, "/quixo/1/")
    assert start == {"position": "1_" + "-" * 16, "autoguiPosition": "1_" + "B" * 16}
    data = get(c, "/quixo/1/" + start["position"])
    check_shape(data, uwapi.ONE)
    assert (data["positionValue"], data["remoteness"]) == ("win", 21)
    assert len(data["moves"]) == 32
    wins = [m for m in data["moves"] if m["positionValue"] == "lose"]
    assert wins and min(m["remoteness"] for m in wins) == 20


# -- requests that must fail, as JSON -------------------------------------------------------
def test_unreachable_and_bad_positions(client):
    data = classic(client, "ttt", "3", "1_xxxooo---")  # both lines: the start cannot lead here
    assert (data["positionValue"], data["remoteness"]) == ("undecided", 0)
    assert get(client, "/ttt/3/positions/?p=1_xxxx", 400)["error"]
    assert "turn" in get(client, "/ttt/3/positions/?p=2_---------", 400)["error"]
    assert get(client, "/ttt/3/positions/", 400)["error"]  # no position
    assert get(client, "/quixo/2/1_XXXXXXXXX", 400)["error"]
    assert "solve it first" in get(client, "/quixo/1/", 400)["error"]
    assert get(client, "/nosuchgame/0/start/", 400)["error"]
    assert get(client, "/nothing-here", 404)["error"]
    assert "unknown game" in get(client, "/no/such/url/at/all", 400)["error"]
    assert get(client, "/ttt/3/positions/?p=" + "x" * 5000, 400)["error"]


def test_bad_requests_are_json_4xx(client):
    bad = [{"game": "tictactoe", "positions": [1]},
           {"game": "tictactoe", "positions": [None, ["---/---/---"]]},
           {"game": "tictactoe", "variant": {"a": 1}, "positions": ["---/---/---"]},
           {"game": 5, "positions": []},
           {"game": "tictactoe", "variant": "x" * 10_000, "positions": []},
           {"game": "tictactoe", "positions": ["---/---/---"] * 10_001}]
    for body in bad:
        r = client.post("/api/query", json=body)
        assert r.status_code == 400 and r.mimetype == "application/json", body
        assert r.get_json()["error"]
    r = client.post("/api/query", data=b"[" * 100_000, content_type="application/json")
    assert r.status_code == 400 and r.get_json()["error"]  # nested past Python's stack
    r = client.post("/api/query", data=b"x" * (5 << 20), content_type="application/json")
    assert r.status_code == 413 and r.get_json()["error"]
    r = client.post("/")
    assert r.status_code == 405 and r.get_json()["error"]
    r = client.get("/api/query?game=hexapawn&variant=width=3,height=3,width=4")
    assert r.status_code == 400 and "twice" in r.get_json()["error"]


def test_variant_spellings_share_one_game(db):
    app = create_app(db)
    c, dbs = app.test_client(), app.config["databases"]
    spellings = ["width=3,height=3", "height=3,width=3", " width=3 , height=3 ", "",
                 "default", "width=3", "height=3"]
    answers = {c.get("/api/query", query_string={"game": "hexapawn", "variant": v}).data
               for v in spellings}
    assert len(answers) == 1
    assert list(dbs._games) == [("hexapawn", "width=3,height=3")]
    assert list(dbs._open) == [("hexapawn", "width=3,height=3")]
    for i in range(KEEP + 3):  # variants without a database build no game object
        assert c.get(f"/api/query?game=connect4&variant=width=7,height=7,connect={i % 7 + 1}"
                     ).status_code == 400
    assert list(dbs._games) == [("hexapawn", "width=3,height=3")]


def test_caches_keep_the_most_recently_used(db, monkeypatch):
    from solver.use import serve

    monkeypatch.setattr(serve, "KEEP", 2)
    app = create_app(db)
    c, dbs = app.test_client(), app.config["databases"]
    for game, variant in SOLVED:
        assert c.get("/api/query", query_string={"game": game, "variant": variant or ""}
                     ).status_code == 200
    assert len(dbs._games) == len(dbs._open) == 2
    assert [k[0] for k in dbs._open] == [game for game, _ in SOLVED[-2:]]


def test_plain_autogui_for_other_games(client):
    """A game UWAPI does not list answers under gsolve's names and strings, with one
    AutoGUI character per cell and the turn changing with the mover."""
    start = get(client, "/tictactoe/default/start/")
    assert start == {"autoguiPosition": "1_---------", "position": "---/---/---"}
    data = classic(client, "tictactoe", "default", "X--/-O-/--X")
    check_shape(data, uwapi.CLASSIC)
    assert data["autoguiPosition"] == "2_X---O---X"
    assert {m["autoguiPosition"][0] for m in data["moves"]} == {"1"}
    assert data["moves"][0]["autoguiMove"] == "A_-_1_-"
    g = get_game("hexapawn")
    p = autogui.Plain(g)
    assert p.autogui("BBB/-W-/W-W b") == "2_BBB-W-W-W"
    assert p.move("BBB/---/WWW w", "a1-a2", "BBB/W--/-WW b")[1] == "M_6_3_x"


# -- the HTTP layer (solver/use/http.py) on a real socket -----------------------------------
@pytest.fixture(scope="module")
def port(db):
    import threading

    from solver.use.serve import make_server

    server = make_server(db, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_port
    server.shutdown()
    server.server_close()


def exchange(port, data: bytes, answers: int = 1):
    """Sends raw bytes; reads `answers` responses (status, headers, body) and whether the
    server then closed the connection."""
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(data)
        f = s.makefile("rb")
        out = []
        for _ in range(answers):
            status = int(f.readline().split()[1])
            headers = {}
            while (line := f.readline()) not in (b"\r\n", b""):
                k, _, v = line.decode().partition(":")
                headers[k.lower()] = v.strip()
            n = int(headers.get("content-length", 0))
            out.append((status, headers, f.read(n) if "HEAD" not in data[:5].decode() else b""))
        s.settimeout(5)
        closed = f.read(1) == b""
    return out, closed


def test_keep_alive_answers_as_the_test_client(port, client):
    paths = ["/ttt/3/positions/?p=2_x--------", "/quixo/2/1_---------", "/api/query?game=ttt"]
    ask = b"".join(f"GET {p} HTTP/1.1\r\nHost: x\r\n\r\n".encode() for p in paths)
    got, closed = exchange(port, ask + b"GET /ttt/3/start/ HTTP/1.1\r\nConnection: close\r\n\r\n",
                           len(paths) + 1)
    assert closed and [g[0] for g in got] == [200, 200, 400, 200]
    for (_, headers, body), p in zip(got, paths, strict=False):  # one connection
        assert body == client.get(p).data and headers["content-type"] == "application/json"
        assert "connection" not in headers
    assert got[-1][1]["connection"] == "close"
    got, closed = exchange(port, b"GET /ttt/3/start/ HTTP/1.0\r\n\r\n")  # 1.0: one answer
    assert closed and got[0][0] == 200
    got, _ = exchange(port, b"HEAD /ttt/3/start/ HTTP/1.1\r\nConnection: close\r\n\r\n")
    assert got[0][0] == 200 and got[0][2] == b""
    assert int(got[0][1]["content-length"]) == len(client.get("/ttt/3/start/").data)


@pytest.mark.parametrize("ask,status", [
    (b"GARBAGE\r\n\r\n", 400),
    (b"GET /ttt/3/start/ HTTP/2.0\r\n\r\n", 505),
    (b"GET /" + b"x" * 70_000 + b" HTTP/1.1\r\n\r\n", 414),
    (b"GET / HTTP/1.1\r\n" + b"X-A: b\r\n" * 101 + b"\r\n", 431),
    (b"GET / HTTP/1.1\r\nno colon\r\n\r\n", 400),
    (b"POST /api/query HTTP/1.1\r\nContent-Length: x\r\n\r\n", 400),
    (b"POST /api/query HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 411),
    (b"POST /api/query HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n", 413),  # body never sent
])
def test_bad_requests_are_json_and_close(port, ask, status):
    got, closed = exchange(port, ask)
    assert got[0][0] == status and closed
    assert got[0][1]["content-type"] == "application/json" and json_error(got[0][2])


def json_error(body: bytes) -> str:
    import json

    return json.loads(body)["error"]


def test_routes_as_werkzeugs(client):
    """A path that would match with a slash at its end redirects there; the static files
    stay inside their folder; a route asked with another method says which it takes."""
    r = client.get("/ttt/3/start")
    assert r.status_code == 308 and r.headers["Location"] == "/ttt/3/start/"
    assert client.get("/ttt/3/positions?p=1_---------").headers["Location"] == (
        "/ttt/3/positions/?p=1_---------")
    assert client.get("/ttt/3/positions?p=1_x%20y&p=2").headers["Location"] == (
        "/ttt/3/positions/?p=1_x%20y&p=2")  # the query as it came
    assert client.get("/t\u00e9/3/start").headers["Location"] == "/t%C3%A9/3/start/"
    assert client.get("/ttt/3/1_---------").status_code == 200  # a GamesmanOne position
    for bad in ("/static/../serve.py", "/static/%2e%2e/serve.py", "/static/", "/static/x.js"):
        assert client.get(bad).status_code == 404, bad
    r = client.get("/static/app.js")
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/javascript")
    r = client.post("/ttt/3/start/")
    assert r.status_code == 405 and r.headers["Allow"] == "GET, HEAD"


def test_serve_stops_on_a_signal_with_one_line(db):
    """`gsolve serve` (its worker processes too) ends on Ctrl-C or SIGTERM with one line
    and the command's status for it."""
    import signal
    import subprocess
    import sys
    import urllib.request

    for sig, line, code in ((signal.SIGINT, "gsolve: interrupted", 130),
                            (signal.SIGTERM, "gsolve: terminated", 143)):
        proc = subprocess.Popen([sys.executable, "-m", "solver", "serve", "--port", "0",
                                 "--db", str(db)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        try:
            port = int(proc.stdout.readline().split("http://127.0.0.1:", 1)[1].split("/")[0])
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/ttt/3/start/",
                                        timeout=30) as r:
                assert r.status == 200
            proc.send_signal(sig)
            assert proc.wait(30) == code
            assert proc.stderr.read().strip().splitlines() == [line]
        finally:
            proc.kill()
            proc.wait()
