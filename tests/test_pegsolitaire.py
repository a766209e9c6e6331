"""Peg solitaire end to end, against the independent reference solver, the plain-Python
English-board rules of tests/ref_puzzles.py, and the seed document's Triangle Game."""

import functools
import json
import random
from collections import deque

import numpy as np
import pytest
import reference
from click.testing import CliRunner
from ref_puzzles import PegSolitaireEnglish

import games.pegsolitaire as peg_mod
from games import get_game
from games.base import PositionError, VariantError
from solver.api import Solved
from solver.cli import cli
from solver.solve import applicable_methods, solve

WORD = {1: "lose", 4: "win"}
METHODS = applicable_methods(get_game("pegsolitaire"))

# The seed document's table of legal moves (from, over, to) for the 5-row triangle, cells
# 0..14 in reading order. Its first entry reads {0,1,9}: a typo for {0,1,3} (0 -> 9 is no
# line of the board, and 0-1-3 is otherwise missing); everything else is as printed.
SEED_MOVES = [
    (0, 1, 3), (0, 2, 5), (1, 3, 6), (1, 4, 8), (2, 4, 7), (2, 5, 9),
    (3, 1, 0), (3, 4, 5), (3, 7, 12), (3, 6, 10), (4, 7, 11),
    (4, 8, 13), (5, 2, 0), (5, 4, 3), (5, 8, 12), (5, 9, 14),
    (6, 3, 1), (6, 7, 8), (7, 4, 2), (7, 8, 9), (8, 4, 1), (8, 7, 6),
    (9, 5, 2), (9, 8, 7), (10, 6, 3), (10, 11, 12), (11, 7, 4),
    (11, 12, 13), (12, 7, 3), (12, 8, 5), (12, 11, 10), (12, 13, 14),
    (13, 12, 11), (13, 8, 4), (14, 13, 12), (14, 9, 5),
]
# Its 3-row example: "(1) 3-1-0, (2) 0-1-3, (3) 5-2-0, (4) 0-2-5, (5) 3-4-5, (6) 5-4-3"
SEED_SMALL_MOVES = [(3, 1, 0), (0, 1, 3), (5, 2, 0), (0, 2, 5), (3, 4, 5), (5, 4, 3)]


def cell_rc(index):
    r = 0
    while index > r:
        index -= r + 1
        r += 1
    return r, index


def ref_triangle(rows, hole):
    return reference.PegSolitaireTriangle(rows, cell_rc(hole))


@functools.cache
def ref_table(rows, hole):
    return reference.solve(ref_triangle(rows, hole))


def forward_counts(refgame):
    """Paths from the start to every reachable position (plain Python, reference rules)."""
    prim, kids = reference.build_graph(refgame)
    ways = {s: 0 for s in prim}
    ways[refgame.start()] = 1
    for s in sorted(prim, key=lambda s: -s.count("X")):  # each jump removes one peg
        for c in kids[s]:
            ways[c] += ways[s]
    return prim, ways


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("rows,hole", [(3, 0), (4, 0), (4, 1), (5, 0), (5, 3), (5, 12)])
def test_every_reachable_position_matches_reference(method, rows, hole, tmp_path):
    game = get_game("pegsolitaire", {"rows": rows, "hole": hole})
    ref = ref_table(rows, hole)
    result = solve(game, method, root=tmp_path)
    assert result.positions == len(ref)
    solved = Solved(game, tmp_path)
    values = solved.db.value_array[:]
    rems = solved.db.remoteness_array[:]
    for i, (position, (value, rem)) in enumerate(ref.items()):
        h = game.from_string(position)
        assert (int(values[h]), int(rems[h])) == (value, rem), position
        if i % 25 == 0:  # the query API too, on a sample
            info = solved.query(position)
            assert info.value == WORD[value]
            assert info.remoteness == (rem if value == 4 else None)
    assert int((values != 0).sum()) == len(ref)


