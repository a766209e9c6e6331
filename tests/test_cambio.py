"""Cambio against the plain-Python rules of tests/ref_cambio.py."""

from __future__ import annotations

import random

import pytest
import ref_cambio
import reference
from checks import assert_matches_reference

from games.base import LOSE, WIN, PositionError, VariantError
from games.cambio import Cambio
from solver.api import Solved
from solver.solve import applicable_methods, solve

WORDS = {1: "lose", 2: "draw", 3: "tie", 4: "win"}


@pytest.fixture(scope="module")
def small():
    return Cambio(size=3)


@pytest.fixture(scope="module")
def big():
    return Cambio(size=4)


@pytest.fixture(scope="module")
def table():
    return reference.solve(ref_cambio.Cambio(3))


def _kids(game, s):
    return sorted(game.to_string(c) for _, c in game.moves(game.from_string(s)))


def _ref_kids(n, s):
    ref = ref_cambio.Cambio(n)
    return [] if ref.primitive(s) else sorted(ref.children(s))


def _named(game, s):
    return {name: game.to_string(c) for name, c in game.moves(game.from_string(s))}


@pytest.mark.parametrize("method", applicable_methods(Cambio))
def test_every_reachable_position_matches_reference(method, small, table, tmp_path):
    assert small.to_string(small.start) == ref_cambio.Cambio(3).start()
    res = solve(small, method, root=tmp_path)
    assert res.positions == len(table) == 32027
    assert_matches_reference(small, tmp_path, table)
    s = Solved(small, tmp_path)
    start = s.query()
    assert (start.value, start.remoteness) == ("win", 7)


def test_children_match_reference_everywhere(small, table):
    """Move generation (with multiplicity) of every 4th reachable position (primitives of
    every hash are checked below)."""
    for i, pos in enumerate(table):
        if i % 4 == 0:
            assert _kids(small, pos) == _ref_kids(3, pos), pos


def test_every_hash_roundtrips_and_matches_reference(small):
    ref = ref_cambio.Cambio(3)
    assert small.hash_size == 2 * 3 ** 9
    for h in range(small.hash_size):
        pos = small.to_string(h)
        assert small.from_string(pos) == h
        assert small.primitive_value(h) == ref.primitive(pos), pos
        if h % 31 == 0:
            assert _kids(small, pos) == _ref_kids(3, pos), pos


def test_size4_random_positions_match_reference(big):
    ref = ref_cambio.Cambio(4)
    assert big.hash_size == 2 * 3 ** 16
    assert big.to_string(big.start) == "..../..../..../.... x"
    rng = random.Random(5)
    for _ in range(800):
        h = rng.randrange(big.hash_size)
        pos = big.to_string(h)
        assert big.from_string(pos) == h
        assert big.primitive_value(h) == ref.primitive(pos), pos
        assert _kids(big, pos) == _ref_kids(4, pos), pos
    pos = big.to_string(big.start)
    for _ in range(300):
        if ref.primitive(pos):
            break
        assert _kids(big, pos) == _ref_kids(4, pos), pos
        pos = rng.choice(ref.children(pos))


def test_tiers_cover_the_hash_and_hold_the_moves(small):
    tiers = small.tiers()
    assert tiers[0].start == 0 and tiers[-1].stop == small.hash_size
    assert all(a.stop == b.start for a, b in zip(tiers, tiers[1:], strict=False))
    assert [t.label for t in tiers] == [f"{k} neutral" for k in range(9, -1, -1)]
    where = lambda h: next(i for i, t in enumerate(tiers) if t.start <= h < t.stop)  # noqa: E731
    rng = random.Random(3)
    for _ in range(2000):
        h = rng.randrange(small.hash_size)
        if small.primitive_value(h):
            continue
        for _, c in small.moves(h):
            assert where(c) in tiers[where(h)].children


def test_push_mechanics(small, big):
    # row: the top-left cube pushed in at the right end slides the top row left
    kids = _named(small, "XO./.../... x")
    assert kids["1R"] == "O.X/.../... o"
    assert kids["1B"] == ".O./.../X.. o"  # column 1: cells below slide up
    # a middle border cube: both row ends and the far column end
    kids = _named(small, "X.O/.../... o")
    assert set(kids) >= {"2L", "2R", "2B"} and "2T" not in kids
    assert kids["2L"] == "OXO/.../... x"
    assert kids["2R"] == "XOO/.../... x"
    assert kids["2B"] == "X.O/.../.O. x"
    # column: the bottom-middle cube pushed in at the top slides the column down
    kids = _named(small, ".X./.O./.X. x")
    assert kids["8T"] == ".X./.X./.O. o"
    # 4x4: a left-edge cube pushed in at the right end
    kids = _named(big, "..../XO.O/..../.... x")
    assert kids["5R"] == "..../O.OX/..../.... o"
    assert _named(big, "O.../X.../..../.... x")["5T"] == "X.../O.../..../.... o"


def test_only_own_or_neutral_border_cubes(small):
    # X to move: the O cubes on the border and the centre cube may not be taken
    names = set(_named(small, "OO./.X./... x"))
    assert not any(n.startswith(("1", "2", "5")) for n in names)
    assert {"3L", "3B", "4R", "9T"} <= names
    # a move never adds a neutral cube, and takes a neutral one at most
    for name, kid in _named(small, "O../.../... x").items():
        assert kid.count(".") == 7, name
    for name, kid in _named(small, "X../.../... x").items():
        assert kid.count(".") == (8 if name.startswith("1") else 7), name


def test_wins_and_double_line(small):
    # the push completes X's top row: O, to move, has lost
    assert small.primitive_value(small.from_string("XXX/.O./O.. o")) == LOSE
    # O's line made by X's push: O to move wins
    assert small.primitive_value(small.from_string("OOO/.X./X.. o")) == WIN
    # both lines after X's push: X takes the neutral bottom-left cube and pushes it in at
    # the top of column 1, making X's top row and O's middle row: the pusher X loses
    s = "OXX/XOO/... x"
    assert small.primitive_value(small.from_string(s)) == 0
    k = _named(small, s)["7T"]
    assert k == "XXX/OOO/X.. o"
    assert small.primitive_value(small.from_string(k)) == WIN
    assert small.primitive_value(small.from_string("XXX/OOO/X.. x")) == WIN
    # a push making only the opponent's line loses too
    s = "..X/XX./... o"  # O pushes cube 9 in at the top of column 3: X's middle row
    k = _named(small, s)["9T"]
    assert k == "..O/XXX/... x"
    assert small.primitive_value(small.from_string(k)) == WIN
    # diagonals count both ways
    assert small.primitive_value(small.from_string("X../.X./..X o")) == LOSE
    assert small.primitive_value(small.from_string("..O/.O./O.. x")) == LOSE


def test_parse_errors(small):
    for bad in ["", ".../.../...", ".../.../... X", "..../.../... x", ".../.../..Z x",
                ".../... x"]:
        with pytest.raises(PositionError):
            small.from_string(bad)
    with pytest.raises(VariantError):
        Cambio(size=5)
