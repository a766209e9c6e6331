"""Topitop against the plain-Python rules of tests/ref_topitop.py."""

from __future__ import annotations

import random

import checks
import pytest
import ref_topitop

from games.base import PositionError, VariantError
from games.topitop import Topitop
from solver.methods.registry import applicable_methods
from solver.methods.solve import solve
from solver.use.api import Solved

SMALL = (Topitop, {"castles": 1})  # solved whole: conftest's `small` and `table`
REFERENCE = (ref_topitop.Topitop, 1)


@pytest.fixture(scope="module")
def full():
    return Topitop(castles=2)


@pytest.mark.parametrize("method", applicable_methods(Topitop))
def test_every_reachable_position_matches_reference(method, small, table, tmp_path):
    checks.assert_solves_like_reference(
        small, ref_topitop.Topitop(1), method, tmp_path, table, 17974, ("draw", None))


def test_children_match_reference_everywhere(small, table):
    """Move generation (with multiplicity) of every reachable position, and primitives."""
    ref = ref_topitop.Topitop(1)
    for pos in table:
        assert checks.child_strings(small, pos) == checks.ref_children(ref, pos), pos
        assert small.primitive_value(small.from_string(pos)) == ref.primitive(pos), pos


def test_full_game_random_positions_match_reference(full):
    """castles=2: children and primitive of random hashes (reachable or not) agree."""
    ref = ref_topitop.Topitop(2)
    rng = random.Random(7)
    checks.assert_random_hashes_match(full, ref, rng, 1500)
    # a random playout from the start stays in agreement
    checks.assert_playout_matches(full, ref, rng, 300)


def test_hash_is_dense_and_roundtrips(small, full):
    assert small.hash_size == 18200
    assert full.hash_size == 6022136
    for h in range(small.hash_size):
        assert small.from_string(small.to_string(h)) == h
    for h in range(0, full.hash_size, 997):
        assert full.from_string(full.to_string(h)) == h
    assert full.to_string(full.hash_size - 1).endswith(" r")


def test_stacking_rules(full):
    names = lambda s: sorted(n for n, _ in full.moves(full.from_string(s)))  # noqa: E731
    # blue: L on 1, S on 2, red bucket on 4; blue may put S on L (2-1), not L on S
    s = "L,S,-/R,-,-/-,-,- b"
    ms = names(s)
    assert "2-1" in ms and "1-2" not in ms
    assert "4-5" not in ms  # the red bucket is not blue's
    assert "1-4" not in ms and "2-4" not in ms  # nothing rests on a bucket
    kids = checks.child_strings(full, s)
    assert "LS,-,-/R,-,-/-,-,- r" in kids
    # red may put its bucket on the small or on the large sandcastle, not blue's
    ms = names("L,S,-/R,-,-/-,-,- r")
    assert {"4-1", "4-2", "4-5"} <= set(ms)
    # lifting: from LSB blue may take B, SB or LSB; red may not touch it
    ms = names("LSB,-,-/-,L,-/-,-,R b")
    assert {"1-2", "1-2/2", "1-2/3", "1-5", "1-5/2"} <= set(ms)
    assert "1-5/3" not in ms  # a large sandcastle goes on the ground only
    assert not any(n.startswith("1-") for n in names("LSB,-,-/-,L,-/-,-,R r"))
    # either player may move S off LS, or the whole LS
    ms = names("-,-,-/-,LS,-/-,-,- r")
    assert "5-1" in ms and "5-1/2" in ms
    # placements only on empty squares, only own buckets and sandcastles in reserve
    ms = names("L,-,-/-,-,-/-,-,- r")
    assert "R2" in ms and "B2" not in ms and "S1" not in ms and "L2" in ms
    ms = names("L,-,-/L,-,-/-,-,- b")
    assert not any(n.startswith("L") for n in ms)


def test_win_detection(full, small):
    # blue has two castles: red to move has lost; blue to move (unreachable) counts as won
    assert full.primitive_value(full.from_string("LSB,-,-/-,-,-/-,-,LSB r")) == 1
    assert full.primitive_value(full.from_string("LSB,-,-/-,-,-/-,-,LSB b")) == 4
    # one castle of two is not enough; a bucket on a large only is not a castle
    assert full.primitive_value(full.from_string("LSB,-,-/-,-,-/-,-,- r")) == 0
    assert full.primitive_value(full.from_string("LSB,-,-/-,LB,S/-,-,- r")) == 0
    assert full.primitive_value(full.from_string("LSR,-,-/-,-,-/-,-,LSR b")) == 1
    # castles=1: one castle wins
    assert small.primitive_value(small.from_string("-,-,-/-,LSR,-/-,-,- b")) == 1
    assert small.primitive_value(small.from_string("-,-,-/-,SR,L/-,-,B b")) == 0


def test_hand_checked_values(small, tmp_path):
    solve(small, root=tmp_path)
    s = Solved(small, tmp_path)
    # red to move with SR next to L: lift S+R onto L and win at once
    info = s.query("-,-,-/-,SR,L/-,-,B r")
    assert (info.value, info.remoteness) == ("win", 1)
    assert "5-6/2" in [m.move for m in s.best_moves("-,-,-/-,SR,L/-,-,B r")]
    done = s.query("-,-,-/-,LSR,-/-,-,- b")
    assert (done.value, done.remoteness, done.moves) == ("lose", 0, [])


def test_bad_positions_and_variants(small):
    for bad in ("-,-,-/-,-,-/-,-,-", "-,-,-/-,-,-/-,-,- x", "-,-,-/-,-,- b",
                "-,-/-,-,-/-,-,- b", "SL,-,-/-,-,-/-,-,- b", "BS,-,-/-,-,-/-,-,- b",
                "L,L,-/-,-,-/-,-,- b", "LSBR,-,-/-,-,-/-,-,- b"):
        with pytest.raises(PositionError):
            small.from_string(bad)
    with pytest.raises(VariantError):
        Topitop(castles=3)
