"""Hexapawn, against the independent reference rules and solver."""

import random

import pytest
import reference
from checks import (
    assert_queries_match,
    method_cases,
    reference_table,
    rules_on_every_hash,
    solve_matches_reference,
)

from games import get_game
from games import hexapawn as hx
from games.base import PositionError
from solver.methods.solve import solve
from solver.use.api import Solved

VARIANTS = [(3, 3), (2, 5), (3, 4), (4, 3), (4, 4)]  # (width, height)


def variant(w, h):
    return {"width": w, "height": h}


@pytest.mark.parametrize("v,method", method_cases(
    VARIANTS, lambda v: get_game("hexapawn", variant(*v)), lambda v: f"{v[0]}x{v[1]}"))
def test_every_reachable_position_matches_reference(v, method, tmp_path):
    ref = reference_table(reference.Hexapawn, *v)
    game = get_game("hexapawn", variant(*v))
    solve_matches_reference(game, method, tmp_path, ref)
    # hexapawn has no draws: every remoteness is the stored one
    assert_queries_match(Solved(game, tmp_path), ref, random.Random(2).sample(sorted(ref), 30))


def test_3x3_black_wins(tmp_path):
    """Gardner's game: the second player (black) wins; 135 reachable positions."""
    game = get_game("hexapawn")
    assert game.to_string(game.start) == "BBB/---/WWW w"
    result = solve(game, root=tmp_path)
    assert result.positions == 135
    assert result.values == {"win": 55, "lose": 80}
    assert (result.start_value, result.start_remoteness) == ("lose", 6)
    s = Solved(game, tmp_path)
    info = s.query()
    assert [(m.move, m.value, m.remoteness) for m in info.moves] == [
        ("a1-a2", "win", 3), ("b1-b2", "win", 5), ("c1-c2", "win", 3)]
    extras = game.analysis_extras(s)
    assert extras["winner"] == "black (second player)"
    assert extras["best_first_moves"] == ["b1-b2"]  # the slowest loss


def test_hand_checked_positions(tmp_path):
    game = get_game("hexapawn")
    solve(game, root=tmp_path)
    s = Solved(game, tmp_path)
    # after b1-b2 black may capture it from either side, or step beside it
    info = s.query("BBB/-W-/W-W b")
    assert sorted(m.move for m in info.moves) == ["a3-a2", "a3xb2", "c3-c2", "c3xb2"]
    # white reached the far row: black to move has lost
    done = s.query("BW-/--B/-WW b")
    assert (done.value, done.remoteness, done.moves) == ("lose", 0, [])
    # black to move with every pawn blocked and nothing to capture: black has lost
    stuck = s.query("B-B/WBW/-W- b")
    assert (stuck.value, stuck.remoteness, stuck.moves) == ("lose", 0, [])
    # white to move reaches the top row at once by capturing
    info = s.query("-BB/BW-/W-W w")
    assert (info.value, info.remoteness) == ("win", 1)
    assert s.best_moves("-BB/BW-/W-W w")[0].move == "b2xc3"


@pytest.mark.parametrize("v", [(3, 3), (2, 4), (4, 2), (1, 3)])
def test_rules_on_every_board(v):
    """primitive and children on every hash, reachable or not, against the reference
    rules; round trip of the strings; move names match the children."""
    game = get_game("hexapawn", variant(*v))
    for _h, s, names, _kids, kids in rules_on_every_hash(game, reference.Hexapawn(*v)):
        for name, kid in zip(names, kids, strict=True):
            assert _apply(s, name, v) == kid, (s, name)


def _apply(s, name, v):
    """Play a move given by name on a position string (independent of the game module)."""
    w, ht = v
    board, side = s.split(" ")
    rows = [list(r) for r in board.split("/")]
    sep = "x" if "x" in name else "-"
    a, b = name.split(sep)
    fc, fr = "abcdefg".index(a[0]), ht - int(a[1:])
    tc, tr = "abcdefg".index(b[0]), ht - int(b[1:])
    assert (sep == "x") == (fc != tc)
    rows[tr][tc], rows[fr][fc] = rows[fr][fc], "-"
    return "/".join("".join(r) for r in rows) + " " + ("b" if side == "w" else "w")


def test_tiers_hold_their_children():
    game = get_game("hexapawn")
    tiers = game.tiers()
    assert tiers[0].start == 0 and tiers[-1].stop == game.hash_size
    for a, b in zip(tiers, tiers[1:], strict=False):
        assert a.stop == b.start
    out, codes, scratch = game._buffers()
    for i, t in enumerate(tiers):
        assert i in t.children
        for h in range(t.start, t.stop):
            if game.primitive_value(h):
                continue
            n = hx.children(game.ctx, h, out, codes, scratch)
            for j in range(n):
                assert any(tiers[c].start <= out[j] < tiers[c].stop for c in t.children)


def test_roundtrip_larger_board():
    game = get_game("hexapawn", variant(5, 5))
    rng = random.Random(5)
    for h in [0, game.hash_size - 1] + [rng.randrange(game.hash_size) for _ in range(300)]:
        assert game.from_string(game.to_string(h)) == h
    assert game.to_string(game.start) == "BBBBB/-----/-----/-----/WWWWW w"


def test_bad_strings():
    game = get_game("hexapawn")
    for bad, why in [
        ("BBB/---/WWW", "side to move"),
        ("BBB/---/WWW x", "side to move"),
        ("BBB/---/WW w", "cells"),
        ("BBB/---/WWQ w", "not one of"),
        ("BBB/WWW/WWW w", "more than the 3"),
    ]:
        with pytest.raises(PositionError, match=why):
            game.from_string(bad)
