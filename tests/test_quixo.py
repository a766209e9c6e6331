"""Quixo against the plain-Python GamesmanOne rules of tests/ref_quixo.py."""

from __future__ import annotations

import random

import numpy as np
import pytest
import ref_quixo
import reference
from checks import assert_matches_reference

from games import quixo as qx
from games.base import LOSE, WIN, PositionError, VariantError
from games.quixo import Quixo
from solver.api import Solved
from solver.solve import applicable_methods, solve


@pytest.fixture(scope="module")
def small():
    return Quixo(size=3)


@pytest.fixture(scope="module")
def table():
    return reference.solve(ref_quixo.Quixo(3))


def _named(game, s):
    return sorted((name, game.to_string(c)) for name, c in game.moves(game.from_string(s)))


def _ref_named(ref, s):
    return [] if ref.primitive(s) else sorted(ref.moves(s))


def _parents(game, h):
    out = np.empty(game.max_parents, np.int64)
    n = qx.parents(game.ctx, h, out, np.empty(game.scratch_size, np.int8))
    return [int(x) for x in out[:n]]


@pytest.mark.parametrize("method", applicable_methods(Quixo))
def test_every_reachable_position_matches_reference(method, small, table, tmp_path):
    assert small.to_string(small.start) == ref_quixo.Quixo(3).start() == "---/---/--- x"
    res = solve(small, method, root=tmp_path)
    assert res.positions == len(table)
    assert_matches_reference(small, tmp_path, table)
    start = Solved(small, tmp_path).query()
    v, r = table[start.position]
    assert (start.value, start.remoteness) == (reference.WORDS[v], r) == ("win", 7)


def test_rules_and_unmoves_on_every_hash(small, table):
    """primitive on every hash, named moves on every 3rd reachable position and every 11th
    hash, and the un-moves of every hash are exactly the non-primitive positions with it
    among their children."""
    ref = ref_quixo.Quixo(3)
    out, codes, scratch = small._buffers()
    strings = [small.to_string(h) for h in range(small.hash_size)]
    seen: dict[int, set[int]] = {}
    for h, s in enumerate(strings):
        p = int(qx.primitive(small.ctx, h, scratch))
        assert p == ref.primitive(s), s
        if p:
            continue
        n = qx.children(small.ctx, h, out, codes, scratch)
        if (s in table and h % 3 == 0) or h % 11 == 0:
            got = sorted((small.move_name(h, int(codes[i])), strings[out[i]]) for i in range(n))
            assert got == _ref_named(ref, s), s
        for i in range(n):
            seen.setdefault(int(out[i]), set()).add(h)
    for h in range(small.hash_size):
        ps = _parents(small, h)
        assert len(ps) == len(set(ps)) <= small.max_parents
        assert set(ps) == seen.get(h, set()), strings[h]


@pytest.mark.parametrize("n", [4, 5])
def test_bigger_boards_random_positions(n):
    game, ref = Quixo(size=n), ref_quixo.Quixo(n)
    assert game.hash_size == 2 * 3 ** (n * n)
    rng = random.Random(n)
    pos = ref.start()
    for _ in range(300):  # random games: moves, primitives and un-moves along the way
        h = game.from_string(pos)
        assert game.to_string(h) == pos
        assert game.primitive_value(h) == ref.primitive(pos), pos
        assert _named(game, pos) == _ref_named(ref, pos), pos
        if ref.primitive(pos):
            pos = ref.start()
            continue
        kids = ref.children(pos)
        for c in kids:
            assert h in _parents(game, game.from_string(c)), (pos, c)
        pos = rng.choice(kids)
    for _ in range(300):  # any board
        h = rng.randrange(game.hash_size)
        s = game.to_string(h)
        assert game.primitive_value(h) == ref.primitive(s), s
        for p in _parents(game, h):
            assert s in ref.children(game.to_string(p)), (s, game.to_string(p))


def test_tiers_are_piece_counts(small):
    tiers = small.tiers()
    assert len(tiers) == 55  # (X, O) with X + O <= 9
    assert tiers[0].start == 0 and tiers[-1].stop == small.hash_size
    assert all(a.stop == b.start for a, b in zip(tiers, tiers[1:], strict=False))
    assert tiers[0].label == "0 X, 0 O"
    where = lambda h: next(i for i, t in enumerate(tiers) if t.start <= h < t.stop)  # noqa: E731
    rng = random.Random(3)
    for _ in range(2000):
        h = rng.randrange(small.hash_size)
        if small.primitive_value(h):
            continue
        s = small.to_string(h)
        for _, c in small.moves(h):
            assert where(c) in tiers[where(h)].children
            k = small.to_string(c)
            me = "X" if s.endswith("x") else "O"
            assert k.count(me) - s.count(me) in (0, 1) and k.count("-") <= s.count("-")


def test_push_mechanics_gamesmanone_names():
    game = Quixo(size=5)
    kids = dict(game.moves(game.from_string("XO---/-----/-----/-----/----- x")))
    name = {k: game.to_string(v) for k, v in kids.items()}
    # GamesmanOne "1 R": the top-left cube goes in at the right end, the row slides left
    assert name["1R"] == "O---X/-----/-----/-----/----- o"
    assert name["1D"] == "-O---/-----/-----/-----/X---- o"
    assert "1L" not in name and "1U" not in name and "2R" not in name  # O's cube: not X's
    assert len(kids) == 44 - 3  # 12n - 16 moves less the three of O's cube 2
    kids = {k: game.to_string(v) for k, v in game.moves(
        game.from_string("-----/O----/X----/-----/----- o"))}
    assert kids["6D"] == "-----/X----/-----/-----/O---- x"
    assert kids["6U"] == "O----/-----/X----/-----/----- x"
    assert kids["6R"] == "-----/----O/X----/-----/----- x"


def test_double_line_loses_for_the_pusher():
    game = Quixo(size=3)
    prim = lambda s: game.primitive_value(game.from_string(s))  # noqa: E731
    s = "OXX/XOO/--- x"
    assert prim(s) == 0
    k = {n: game.to_string(c) for n, c in game.moves(game.from_string(s))}["7U"]
    assert k == "XXX/OOO/X-- o"  # X's push made both lines: O, to move, wins
    assert prim(k) == WIN
    assert prim("XXX/-O-/O-- o") == LOSE
    assert prim("OOO/-X-/X-- o") == WIN  # X's push made only O's line
    assert prim("--O/-O-/O-X x") == LOSE
    assert prim("O--/-O-/-XO x") == LOSE


def test_parse_errors(small):
    for bad in ["", "---/---/---", "---/---/--- X", "----/---/--- x", "---/---/--Z x",
                "---/--- x", "---/---/--- o", "---/-X-/--- o", "X--/---/--- x",
                "XX-/---/--- o", "---/-O-/X-- x", "O--/---/--- x"]:
        with pytest.raises(PositionError):
            small.from_string(bad)
    assert small.to_string(small.from_string("X--/---/--- o")) == "X--/---/--- o"
    with pytest.raises(VariantError):
        Quixo(size=6)
