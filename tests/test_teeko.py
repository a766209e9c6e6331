"""Teeko against the plain-Python GamesmanOne rules of tests/ref_teeko.py."""

from __future__ import annotations

import random

import checks
import pytest
import ref_teeko

from games.base import LOSE, PositionError, VariantError
from games.teeko import Teeko
from solver.methods.registry import applicable_methods

SMALL = (Teeko, {"size": 3, "pieces": 3})  # solved whole: conftest's `small` and `table`
REFERENCE = (ref_teeko.Teeko, 3, 3)


@pytest.mark.parametrize("method", applicable_methods(Teeko))
def test_every_reachable_position_matches_reference(method, small, table, tmp_path):
    assert small.to_string(small.start) == "---/---/--- x"
    checks.assert_solves_like_reference(
        small, ref_teeko.Teeko(3, 3), method, tmp_path, table, 5390, ("draw", None))


def test_rules_and_unmoves_on_every_hash(small):
    """primitive and named moves on every hash; the un-moves of every hash are exactly the
    non-primitive positions with it among their children."""
    checks.assert_rules_and_unmoves_on_every_hash(small, ref_teeko.Teeko(3, 3))


@pytest.mark.parametrize("v", [(4, 4, 0), (5, 4, 0), (5, 4, 1), (4, 3, 0), (5, 3, 0)])
def test_bigger_boards_random_games(v):
    """Random games to the end (moves, primitives, un-moves on the way) and random boards."""
    n, p, adv = v
    game, ref = Teeko(size=n, pieces=p, advanced=adv), ref_teeko.Teeko(n, p, bool(adv))
    rng = random.Random(sum(v))
    assert checks.assert_random_games_match(game, ref, rng, 600, parents_per_move=3) >= 1
    checks.assert_random_parents_match(game, ref, rng, 150)


def test_patterns_of_the_standard_and_advanced_games():
    std, adv = Teeko(size=5), Teeko(size=5, advanced=1)
    assert len(std.ctx[2]) == 44 and len(adv.ctx[2]) == 44 + 14  # GamesmanOne's counts
    lose = lambda g, s: g.primitive_value(g.from_string(s)) == LOSE  # noqa: E731
    square = "-----/-XX--/-XX--/OO---/OO--- o"  # O also on a square: not both, O moves
    with pytest.raises(PositionError):
        std.from_string(square)
    assert lose(std, "-----/-XX--/-XX--/O-O--/-O-O- o")  # a 2x2 square
    assert lose(std, "X----/-X---/--X--/---X-/OOO-O o")  # a diagonal of 4
    assert lose(std, "----X/---X-/--X--/-X---/OOO-O o")  # the other diagonal
    assert lose(std, "-O---/-O---/-O---/-O---/XXX-X x")  # a column, in the move phase
    corners = "X-X--/-----/X-X--/OO-O-/----O o"  # corners of a 3x3 square
    assert not lose(std, corners) and lose(adv, corners)
    big = "X---X/-OOO-/-----/-----/X---X o"  # corners of the 5x5 square
    assert lose(adv, big) and not lose(std, big)
    # the drop phase: X's fourth drop makes a row and O, to drop, has lost
    assert lose(std, "XXXX-/OOO--/-----/-----/----- o")
    assert not lose(std, "XXX-X/OOO--/-----/-----/----- o")


def test_moves_and_phases():
    game = Teeko(size=5)
    start = game.from_string(game.to_string(game.start))
    assert len(game.moves(start)) == 25 and game.moves(start)[0][0] == "1"
    # the last drop leads into the move phase with X to move
    s = "XXX--/OO---/X----/-----/---O- o"
    kids = checks.named_children(game, s)
    assert len(kids) == 18 and kids["25"] == "XXX--/OO---/X----/-----/---OO x"
    # steps go to adjacent empty squares in 8 directions
    s = "XXX--/OO---/X----/-----/---OO x"
    names = sorted(n for n, _ in game.moves(game.from_string(s)))
    assert names == sorted(["2-8", "3-4", "3-8", "3-9", "11-12", "11-16", "11-17"])
    kids = checks.named_children(game, s)
    assert kids["11-17"] == "XXX--/OO---/-----/-X---/---OO o"


def test_tiers_and_hash(small):
    std = Teeko(size=5)
    tiers = std.tiers()
    assert [t.label for t in tiers] == [f"{t} dropped" for t in range(8)] + ["moving"]
    assert tiers[-1].size == 2 * 12650 * 5985 and tiers[7].size == 12650 * 1330
    assert [t.children for t in tiers] == [(i + 1,) for i in range(8)] + [(8,)]
    assert tiers[0].start == 0 and tiers[-1].stop == std.hash_size
    assert all(a.stop == b.start for a, b in zip(tiers, tiers[1:], strict=False))
    ref = ref_teeko.Teeko(3, 3)
    for h in range(small.hash_size):
        s = small.to_string(h)
        if ref.pattern(s[:11].replace("/", ""), s[-1].upper()):
            with pytest.raises(PositionError):  # the side to move cannot have a pattern
                small.from_string(s)
        else:
            assert small.from_string(s) == h


def test_parse_errors(small):
    for bad in ["", "---/---/---", "---/---/--- X", "----/---/--- x", "---/---/--Z x",
                "---/---/--- o", "X--/---/--- x", "XX-/---/--- o", "OX-/-O-/--- x",
                "OOO/XX-/--X o", "XXX/OOO/--- x", "XXX/OO-/--- x", "XX-/OOO/X-- o"]:
        with pytest.raises(PositionError):
            small.from_string(bad)
    assert small.primitive_value(small.from_string("XXX/OO-/--O o")) == LOSE
    for bad in [dict(size=3, pieces=4), dict(size=4, pieces=3, advanced=1), dict(size=6)]:
        with pytest.raises(VariantError):
            Teeko(**bad)
