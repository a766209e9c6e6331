"""The generic hash: rank and unrank are inverse, and the space is dense and exact."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hashing import HashContext


def brute_force(ncells, bounds, predicate=None):
    """Every board (tuple of piece types) whose counts are within bounds."""
    k = len(bounds)
    out = []
    for board in itertools.product(range(k), repeat=ncells):
        counts = tuple(board.count(t) for t in range(k))
        if all(lo <= c <= hi for c, (lo, hi) in zip(counts, bounds, strict=True)):
            if predicate is None or predicate(counts):
                out.append(board)
    return out


CASES = [
    (9, [(0, 5), (0, 4), (0, 9)], lambda c: c[0] == c[1] or c[0] == c[1] + 1),
    (6, [(0, 6), (0, 6)], None),
    (7, [(1, 3), (0, 2), (0, 7)], None),
    (5, [(0, 2), (0, 2), (0, 1), (0, 5)], None),
]


@pytest.mark.parametrize("ncells,bounds,pred", CASES)
@pytest.mark.parametrize("turn", [False, True])
def test_dense_and_inverse(ncells, bounds, pred, turn):
    ctx = HashContext(ncells, bounds, predicate=pred, turn=turn)
    boards = brute_force(ncells, bounds, pred)
    turns = 2 if turn else 1
    assert ctx.size == len(boards) * turns
    seen = set()
    for h in range(ctx.size):
        board, t = ctx.unrank(h)
        assert ctx.rank(board, t) == h
        seen.add((tuple(int(x) for x in board), t))
    assert len(seen) == ctx.size
    assert {b for b, _ in seen} == set(boards)


def test_tictactoe_space_size():
    # sum over x in {o, o+1} of 9! / (x! o! (9-x-o)!)
    expected = sum(math.comb(9, x) * math.comb(9 - x, o)
                   for o in range(5) for x in (o, o + 1) if x + o <= 9)
    ctx = HashContext(9, [(0, 5), (0, 4), (0, 9)],
                      predicate=lambda c: c[0] == c[1] or c[0] == c[1] + 1)
    assert ctx.size == expected == 6046


def test_tier_context_ranks_from_zero():
    full = HashContext(8, [(0, 8), (0, 8), (0, 8)], turn=True)
    combo = (3, 2, 3)
    tier = full.tier(combo)
    c = full.combo_id(combo)
    assert tier.size == full.offsets[c + 1] - full.offsets[c]
    for r in range(tier.size):
        board, t = tier.unrank(r)
        assert full.rank(board, t) == full.offsets[c] + r


def test_invalid_counts_rank_to_minus_one():
    ctx = HashContext(4, [(0, 1), (0, 4)])
    assert ctx.rank(np.array([0, 0, 1, 1], np.int8)) == -1


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=20, max_size=20), st.integers(0, 1))
def test_roundtrip_large_board(board, turn):
    ctx = HASH20
    h = ctx.rank(np.array(board, np.int8), turn)
    assert 0 <= h < ctx.size
    back, t = ctx.unrank(h)
    assert list(back) == board and t == turn


HASH20 = HashContext(20, [(0, 20), (0, 20), (0, 20)], turn=True)
