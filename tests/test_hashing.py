"""The generic hash: rank and unrank are inverse, and the space is dense and exact."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from hashing import HashContext
from hashing.generic import (
    _pdep_table,
    _pext_table,
    arrangement_pass,
    arrangement_rank,
    combo_of,
    pdep,
    pext,
    rank,
    rank_masks,
    subset_places,
    unrank,
    unrank_arrangement,
)


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


# The numbering before the one-pass rank/unrank (commit a429aa8), kept as it was as the
# reference: stored databases depend on every hash value staying the same.
@njit(cache=True)
def _old_rank(ctx, board, turn):
    meta, binom, combo_index, _counts, combo_radix, combo_offset = ctx
    n = meta[0]
    k = meta[1]
    radix = n + 1
    key = 0
    place = 1
    sub = np.int64(0)
    for t in range(k - 1):
        c = 0
        for i in range(n):
            if board[i] == t:
                c += 1
        key += c * place
        place *= radix
    combo = combo_index[key]
    if combo < 0:
        return -1
    for t in range(k - 1):
        u = 0
        m = 0
        r = np.int64(0)
        for i in range(n):
            p = board[i]
            if p < t:
                continue
            if p == t:
                m += 1
                r += binom[u, m]
            u += 1
        sub += r * combo_radix[combo, t]
    arr = combo_radix[combo, 0] * binom[n, _counts[combo, 0]]
    return combo_offset[combo] + turn * arr + sub


@njit(cache=True)
def _old_unrank(ctx, h, board):
    meta, binom, _index, counts, combo_radix, combo_offset = ctx
    n = meta[0]
    k = meta[1]
    combo = np.searchsorted(combo_offset, h, side="right") - 1
    r = h - combo_offset[combo]
    arr = combo_radix[combo, 0] * binom[n, counts[combo, 0]]
    turn = r // arr
    r -= turn * arr
    last = k - 1
    for i in range(n):
        board[i] = last
    u_t = n
    for t in range(k - 1):
        c = counts[combo, t]
        rt = r // combo_radix[combo, t]
        r -= rt * combo_radix[combo, t]
        m = c
        u = u_t - 1
        i = n - 1
        while m > 0:
            if board[i] == last:
                b = binom[u, m]
                if b <= rt:
                    board[i] = t
                    rt -= b
                    m -= 1
                u -= 1
            i -= 1
        u_t -= c
    return turn


@njit  # not cached: numba's cache would keep a stale copy of rank/unrank inside it
def _compare(ctx, boards, turns, hs, a, b):
    """Ranks of `boards` and unranks of `hs`, by the new and the old code; mismatches."""
    bad = 0
    for j in range(boards.shape[0]):
        bad += rank(ctx, boards[j], turns[j]) != _old_rank(ctx, boards[j], turns[j])
    for j in range(hs.shape[0]):
        bad += unrank(ctx, hs[j], a) != _old_unrank(ctx, hs[j], b)
        for i in range(a.shape[0]):
            bad += a[i] != b[i]
    return bad


SAME_CASES = [
    HashContext(16, [(0, 16)] * 3, turn=True),  # quixo 4x4
    HashContext(25, [(0, 25)] * 3, turn=True),  # quixo 5x5
    HashContext(9, [(0, 5), (0, 4), (0, 9)], turn=True,
                predicate=lambda c: c[0] == c[1] or c[0] == c[1] + 1),  # tic-tac-toe
    HashContext(24, [(0, 9), (0, 9), (6, 24)], turn=True),  # morris-like bounds
    HashContext(42, [(0, 10), (0, 10), (22, 42)]),  # connect-4 sized cells
    HashContext(33, [(0, 33), (0, 33)]),  # peg solitaire: two types
    HashContext(20, [(0, 20)] * 3, turn=True).tier((6, 5, 9)),
    HashContext(12, [(0, 12)] * 4, turn=True),
    HashContext(10, [(0, 3), (0, 3), (0, 2), (0, 10), (0, 10)]),
    HashContext(30, [(1, 1), (1, 1), (0, 2), (0, 1), (0, 30)], turn=True),  # quick chess
    HashContext(25, [(0, 2), (0, 2), (0, 3), (0, 25)], turn=True),  # four types, 25 cells
]


def _random_boards(ctx, rng, m):
    """m boards near the context's valid combinations (a random combination's pieces
    shuffled), a tenth of them with random, mostly invalid, counts; and a turn each."""
    k, n = ctx.ntypes, ctx.ncells
    combos = np.array(ctx.combos)[rng.integers(0, len(ctx.combos), m)]
    boards = np.empty((m, n), np.int8)
    for j in range(m):
        boards[j] = rng.permutation(np.repeat(np.arange(k), combos[j]))
    boards[: m // 10] = rng.integers(0, k, size=(m // 10, n))
    return boards, rng.integers(0, ctx.turns, m).astype(np.int64)


@pytest.mark.parametrize("ctx", SAME_CASES, ids=lambda c: f"{c.ncells}x{c.ntypes}")
def test_numbering_unchanged(ctx):
    rng = np.random.default_rng(ctx.ncells * 7 + ctx.ntypes)
    n, m = ctx.ncells, 20000
    boards, turns = _random_boards(ctx, rng, m)
    hs = np.concatenate([rng.integers(0, ctx.size, m), ctx.offsets[:-1], ctx.offsets[1:] - 1,
                         [0, ctx.size - 1]]).astype(np.int64)
    a, b = np.empty(n, np.int8), np.empty(n, np.int8)
    assert _compare(ctx.nb, boards, turns, hs, a, b) == 0


@njit  # not cached: numba's cache would keep a stale copy of the hash inside it
def _arrangement_mismatches(ctx, boards, turns, hs, a, b):
    """Boards `arrangement_pass` and `arrangement_rank` rank otherwise than `rank` (its
    combination's offset and side added), and hashes whose board `unrank_arrangement`
    does not give back from that combination and rank."""
    offsets = ctx[5]
    bad = 0
    for j in range(boards.shape[0]):
        m0, m1, r0, r1 = arrangement_pass(ctx, boards[j])
        combo, r = arrangement_rank(ctx, m0, m1, r0, r1)
        h = rank(ctx, boards[j], turns[j])
        if combo < 0:
            bad += h != -1 or r != -1
        else:
            arrangements = (offsets[combo + 1] - offsets[combo]) // ctx[0][2]  # per side
            bad += offsets[combo] + turns[j] * arrangements + r != h
    for j in range(hs.shape[0]):
        unrank(ctx, hs[j], a)
        m0, m1, r0, r1 = arrangement_pass(ctx, a)
        combo, r = arrangement_rank(ctx, m0, m1, r0, r1)
        bad += combo != combo_of(ctx, hs[j])
        unrank_arrangement(ctx, combo, r, b)
        for i in range(a.shape[0]):
            bad += a[i] != b[i]
    return bad


@pytest.mark.parametrize("ctx", [c for c in SAME_CASES if c.ntypes <= 3]
                         + [HashContext(n, [(0, n)] * 3, turn=True) for n in (1, 4, 9)],
                         ids=lambda c: f"{c.ncells}x{c.ntypes}")
def test_arrangement_rank_is_rank_inside_the_combination(ctx):
    rng = np.random.default_rng(ctx.ncells + 1)
    boards, turns = _random_boards(ctx, rng, 20000)
    hs = np.concatenate([rng.integers(0, ctx.size, 20000), ctx.offsets[:-1],
                         ctx.offsets[1:] - 1]).astype(np.int64)
    a, b = np.empty(ctx.ncells, np.int8), np.empty(ctx.ncells, np.int8)
    assert _arrangement_mismatches(ctx.nb, boards, turns, hs, a, b) == 0


@njit  # not cached: numba's cache would keep a stale copy of rank/rank_masks inside it
def _masks_mismatches(ctx, ntypes, boards, turns):
    """How many boards `rank_masks` (from type 0's and type 1's cell masks; type 1 is
    the last type of two) ranks differently from `rank` (from the board array)."""
    bad = 0
    for j in range(boards.shape[0]):
        xm = np.int64(0)
        om = np.int64(0)
        for i in range(boards.shape[1]):
            xm |= np.int64(boards[j, i] == 0) << i
            om |= np.int64(boards[j, i] == 1 and ntypes == 3) << i
        bad += rank_masks(ctx, xm, om, turns[j]) != rank(ctx, boards[j], turns[j])
    return bad


@pytest.mark.parametrize("ctx", [c for c in SAME_CASES if c.ntypes <= 3]
                         + [HashContext(n, [(0, n)] * 3, turn=True) for n in (1, 4, 9)]
                         + [HashContext(62, [(0, 4), (0, 4), (54, 62)], turn=True)],
                         ids=lambda c: f"{c.ncells}x{c.ntypes}")
def test_rank_masks_equals_rank(ctx):
    rng = np.random.default_rng(ctx.ncells)
    boards, turns = _random_boards(ctx, rng, 20000)
    assert _masks_mismatches(ctx.nb, ctx.ntypes, boards, turns) == 0


@njit  # not cached
def _bits_mismatches(meta, xs, ms):
    """Mismatches of the table pext/pdep against the hardware ones (when the CPU has
    BMI2) or against a bit-by-bit loop."""
    bad = 0
    for j in range(xs.shape[0]):
        x, m = xs[j] & ms[j], ms[j]
        ref_ext = np.int64(0)
        ref_dep = np.int64(0)
        k = 0
        for i in range(meta[0]):
            if m >> i & 1:
                ref_ext |= ((x >> i) & 1) << k
                ref_dep |= ((xs[j] >> k) & 1) << i
                k += 1
        bad += _pext_table(meta, x, m) != ref_ext
        bad += _pdep_table(meta, xs[j], m) != ref_dep
        bad += pext(meta, x, m) != ref_ext
        bad += pdep(meta, xs[j], m) != ref_dep
    return bad


@pytest.mark.parametrize("ncells", [1, 5, 16, 25, 33, 62])
def test_pext_pdep(ncells):
    """Both ways of packing a mask (the tables, and BMI2 where this CPU has a fast one,
    which `pext`/`pdep` then use) against a bit loop, inside the board's cells."""
    meta = HashContext(ncells, [(0, 1), (0, ncells)]).nb[0]
    rng = np.random.default_rng(ncells)
    full = (1 << ncells) - 1
    xs = rng.integers(0, 2**62, 5000, dtype=np.int64) & full
    ms = rng.integers(0, 2**62, 5000, dtype=np.int64) & full
    ms[:100] = full
    ms[100:200] = 0
    assert _bits_mismatches(meta, xs, ms) == 0


@pytest.mark.parametrize("ncells", [1, 7, 12])
def test_subset_places_order_by_size_then_colex_rank(ncells):
    """Every subset's place against itertools: the sets of each size in colex order (the
    sum of C(cell, its 1-based index)), sizes from 0 up."""
    expected = {}
    for k in range(ncells + 1):
        ranked = sorted(itertools.combinations(range(ncells), k),
                        key=lambda c: sum(math.comb(cell, j + 1) for j, cell in enumerate(c)))
        for c in ranked:
            expected[sum(1 << cell for cell in c)] = len(expected)
    place = subset_places(ncells)
    assert place.tolist() == [expected[m] for m in range(1 << ncells)]


@pytest.mark.parametrize("men", [3, 6])
def test_least_sets_are_the_orbit_minimal_sets(men):
    """hashing/orbits.py against a brute force over every k-set: the sets that no
    symmetry maps to a smaller mask, in colex (numeric) order, and the index inverts it."""
    from games.morris import board_symmetries
    from hashing.orbits import least_sets

    where = board_symmetries(men)
    n = where.shape[1]
    for k in range(n + 1 if men == 3 else 7):
        masks = sorted(sum(1 << p for p in c) for c in itertools.combinations(range(n), k))

        def image(m, s):
            return sum(1 << int(where[s, p]) for p in range(n) if m >> p & 1)

        want = [r for r, m in enumerate(masks)
                if all(image(m, s) >= m for s in range(where.shape[0]))]
        index, rank = least_sets(where, k)
        assert rank.tolist() == want
        assert index[rank].tolist() == list(range(len(want)))
        assert int((index >= 0).sum()) == len(want)
