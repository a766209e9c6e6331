"""Rubik's checkers, against the independent reference rules (tests/ref_rubikscheckers.py)."""

import random

import checks
import numpy as np
import pytest
import ref_rubikscheckers as rr

from games import rubikscheckers as rc
from games.base import PositionError, VariantError
from games.rubikscheckers import RubiksCheckers
from solver.methods.solve import solve
from solver.use.api import Solved

VARIANTS = [(4, 4, 1), (3, 4, 1), (4, 5, 1), (5, 4, 1)]  # (width, height, rows)
BIG = (5, 4, 1)  # checked with retrograde only, to keep the file fast


def game_of(v):
    return RubiksCheckers(width=v[0], height=v[1], rows=v[2])


@pytest.mark.parametrize("v,method", [
    case for case in checks.method_cases(VARIANTS, game_of, lambda v: f"{v[0]}x{v[1]}r{v[2]}")
    if case.values[0] != BIG or case.values[1] == "retrograde"])
def test_every_reachable_position_matches_reference(v, method, tmp_path):
    ref = checks.reference_table(rr.RubiksCheckers, *v)
    game = game_of(v)
    assert game.to_string(game.start) == rr.RubiksCheckers(*v).start()
    checks.solve_matches_reference(game, method, tmp_path, ref)
    sample = random.Random(3).sample(sorted(ref), 30)
    checks.assert_queries_match(Solved(game, tmp_path), ref, sample)
    for position in sample:
        assert game.to_string(game.from_string(position)) == position


@pytest.mark.parametrize("v", [(4, 4, 1), (3, 4, 1)])
def test_rules_on_every_hash(v):
    """primitive and children on every hash (reachable or not) against the reference;
    string round trips; move names distinct; tiers cover the space and list children."""
    game = game_of(v)
    tiers = checks.contiguous_tiers(game)
    tier_of = np.zeros(game.hash_size, np.int64)
    for i, t in enumerate(tiers):
        tier_of[t.start:t.stop] = i
    rules = checks.rules_on_every_hash(game, rr.RubiksCheckers(*v))
    for h, _s, _names, children, _strings in rules:
        for c in children:
            assert tier_of[c] in tiers[tier_of[h]].children


@pytest.fixture(scope="module")
def solved44(tmp_path_factory):
    root = tmp_path_factory.mktemp("rc44")
    game = RubiksCheckers()
    solve(game, root=root)
    return Solved(game, root)


def kids(pos, v=(4, 4, 1)):
    game = game_of(v)
    out, codes, scratch = game._buffers()
    h = game.from_string(pos)
    n = rc.children(game.ctx, h, out, codes, scratch)
    return {game.move_name(h, int(codes[i])): game.to_string(int(out[i])) for i in range(n)}


def test_start_and_outcome(solved44):
    info = solved44.query()
    assert info.position == ".B.B/-.-./.-.-/W.W. w"
    assert info.value == "draw"
    assert sorted(m.move for m in info.moves) == ["a1-b2", "c1-b2", "c1-d2"]
    assert "notes" in solved44.game.analysis_extras(solved44)


def test_jumped_king_is_demoted():
    k = kids(".-.-/-.-./.B.-/W.-. w")
    assert k["a1xc3"] == ".-.-/-.W./.b.-/-.-. b"


def test_jumped_man_is_removed():
    k = kids(".-.-/-.-./.b.-/W.-. w")
    assert k["a1xc3"] == ".-.-/-.W./.-.-/-.-. b"


def test_jump_needs_an_empty_landing_square():
    k = kids(".-.-/-.B./.b.-/W.-. w")
    assert k == {}  # b2 is occupied and c3 is too: no step, no jump


def test_man_moves_backward_only_and_never_jumps():
    # white man on b2: only down to a1 / c1 (its home row, where it becomes a king)
    k = kids(".B.-/-.-./.w.-/-.-. w")
    assert k == {"b2-a1": ".B.-/-.-./.-.-/W.-. b", "b2-c1": ".B.-/-.-./.-.-/-.W. b"}
    # black man on c3: only up to b4 / d4; promoted there; it may not jump the king on b2
    k = kids(".-.-/-.b./.W.-/-.-. b")
    assert k == {"c3-b4": ".B.-/-.-./.W.-/-.-. w", "c3-d4": ".-.B/-.-./.W.-/-.-. w"}
    # a man one step short of the middle: moves back but stays a man
    k = kids("B.-./.-.-/-.w./.-.-/-.-. w", (4, 5, 1))
    assert k == {"c3-b2": "B.-./.-.-/-.-./.w.-/-.-. b", "c3-d2": "B.-./.-.-/-.-./.-.w/-.-. b"}


def test_no_move_or_no_pieces_loses(solved44):
    # white man blocked on its way home, no white king: white cannot move
    info = solved44.query(".-.-/-.-./.w.-/B.B. w")
    assert (info.value, info.remoteness, info.moves) == ("lose", 0, [])
    # white has no pieces left
    info = solved44.query(".B.-/-.-./.-.-/-.B. w")
    assert (info.value, info.remoteness, info.moves) == ("lose", 0, [])
    # white wins at once by jumping black's last piece, a man
    info = solved44.query(".-.-/W.b./.-.W/-.-. w")
    assert (info.value, info.remoteness) == ("win", 1)
    assert [m.move for m in solved44.best_moves(".-.-/W.b./.-.W/-.-. w")] == ["d2xb4"]


def test_bad_strings_and_variants():
    game = RubiksCheckers()
    for bad in ["", ".B.B/-.-./.-.-/W.W.", ".B.B/-.-./.-.-/W.W. x", "BB../-.-./.-.-/W.W. w",
                ".B.B/-.-./.-.-/W.WW w", ".B.B/B.-./.-.-/W.W. w", ".B.B/-.-./.-.-/W.W.. w"]:
        with pytest.raises(PositionError):
            game.from_string(bad)
    with pytest.raises(VariantError):
        RubiksCheckers(height=4, rows=2)


@pytest.mark.parametrize("v", [(4, 4, 1), (3, 4, 1)])
def test_parents_invert_children(v):
    """parents(h) lists, once each, exactly the hashes that have h among their children."""
    game = game_of(v)
    assert game.has_parents
    checks.assert_parents_invert_children(game, once=True)
