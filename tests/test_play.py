"""`gsolve play` scripted through standard input, checked against the reference solver;
and the `solver.solve(...)` entry point of the Python API."""

import io
import json
import sys

import pytest
import reference
from checks import WORDS

import solver
from solver.command.cli import main

FLIP = {"win": "lose", "lose": "win", "tie": "tie", "draw": "draw"}
REF = {
    "hexapawn": lambda: reference.Hexapawn(3, 3),
    "tictactoe": reference.TicTacToe,
    "hanoi": lambda: reference.Hanoi(3, 3),
}
_tables: dict = {}


def ref(game):
    if game not in _tables:
        g = REF[game]()
        _tables[game] = (g, reference.solve(g))
    return _tables[game]


def ref_word(game, position):
    g, table = ref(game)
    v, r = table[position]
    shown = None if v == 2 or (g.puzzle and v == 1) else r
    return WORDS[v], shown


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    root = tmp_path_factory.mktemp("play") / "db"
    for game in ("hexapawn", "tictactoe", "hanoi"):
        solver.solve(game, db=root)
    return root


def play(capsys, monkeypatch, db, *args, stdin=""):
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(["play", *args, "--db", str(db)])
    out, err = capsys.readouterr()
    return code, out, err


def objects(out):
    return [json.loads(line) for line in out.splitlines()]


