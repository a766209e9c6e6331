"""Cambio against the plain-Python rules of tests/ref_cambio.py."""

from __future__ import annotations

import random

import checks
import pytest
import ref_cambio

from games.base import LOSE, WIN, PositionError, VariantError
from games.cambio import Cambio
from solver.methods.registry import applicable_methods

SMALL = (Cambio, {"size": 3})  # solved whole: conftest's `small` and `table`
REFERENCE = (ref_cambio.Cambio, 3)


@pytest.fixture(scope="module")
def big():
    return Cambio(size=4)


@pytest.mark.parametrize("method", applicable_methods(Cambio))
def test_every_reachable_position_matches_reference(method, small, table, tmp_path):
    checks.assert_solves_like_reference(
        small, ref_cambio.Cambio(3), method, tmp_path, table, 32027, ("win", 7))


def test_children_match_reference_everywhere(small, table):
    """Move generation (with multiplicity) of every 4th reachable position (primitives of
    every hash are checked below)."""
    ref = ref_cambio.Cambio(3)
    for i, pos in enumerate(table):
        if i % 4 == 0:
            assert checks.child_strings(small, pos) == checks.ref_children(ref, pos), pos


def test_every_hash_roundtrips_and_matches_reference(small):
    ref = ref_cambio.Cambio(3)
    assert small.hash_size == 2 * 3 ** 9
    for h in range(small.hash_size):
        pos = small.to_string(h)
        assert small.from_string(pos) == h
        assert small.primitive_value(h) == ref.primitive(pos), pos
        if h % 31 == 0:
            assert checks.child_strings(small, pos) == checks.ref_children(ref, pos), pos


def test_size4_random_positions_match_reference(big):
    ref = ref_cambio.Cambio(4)
    assert big.hash_size == 2 * 3 ** 16
    assert big.to_string(big.start) == "..../..../..../.... x"
    rng = random.Random(5)
    checks.assert_random_hashes_match(big, ref, rng, 800)
    checks.assert_playout_matches(big, ref, rng, 300)


def test_tiers_cover_the_hash_and_hold_the_moves(small):
    tiers = checks.contiguous_tiers(small)
    assert [t.label for t in tiers] == [f"{k} neutral" for k in range(9, -1, -1)]
    checks.assert_random_moves_in_child_tiers(small, tiers, random.Random(3), 2000)


def test_push_mechanics(small, big):
    # row: the top-left cube pushed in at the right end slides the top row left
    kids = checks.named_children(small, "XO./.../... x")
    assert kids["1R"] == "O.X/.../... o"
    assert kids["1B"] == ".O./.../X.. o"  # column 1: cells below slide up
    # a middle border cube: both row ends and the far column end
    kids = checks.named_children(small, "X.O/.../... o")
    assert set(kids) >= {"2L", "2R", "2B"} and "2T" not in kids
    assert kids["2L"] == "OXO/.../... x"
    assert kids["2R"] == "XOO/.../... x"
    assert kids["2B"] == "X.O/.../.O. x"
    # column: the bottom-middle cube pushed in at the top slides the column down
    kids = checks.named_children(small, ".X./.O./.X. x")
    assert kids["8T"] == ".X./.X./.O. o"
    # 4x4: a left-edge cube pushed in at the right end
    kids = checks.named_children(big, "..../XO.O/..../.... x")
    assert kids["5R"] == "..../O.OX/..../.... o"
    assert checks.named_children(big, "O.../X.../..../.... x")["5T"] == "X.../O.../..../.... o"


def test_only_own_or_neutral_border_cubes(small):
    # X to move: the O cubes on the border and the centre cube may not be taken
    names = set(checks.named_children(small, "OO./.X./... x"))
    assert not any(n.startswith(("1", "2", "5")) for n in names)
    assert {"3L", "3B", "4R", "9T"} <= names
    # a move never adds a neutral cube, and takes a neutral one at most
    for name, kid in checks.named_children(small, "O../.../... x").items():
        assert kid.count(".") == 7, name
    for name, kid in checks.named_children(small, "X../.../... x").items():
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
    k = checks.named_children(small, s)["7T"]
    assert k == "XXX/OOO/X.. o"
    assert small.primitive_value(small.from_string(k)) == WIN
    assert small.primitive_value(small.from_string("XXX/OOO/X.. x")) == WIN
    # a push making only the opponent's line loses too
    s = "..X/XX./... o"  # O pushes cube 9 in at the top of column 3: X's middle row
    k = checks.named_children(small, s)["9T"]
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