def test_default_triangle_known_numbers(tmp_path):
    game = get_game("pegsolitaire")
    assert game.variant == {"board": 0, "rows": 5, "hole": 0}
    assert game.to_string(game.start) == "-/XX/XXX/XXXX/XXXXX"
    result = solve(game, root=tmp_path)
    assert (result.start_value, result.start_remoteness) == ("win", 13)
    assert result.positions == 3016
    s = Solved(game, tmp_path)
    assert {m.move for m in s.query().moves} == {"3-1-0", "5-2-0"}
    # one peg: a win; two pegs apart: a dead end; two pegs with a jump left: win in 1
    assert s.query("-/--/---/----/--X--").value == "win"
    one = s.query("X/--/---/----/-----")
    assert (one.value, one.remoteness, one.moves) == ("win", 0, [])


def test_jumps_match_seed_tables():
    game = get_game("pegsolitaire")
    assert sorted(map(tuple, game.jumps.tolist())) == sorted(SEED_MOVES)
    assert len(game.jumps) == 36
    small = get_game("pegsolitaire", {"rows": 3})
    assert sorted(map(tuple, small.jumps.tolist())) == sorted(SEED_SMALL_MOVES)


@pytest.mark.parametrize("rows,hole", [(5, 0), (5, 4), (4, 1)])
def test_paths_and_end_cells_match_reference(rows, hole, tmp_path):
    game = get_game("pegsolitaire", {"rows": rows, "hole": hole})
    refgame = ref_triangle(rows, hole)
    from solver.analysis import count_paths
    assert count_paths(game) == reference.count_paths(refgame)
    prim, ways = forward_counts(refgame)
    by_cell = [0] * game.ncells
    dead = {}
    for s, v in prim.items():
        if v == 4:
            by_cell["".join(s.split("/")).index("X")] += ways[s]
        elif v == 1:
            dead.setdefault(s.count("X"), []).append(s)
    most = max(dead)
    got = peg_mod.walk_paths(game.ctx, game.start, game.max_children, game.scratch_size)
    g_cells, totals, pegs, count, paths, example, overflow = got
    assert not overflow
    assert [int(x) for x in g_cells] == by_cell
    assert int(totals[0]) == sum(ways[s] for s, v in prim.items() if v == 4)
    assert int(totals[1]) == sum(ways[s] for s, v in prim.items() if v == 1)
    assert int(pegs) == most and int(count) == len(dead[most])
    assert int(paths) == sum(ways[s] for s in dead[most])
    assert game.to_string(int(example)) in dead[most]


def test_triangle_answers_to_the_seed_questions(tmp_path):
    game = get_game("pegsolitaire")
    solve(game, root=tmp_path)
    extras = game.analysis_extras(Solved(game, tmp_path))
    assert extras["sequences"] == {"win": 29760, "lose": 538870}
    assert extras["win_sequences_by_last_peg"] == {"0": 6816, "6": 3408, "9": 3408,
                                                   "12": 16128}
    assert extras["max_dead_end_pegs"] == 8
    assert extras["max_dead_end_example"] == "-/--/XXX/----/XXXXX"
    assert extras["fewest_jumps_to_dead_end"] == 6
    assert not extras["counts_overflowed"]


def test_analyze_command(tmp_path):
    runner = CliRunner()
    db = str(tmp_path / "db")
    assert runner.invoke(cli, ["pegsolitaire", "--db", db]).exit_code == 0
    r = runner.invoke(cli, ["analyze", "pegsolitaire", "--db", db, "--paths"])
    assert r.exit_code == 0, r.output
    assert "win 29,760, lose 538,870" in r.output
    assert "last peg can end in cells 0, 6, 9, 12" in r.output
    assert "most pegs left with no jump: 8" in r.output
    r = runner.invoke(cli, ["analyze", "pegsolitaire", "--db", db, "--paths", "--json"])
    report = json.loads(r.output)
    assert report["paths"] == {"win": 29760, "lose": 538870}
    assert report["max_dead_end_pegs"] == 8