@pytest.mark.parametrize("game", ["hexapawn", "tictactoe"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_perfect_play_follows_the_reference(game, seed, db, capsys, monkeypatch):
    """Both sides perfect: every ply's value is the reference's, the remoteness falls by
    exactly one each ply, and the game ends as the start's value says."""
    code, out, _ = play(capsys, monkeypatch, db, game, "--as", "none", "--json",
                        "--seed", str(seed))
    assert code == 0
    plies, result = objects(out)[:-1], objects(out)[-1]
    start_value, start_rem = ref_word(game, plies[0]["position"])
    for i, p in enumerate(plies):
        assert p["ply"] == i
        assert (p["value"], p["remoteness"]) == ref_word(game, p["position"])
        assert p["remoteness"] == start_rem - i
        assert p["value"] == (start_value if i % 2 == 0 else FLIP[start_value])
    assert result["plies"] == start_rem == len(plies) - 1
    # hexapawn: black (second) wins in 6; tic-tac-toe: a tie in 9
    expected = {"hexapawn": ("second", "lose"), "tictactoe": (None, "tie")}[game]
    assert (result["winner"], result["result"]) == expected


@pytest.mark.parametrize("game,moves", [("tictactoe", "123456789"),
                                         ("hexapawn", ["a1-a2", "b1-b2", "c1-c2"])])
def test_scripted_human_against_perfect(game, moves, db, capsys, monkeypatch):
    """A human's move from stdin, then the computer's reply: a best move (reference)."""
    g, table = ref(game)
    for move in moves:
        code, out, _ = play(capsys, monkeypatch, db, game, "--json", "--seed", "5",
                            stdin=f"\n{move}\n")
        assert code == 0
        objs = objects(out)
        assert [o.get("by") for o in objs] == [None, "human", "computer", None]
        human, reply, result = objs[1], objs[2], objs[3]
        assert human["move"] == move and human["side"] == "first"
        for p in (human, reply):
            assert (p["value"], p["remoteness"]) == ref_word(game, p["position"])
        v, r = table[human["position"]]
        # a reference best child: the opposite value, remoteness one less
        assert table[reply["position"]] == ({4: 1, 1: 4, 3: 3}[v], r - 1)
        assert result["result"] == "quit" and result["position"] == reply["position"]


def test_undo_hints_quit_and_text(db, capsys, monkeypatch):
    code, out, _ = play(capsys, monkeypatch, db, "hexapawn", "--seed", "1",
                        stdin="b1-b2\nu\nh\nB1-B2\nq\n")
    assert code == 0
    assert "  B B B\n  - - -\n  W W W" in out          # the board is drawn
    assert "* b1-b2    lose in 6" in out               # hints: the mover's value
    assert "undone: back at ply 0" in out and "hints off" in out
    assert "moves: a1-a2 b1-b2 c1-c2" in out           # after h: names only
    assert out.rstrip().endswith("quit")
    code, out, _ = play(capsys, monkeypatch, db, "hexapawn", "--json", "--seed", "1",
                        stdin="b1-b2\nu\n")
    objs = objects(out)
    assert objs[3] == {"undo": True, "ply": 0, "position": "BBB/---/WWW w",
                       "value": "lose", "remoteness": 6}
    assert objs[-1]["result"] == "quit" and objs[-1]["plies"] == 0


def test_second_side_and_both(db, capsys, monkeypatch):
    code, out, _ = play(capsys, monkeypatch, db, "hexapawn", "--as", "second", "--json",
                        "--opponent", "random", "--seed", "4", stdin="q\n")
    objs = objects(out)
    assert objs[1]["by"] == "computer" and objs[1]["side"] == "first"
    code, out, _ = play(capsys, monkeypatch, db, "tictactoe", "--as", "both", "--json",
                        stdin="1\n2\n3\n4\n5\n6\n7\n")
    objs = objects(out)
    assert all(o["by"] == "human" for o in objs[1:-1])
    assert objs[-1]["winner"] == "first" and objs[-1]["plies"] == 7


def test_illegal_move_is_one_line_error(db, capsys, monkeypatch):
    code, out, err = play(capsys, monkeypatch, db, "hexapawn", stdin="a1-a3\n")
    assert code == 2
    assert err.count("\n") == 1 and "'a1-a3' is not a legal move" in err


def test_puzzle(db, capsys, monkeypatch):
    """Hanoi with 3 disks: the database's way takes 2^3 - 1 = 7 moves."""
    code, out, _ = play(capsys, monkeypatch, db, "hanoi", "--as", "none", "--json")
    objs = objects(out)
    assert objs[-1]["result"] == "win" and objs[-1]["plies"] == 7
    assert [(o["value"], o["remoteness"]) for o in objs[:-1]] == \
        [("win", 7 - i) for i in range(8)]
    code, out, _ = play(capsys, monkeypatch, db, "hanoi", stdin="1->2\n1->3\nq\n")
    assert code == 0 and "* 1->3     win in 7" in out and "1. move (human) 1->2" in out
    code, _, err = play(capsys, monkeypatch, db, "hanoi", "--as", "second")
    assert code == 2 and "puzzle" in err


def test_learner_opponent_learns_from_play(db, capsys, monkeypatch, tmp_path):
    brain = tmp_path / "brain.json"
    for _ in range(2):
        code, out, _ = play(capsys, monkeypatch, db, "hexapawn", "--opponent", "learner",
                            "--as", "none", "--brain", str(brain), "--json", "--seed", "3")
        assert code == 0 and objects(out)[-1]["result"] in ("win", "lose")
    saved = json.loads(brain.read_text())
    assert saved["games"] == 2 and saved["game"] == "hexapawn"
    assert set(saved["boxes"]["BBB/---/WWW w"]) == {"a1-a2", "b1-b2", "c1-c2"}
    # a box starts with one bead a move; two games (no ties here) moved some beads
    assert sum(sum(b.values()) for b in saved["boxes"].values()) != \
        sum(len(b) for b in saved["boxes"].values())
    code, _, err = play(capsys, monkeypatch, db, "tictactoe", "--opponent", "learner",
                        "--brain", str(brain))
    assert code == 2 and "learned hexapawn" in err


def test_solve_is_callable_after_import_solver(tmp_path):
    import solver as s

    r = s.solve("hexapawn", db=tmp_path)
    assert (r.start_value, r.start_remoteness, r.positions) == ("lose", 6, 135)
    import solver.methods.solve  # importing the method module leaves the function alone

    assert callable(solver.solve) and solver.solve is not solver.methods.solve
    assert solver.solve("hexapawn", db=tmp_path).reused
    assert solver.open("hexapawn", db=tmp_path).query().value == "lose"


def test_real_command_through_a_pipe(db):
    """The installed `gsolve` script, stdin a pipe (not a terminal): plain JSON lines; and
    `gsolve query`, which leaves with os._exit, still flushes everything it printed."""
    import os
    import shutil
    import subprocess

    exe = shutil.which("gsolve") or pytest.skip("no gsolve script on PATH")
    env = {**os.environ, "GSOLVE_DB": str(db)}
    out = subprocess.run([exe, "play", "hexapawn", "--json", "--seed", "1"], input="b1-b2\n",
                         capture_output=True, text=True, env=env, timeout=120)
    objs = objects(out.stdout)
    assert out.returncode == 0 and objs[1]["move"] == "b1-b2" and objs[-1]["result"] == "quit"
    g, table = ref("tictactoe")
    positions = sorted(table)[:400]
    out = subprocess.run([exe, "query", "tictactoe", "-", "--json"], capture_output=True,
                         input="\n".join(positions) + "\n", text=True, env=env, timeout=120)
    objs = objects(out.stdout)
    assert out.returncode == 0 and len(objs) == 400
    assert [(o["value"], o["remoteness"]) for o in objs] == \
        [ref_word("tictactoe", p) for p in positions]
