"""Connect-k with gravity, against the independent reference rules and solver."""

import itertools
import math
import random

import checks
import pytest
import reference

from games import connect4 as c4
from games import get_game
from games.base import PositionError
from solver.methods.solve import solve
from solver.use.api import Solved

# (width, height, connect): small boards the reference solves in a second or two
VARIANTS = [(3, 3, 3), (4, 3, 3), (3, 5, 3), (4, 4, 3)]


def variant(w, h, k):
    return {"width": w, "height": h, "connect": k}


def ref_table(w, h, k):
    return checks.reference_table(reference.Connect4, w, h, k)


@pytest.mark.parametrize("v,method", checks.method_cases(
    VARIANTS, lambda v: get_game("connect4", variant(*v)), lambda v: f"{v[0]}x{v[1]}c{v[2]}"))
def test_every_reachable_position_matches_reference(v, method, tmp_path):
    ref = ref_table(*v)
    game = get_game("connect4", variant(*v))
    checks.solve_matches_reference(game, method, tmp_path, ref)
    solved = Solved(game, tmp_path)
    # the query path on a sample, moves included (connect-k has no draws)
    sample = random.Random(1).sample(sorted(ref), 50)
    checks.assert_queries_match(solved, ref, sample)
    for position in sample:
        info = solved.query(position)
        value, rem = ref[position]
        if value not in (1, 3) or rem:  # not a finished game
            kids = reference.Connect4(*v).children(position)
            assert [m.position for m in info.moves] == kids


def test_known_results(tmp_path):
    game = get_game("connect4")  # default 4x4, connect 4
    assert game.to_string(game.start) == "----/----/----/----"
    result = solve(game, root=tmp_path)
    # reference.solve(reference.Connect4(4, 4, 4)) gives these (6 s, too slow to repeat)
    assert result.positions == 161029
    assert result.values == {"win": 38675, "lose": 32234, "tie": 90120}
    assert (result.start_value, result.start_remoteness) == ("tie", 16)
    g3 = get_game("connect4", variant(4, 4, 3))
    r3 = solve(g3, root=tmp_path)
    assert (r3.positions, r3.start_value, r3.start_remoteness) == (41750, "win", 9)


def test_hand_checked_positions(tmp_path):
    game = get_game("connect4")
    solve(game, root=tmp_path)
    s = Solved(game, tmp_path)
    # X to move completes the bottom row in column 4
    info = s.query("----/----/OOO-/XXX-")
    assert (info.value, info.remoteness) == ("win", 1)
    assert [m.move for m in s.best_moves("----/----/OOO-/XXX-")] == ["4"]
    # O to move must block column 4 at once: every other column loses in 1
    info = s.query("----/----/-OO-/XXX-")
    losing = {m.move for m in info.moves if (m.value, m.remoteness) == ("win", 1)}
    assert losing == {"1", "2", "3"}
    # a finished game: O to move, X has four in a row
    done = s.query("----/----/OOO-/XXXX")
    assert (done.value, done.remoteness, done.moves) == ("lose", 0, [])
    # a vertical line, and a diagonal one
    assert s.query("----/X---/XO--/XOO-").value == "win"  # X to move wins in column 1
    diag = s.query("---X/--XO/OXOX/XOXO")  # X completed the rising diagonal
    assert (diag.value, diag.remoteness) == ("lose", 0)


def test_full_board_tie(tmp_path):
    game = get_game("connect4", variant(3, 3, 3))
    solve(game, root=tmp_path)
    s = Solved(game, tmp_path)
    ref = ref_table(3, 3, 3)
    full = [p for p, (v, r) in ref.items() if "-" not in p and v == 3]
    assert full
    for p in full:
        info = s.query(p)
        assert (info.value, info.remoteness, info.moves) == ("tie", 0, [])


@pytest.mark.parametrize("v", [(3, 3, 3), (4, 3, 3), (3, 4, 2), (4, 3, 1), (2, 2, 2)])
def test_rules_on_every_board(v):
    """primitive, children (in column order, with move names) and parents on every hash,
    reachable or not, against the reference rules."""
    game = get_game("connect4", variant(*v))
    ref = reference.Connect4(*v)
    parents_seen: dict[int, set[int]] = {}
    for h, s, names, kids, strings in checks.rules_on_every_hash(game, ref):
        assert strings == ref.children(s), s  # in column order
        assert names == [str(c + 1) for c in range(v[0]) if s[c] == "-"], s
        for c in kids:
            parents_seen.setdefault(c, set()).add(h)
    checks.assert_parents_invert_children(game, parents_seen)


def test_tiers_are_contiguous_and_ordered():
    game = get_game("connect4", variant(4, 3, 3))
    tiers = game.tiers()
    assert tiers[0].start == 0 and tiers[-1].stop == game.hash_size
    for a, b in itertools.pairwise(tiers):
        assert a.stop == b.start
    out, codes, scratch = game._buffers()
    for t in tiers:
        for h in range(t.start, t.stop):
            s = game.to_string(h)
            assert 12 - s.count("-") == int(t.label.split()[0])
            if game.primitive_value(h):
                continue
            n = c4.children(game.ctx, h, out, codes, scratch)
            for j in range(n):
                assert any(tiers[c].start <= out[j] < tiers[c].stop for c in t.children)


def _space_size(w, h):
    """Boards with gravity and X = O or O + 1, counted directly."""
    total = 0
    for heights in itertools.product(range(h + 1), repeat=w):
        n = sum(heights)
        total += math.comb(n, (n + 1) // 2)
    return total


@pytest.mark.parametrize("w,h", [(1, 1), (2, 3), (4, 4), (5, 4), (5, 5)])
def test_hash_is_dense(w, h):
    game = get_game("connect4", {"width": w, "height": h})
    assert game.hash_size == _space_size(w, h)
    if (w, h) == (5, 5):
        assert game.hash_size == 171_976_899
    rng = random.Random(w * 10 + h)
    for x in [0, game.hash_size - 1] + [rng.randrange(game.hash_size) for _ in range(300)]:
        assert game.from_string(game.to_string(x)) == x


def test_bad_strings():
    game = get_game("connect4")
    for bad, why in [
        ("----/----/----", "rows"),
        ("----/----/----/---", "cells"),
        ("----/----/----/--Z-", "not one of"),
        ("----/----/X---/----", "empty cell under a piece"),
        ("----/----/----/XX--", "as many pieces as O or one more"),
        ("----/----/----/O---", "as many pieces as O or one more"),
    ]:
        with pytest.raises(PositionError, match=why):
            game.from_string(bad)
