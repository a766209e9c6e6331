"""Quixo against the plain-Python GamesmanOne rules of tests/ref_quixo.py."""

from __future__ import annotations

import random

import checks
import pytest
import ref_quixo

from games.base import LOSE, WIN, PositionError, VariantError
from games.quixo import Quixo
from solver.methods.registry import applicable_methods

SMALL = (Quixo, {"size": 3})  # solved whole: conftest's `small` and `table`
REFERENCE = (ref_quixo.Quixo, 3)


@pytest.mark.parametrize("method", applicable_methods(Quixo))
def test_every_reachable_position_matches_reference(method, small, table, tmp_path):
    assert small.to_string(small.start) == "---/---/--- x"
    checks.assert_solves_like_reference(
        small, ref_quixo.Quixo(3), method, tmp_path, table, 32027, ("win", 7))


def test_rules_and_unmoves_on_every_hash(small, table):
    """primitive on every hash, named moves on every 3rd reachable position and every 11th
    hash, and the un-moves of every hash are exactly the non-primitive positions with it
    among their children."""
    checks.assert_rules_and_unmoves_on_every_hash(
        small, ref_quixo.Quixo(3), named=lambda h, s: (s in table and h % 3 == 0) or h % 11 == 0)


@pytest.mark.parametrize("n", [4, 5])
def test_bigger_boards_random_positions(n):
    game, ref = Quixo(size=n), ref_quixo.Quixo(n)
    assert game.hash_size == 2 * 3 ** (n * n)
    rng = random.Random(n)
    checks.assert_random_games_match(game, ref, rng, 300)  # moves, primitives, un-moves
    checks.assert_random_parents_match(game, ref, rng, 300)  # any board


def test_tiers_are_piece_counts(small):
    tiers = checks.contiguous_tiers(small)
    assert len(tiers) == 55  # (X, O) with X + O <= 9
    assert tiers[0].label == "0 X, 0 O"

    def counts_grow(h, c):  # the mover's cubes grow by at most one, blanks never
        s, k = small.to_string(h), small.to_string(c)
        me = "X" if s.endswith("x") else "O"
        assert k.count(me) - s.count(me) in (0, 1) and k.count("-") <= s.count("-")

    checks.assert_random_moves_in_child_tiers(small, tiers, random.Random(3), 2000,
                                              counts_grow)


def test_push_mechanics_gamesmanone_names():
    game = Quixo(size=5)
    name = checks.named_children(game, "XO---/-----/-----/-----/----- x")
    # GamesmanOne "1 R": the top-left cube goes in at the right end, the row slides left
    assert name["1R"] == "O---X/-----/-----/-----/----- o"
    assert name["1D"] == "-O---/-----/-----/-----/X---- o"
    assert "1L" not in name and "1U" not in name and "2R" not in name  # O's cube: not X's
    assert len(name) == 44 - 3  # 12n - 16 moves less the three of O's cube 2
    kids = checks.named_children(game, "-----/O----/X----/-----/----- o")
    assert kids["6D"] == "-----/X----/-----/-----/O---- x"
    assert kids["6U"] == "O----/-----/X----/-----/----- x"
    assert kids["6R"] == "-----/----O/X----/-----/----- x"


def test_double_line_loses_for_the_pusher():
    game = Quixo(size=3)
    prim = lambda s: game.primitive_value(game.from_string(s))  # noqa: E731
    s = "OXX/XOO/--- x"
    assert prim(s) == 0
    k = checks.named_children(game, s)["7U"]
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
