"""Peg solitaire end to end, against the independent reference solver, the plain-Python
English-board rules of tests/ref_puzzles.py, and the seed document's Triangle Game."""

import bisect
import functools
import json
import math
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
from solver.command.cli import cli
from solver.methods.registry import applicable_methods
from solver.methods.solve import solve
from solver.use.api import Solved

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
    from solver.use.analysis import count_paths
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
    assert tiers[-1].stop == game.hash_size
    starts = [t.start for t in tiers]
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
            assert game.toff[pegs] <= h < game.toff[pegs + 1]
            assert tiers[bisect.bisect_right(starts, h) - 1].label.startswith(f"{pegs} peg")
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


# -- the English board's numbering and tiers ---------------------------------------------

def english_tier_of(game):
    starts = [t.start for t in game.tiers()]
    return lambda h: bisect.bisect_right(starts, h) - 1


def test_english_tier_layout():
    """Hash = block offset + rank among the C(33, k) sets of k pegs; each block of k pegs
    is its Conway classes' tiers side by side, and tier (k, c) lists exactly (k-1, c^15)."""
    game = get_game("pegsolitaire", "board=1")
    tiers = game.check_tiers()
    offset = [0, 0] + list(np.cumsum([math.comb(33, k) for k in range(1, 33)]))
    assert [int(x) for x in game.toff] == offset
    by_label = {t.label: i for i, t in enumerate(tiers)}
    for k in range(1, 33):  # the block of k pegs: its classes' tiers, in class order
        mine = [t for t in tiers if t.label.startswith(f"{k} peg")]
        assert mine[0].start == offset[k] and mine[-1].stop == offset[k + 1]
        classes = [int(t.label.split("class ")[1]) for t in mine]
        assert classes == sorted(classes) and len(classes) <= 16
        for t, c in zip(mine, classes, strict=True):
            want = f"{k - 1} peg" + ("s" if k > 2 else "") + f", class {c ^ 15}"
            assert t.children == ((by_label[want],) if want in by_label else ())
    assert len(tiers) == len(by_label) == 498  # few pegs leave some classes empty
    tier_of = english_tier_of(game)
    assert tiers[tier_of(game.start)].label == "32 pegs, class 10"
    for k in (1, 2, 31, 32):  # small blocks: a bijection onto the k-peg sets
        masks = {game.unrank(h) for h in range(offset[k], offset[k + 1])}
        assert len(masks) == math.comb(33, k)
        assert all(bin(m).count("1") == k for m in masks)
    rng = random.Random(23)
    out = np.empty(game.max_children, np.int64)
    codes = np.empty(game.max_children, np.int64)
    scratch = np.empty(game.scratch_size, np.int8)
    for _ in range(3000):
        h = rng.randrange(game.hash_size)
        mask = game.unrank(h)
        k = bin(mask).count("1")
        assert offset[k] <= h < offset[k + 1] and game.rank(mask) == h
        s = game.to_string(h)
        assert s.count("X") == k and game.from_string(s) == h
        t = tier_of(h)
        assert tiers[t].label.startswith(f"{k} peg")
        assert tiers[t].label.endswith(f"class {game.peg_class(h)}")
        if peg_mod.primitive(game.ctx, h, scratch):
            continue
        n = peg_mod.children(game.ctx, h, out, codes, scratch)
        assert n >= 1
        for c in out[:n].tolist():
            assert offset[k - 1] <= c < offset[k] and tier_of(c) in tiers[t].children
        parents = np.empty(game.max_children, np.int64)
        for c in out[:n].tolist():  # every child lists h among its parents
            m = peg_mod.parents(game.ctx, c, parents, scratch)
            assert h in parents[:m].tolist()


def test_english_conformance_suite():
    """`gsolve check` on the English board: samples from the start and random slots."""
    from solver.command.check import run_checks

    game = get_game("pegsolitaire", "board=1")
    checks = run_checks(game, samples=1500, seed=3)
    assert {c.name for c in checks} >= {"contract", "round trip", "children", "child tiers",
                                        "parents"}
    for c in checks:
        assert c.ok, (c.name, c.failures)


class SmallCross(peg_mod.PegSolitaire):
    """The 21-hole cross (a 5x5 square less its corners), numbered by Conway's classes as
    the English board is: the same kind of tiers on 2^21 slots (tests only)."""

    def layout(self):
        cells = [(r, c) for r in range(5) for c in range(5) if 1 <= r <= 3 or 1 <= c <= 3]
        return cells, peg_mod.ENGLISH_DIRECTIONS, True


class RefSmallCross(PegSolitaireEnglish):
    ROWS = [(1, 3), (0, 5), (0, 5), (0, 5), (1, 3)]

    def _on_board(self, r, c):
        return 0 <= r < 5 and 0 <= c < 5 and (1 <= r <= 3 or 1 <= c <= 3)


@pytest.mark.parametrize("hole,cell", [(10, (2, 2)), (3, (1, 0))])
def test_class_tiers_agree_with_every_method(hole, cell, tmp_path):
    """Tiers by (pegs, class) write the same bytes as every other method, and match the
    reference solver, on a cross small enough for all of them."""
    game = SmallCross(board=1, hole=hole)
    assert game.ncells == 21 and game.hash_size == 2 ** 21 - 2
    ref = reference.solve(RefSmallCross(cell))
    assert game.to_string(game.start) == RefSmallCross(cell).start()
    tiers = game.check_tiers()
    assert len(tiers) > 20 and all(len(t.children) <= 1 for t in tiers)
    base = None
    for method in applicable_methods(game):
        root = tmp_path / method
        result = solve(game, method, root=root)
        assert result.positions == len(ref), method
        db = Solved(game, root).db
        got = db.value_array[:], db.remoteness_array[:]
        if base is None:
            base = got
            values, rems = got
            for position, (value, rem) in ref.items():
                h = game.from_string(position)
                assert (int(values[h]), int(rems[h])) == (value, rem), position
            assert int((values != 0).sum()) == len(ref)
        else:
            assert np.array_equal(got[0], base[0]), f"{method} values differ"
            assert np.array_equal(got[1], base[1]), f"{method} remoteness differs"
    assert "tiers" in applicable_methods(game)


def test_english_board_plans_within_4_gib():
    """`--method tiers --memory 4`: every task's window (its own range and all of its
    child tiers, the most its solve phase can read) fits the budget, whatever its reach
    finds. With one tier per peg count a task would read a whole block of 15 pegs
    (C(33, 15) = 1,037,158,320 slots, about 7 GiB of records)."""
    from solver.engine import memory
    from solver.engine.manager import check_budget
    from solver.engine.plan import BASE, GIB, plan

    game = get_game("pegsolitaire", "board=1")
    p = plan(game, 4 * GIB - BASE)
    check_budget(game, p, 4 * GIB, 1)
    slot = memory.slot_bytes(game)
    worst = max(sum(b - a for a, b in t.segments) for t in p.tasks)
    assert worst * slot + BASE < 2 * GIB
    assert worst < math.comb(33, 15) // 6