def test_tiers_and_numbering():
    big = get_game("pegsolitaire")
    assert big.hash_size == 2 ** 15 - 2
    for h in range(0, big.hash_size, 7):
        assert big.from_string(big.to_string(h)) == h
    game = get_game("pegsolitaire", "rows=4")
    tiers = game.tiers()
    assert game.hash_size == 2 ** 10 - 2
    assert tiers[0].start == 0 and tiers[-1].stop == game.hash_size
    assert all(a.stop == b.start for a, b in zip(tiers, tiers[1:], strict=False))
    out = np.empty(game.max_children, np.int64)
    codes = np.empty(game.max_children, np.int64)
    scratch = np.empty(game.scratch_size, np.int8)
    parents_of = {h: set() for h in range(game.hash_size)}
    for i, t in enumerate(tiers):
        assert t.label == (f"{i + 1} pegs" if i else "1 peg")
        assert t.children == ((i - 1,) if i else ())
        for h in range(t.start, t.stop):
            assert game.to_string(h).count("X") == i + 1
            assert game.from_string(game.to_string(h)) == h
            if peg_mod.primitive(game.ctx, h, scratch):
                continue
            n = peg_mod.children(game.ctx, h, out, codes, scratch)
            assert n >= 1
            for c in out[:n]:
                assert tiers[i - 1].start <= c < tiers[i - 1].stop
                parents_of[int(c)].add(h)
    for h in range(game.hash_size):
        n = peg_mod.parents(game.ctx, h, out, scratch)
        got = [int(x) for x in out[:n]]
        assert len(got) == len(set(got))
        assert set(got) == parents_of[h]


def test_strings_and_variants():
    game = get_game("pegsolitaire")
    for bad in ["-/XX/XXX/XXXX", "-/XX/XXX/XXXX/XXXX", "-/XX/XXX/XXXX/XXXXO",
                "-/--/---/----/-----", "X/XX/XXX/XXXX/XXXXX", ""]:
        with pytest.raises(PositionError):
            game.from_string(bad)
    assert get_game("pegsolitaire", "hole=-1").variant_key == game.variant_key
    assert get_game("pegsolitaire", "rows=6,hole=20").to_string(
        get_game("pegsolitaire", "rows=6,hole=20").start) == "X/XX/XXX/XXXX/XXXXX/XXXXX-"
    for bad in ["rows=3,hole=6", "board=1,rows=5", "board=2", "hole=33"]:
        with pytest.raises(VariantError):
            get_game("pegsolitaire", bad)


def test_english_board_rules_match_reference():
    game = get_game("pegsolitaire", "board=1")
    assert game.variant == {"board": 1, "rows": 7, "hole": 16}
    assert get_game("pegsolitaire", "board=1,hole=16").variant_key == game.variant_key
    assert game.hash_size == 2 ** 33 - 2
    tiers = game.tiers()
    assert len(tiers) == 32 and tiers[-1].stop == game.hash_size
    ref = PegSolitaireEnglish()
    start = ref.start()
    assert start == "XXX/XXX/XXXXXXX/XXX-XXX/XXXXXXX/XXX/XXX"
    assert game.to_string(game.start) == start
    assert game.from_string("..XXX../..XXX../XXXXXXX/XXX-XXX/XXXXXXX/  XXX  /XXX") == game.start
    assert sorted(name for name, _ in game.moves(game.start)) == sorted(
        ["4-9-16", "14-15-16", "18-17-16", "28-23-16"])
    rng = random.Random(7)
    for _ in range(40):  # random play-outs: same moves, same ends, same tiers
        s = start
        while True:
            h = game.from_string(s)
            assert game.to_string(h) == s
            pegs = s.count("X")
            assert tiers[pegs - 1].start <= h < tiers[pegs - 1].stop
            assert game.primitive_value(h) == ref.primitive(s)
            if ref.primitive(s):
                break
            kids = sorted(game.to_string(c) for _, c in game.moves(h))
            assert kids == sorted(ref.children(s))
            s = rng.choice(kids)
    corner = get_game("pegsolitaire", "board=1,hole=0")
    assert corner.to_string(corner.start) == "-XX/XXX/XXXXXXX/XXXXXXX/XXXXXXX/XXX/XXX"


def test_english_end_game_by_hand():
    game = get_game("pegsolitaire", "board=1")
    # two pegs side by side at the centre: one jump each way
    s = "---/---/-------/---XX--/-------/---/---"
    names = {n for n, _ in game.moves(game.from_string(s))}
    assert names == {"16-17-18", "17-16-15"}
    q = deque(c for _, c in game.moves(game.from_string(s)))
    while q:
        assert game.primitive_value(q.popleft()) == 4
