"""Generic hash in the GamesCrafters sense: a dense numbering of boards by piece counts.

A board has `ncells` cells, each holding one of `k` piece types (type k-1 is usually the
blank). A *combination* is a vector of counts, one per type, summing to `ncells`, within
each type's [min, max] and accepted by an optional predicate. The hash of a board is

    offset[combination] + turn * arrangements(combination) + rank(arrangement)

where the arrangement rank is a multinomial rank, built as a mixed-radix number of
combinatorial-number-system ranks: type 0 chooses its cells among all cells, type 1 among
the cells type 0 left, and so on; the last type takes what remains. Everything the jitted
functions need lives in a tuple of flat arrays (`HashContext.nb`), so one compiled
`rank`/`unrank` serves every board, variant and tier, and caches on disk.

A context restricted to one combination (and optionally one turn) is a *tier* context:
the same functions rank inside the tier from 0.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence

import llvmlite.binding
import numpy as np
from llvmlite import ir
from numba import config, types
from numba.core import cgutils
from numba.extending import intrinsic

from hashing.jit import njit

# meta[] slots; from POP on, the tables of `_nibble_tables` (kept in meta, not as more
# arrays: every array in the context tuple costs each jitted call that passes it ~7 ns)
NCELLS, NTYPES, TURNS, NCOMBOS, SIZE = range(5)
POP = 5  # POP + q: set bits of the nibble q (16 slots)
PEXT = POP + 16  # PEXT + f * 16 + q: the bits of q where f has bits, packed low (256)
PDEP = PEXT + 256  # PDEP + f * 16 + q: the low bits of q spread to f's set bits (256)
BYTES = PDEP + 256  # BYTES + (c * (ncells + 1) + m) * 256 + q: colex[c, m, q]


class HashContext:
    """Precomputed tables of one generic hash (built once per variant or tier)."""

    def __init__(
        self,
        ncells: int,
        bounds: Sequence[tuple[int, int]],
        predicate: Callable[[tuple[int, ...]], bool] | None = None,
        turn: bool = False,
        combos: Sequence[Sequence[int]] | None = None,
    ):
        k = len(bounds)
        if k < 2:
            raise ValueError("a generic hash needs at least two piece types")
        if ncells > 62:
            raise ValueError("a generic hash supports at most 62 cells")
        self.ncells = ncells
        self.ntypes = k
        self.turns = 2 if turn else 1
        if combos is None:
            combos = _enumerate_combos(ncells, bounds, predicate)
        self.combos = [tuple(int(x) for x in c) for c in combos]
        if not self.combos:
            raise ValueError("the generic hash has no valid piece-count combination")
        ncombos = len(self.combos)

        binom = np.zeros((ncells + 1, ncells + 1), dtype=np.int64)
        for n in range(ncells + 1):
            for r in range(n + 1):
                binom[n, r] = math.comb(n, r)

        radix = ncells + 1
        combo_index = np.full(radix ** (k - 1), -1, dtype=np.int64)
        combo_counts = np.zeros((ncombos, k), dtype=np.int64)
        # combo_radix[c, t]: place value of type t's sub-rank in the arrangement rank
        combo_radix = np.zeros((ncombos, k), dtype=np.int64)
        combo_offset = np.zeros(ncombos + 1, dtype=np.int64)
        self.arrangements = []
        for i, c in enumerate(self.combos):
            if sum(c) != ncells or len(c) != k:
                raise ValueError(f"bad piece-count combination {c}")
            combo_index[_combo_key(c, radix)] = i
            combo_counts[i] = c
            bases, left = [], ncells
            for t in range(k - 1):
                bases.append(math.comb(left, c[t]))
                left -= c[t]
            place = 1
            for t in range(k - 2, -1, -1):
                combo_radix[i, t] = place
                place *= bases[t]
            self.arrangements.append(place)
            combo_offset[i + 1] = combo_offset[i] + place * self.turns
        self.size = int(combo_offset[-1])
        if self.size >= 2**62:
            raise ValueError("hash space too large")
        pop, pext, pdep = _nibble_tables()
        meta = np.concatenate([np.array([ncells, k, self.turns, ncombos, self.size],
                                        dtype=np.int64), pop, pext, pdep,
                               _colex_bytes(ncells).ravel(), _subsets(ncells)])
        self.offsets = combo_offset
        self.nb = (meta, binom, combo_index, combo_counts, combo_radix, combo_offset)

    def tier(self, combo: Sequence[int]) -> HashContext:
        """A context of one piece-count combination, ranking from 0."""
        return HashContext(self.ncells, [(0, self.ncells)] * self.ntypes,
                           turn=self.turns == 2, combos=[combo])

    def combo_id(self, counts: Sequence[int]) -> int:
        return int(self.nb[2][_combo_key(counts, self.ncells + 1)])

    def rank(self, board: np.ndarray, turn: int = 0) -> int:
        return int(rank(self.nb, np.asarray(board, dtype=np.int8), turn))

    def unrank(self, h: int) -> tuple[np.ndarray, int]:
        board = np.empty(self.ncells, dtype=np.int8)
        turn = unrank(self.nb, h, board)
        return board, int(turn)


@intrinsic
def _ctpop(typingctx, x):
    """LLVM's population count (one instruction where the CPU has it)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        return builder.ctpop(args[0])

    return x(x), codegen


@njit(cache=True, nogil=True, inline="always")
def popcount(x):
    """Set bits of an int64."""
    return _ctpop(np.int64(x))


@intrinsic
def _bmi2(typingctx, x, m, op):
    """BMI2's pext or pdep (op a literal string) of int64s."""
    if not isinstance(op, types.StringLiteral):
        return None
    name = f"llvm.x86.bmi.{op.literal_value}.64"

    def codegen(context, builder, sig, args):
        i64 = ir.IntType(64)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i64, [i64, i64]),
                                            name)
        return builder.call(fn, args[:2])

    return types.int64(types.int64, types.int64, op), codegen


@njit(cache=True, nogil=True, inline="always")
def _pext_table(meta, x, m):
    """x's bits at m's set bits, packed low (x within m in the board's cells), four bits
    per lookup."""
    out = np.int64(0)
    low = np.int64(0)  # the cells before nibble c
    for c in range((meta[0] + 3) // 4):
        q = ((m >> (4 * c)) & 15) * 16 + ((x >> (4 * c)) & 15)
        out |= meta[PEXT + q] << popcount(m & low)
        low = (low << 4) | 15
    return out


@njit(cache=True, nogil=True, inline="always")
def _pdep_table(meta, x, m):
    """The low bits of x spread to m's set bits among the board's cells (the inverse of
    `_pext_table`), four bits per lookup."""
    out = np.int64(0)
    low = np.int64(0)
    for c in range((meta[0] + 3) // 4):
        q = ((m >> (4 * c)) & 15) * 16 + ((x >> popcount(m & low)) & 15)
        out |= meta[PDEP + q] << (4 * c)
        low = (low << 4) | 15
    return out


@njit(cache=True, nogil=True, inline="always")
def _pext_bmi2(meta, x, m):
    return _bmi2(np.int64(x), np.int64(m), "pext")


@njit(cache=True, nogil=True, inline="always")
def _pdep_bmi2(meta, x, m):
    return _bmi2(np.int64(x), np.int64(m), "pdep")


def _has_fast_bmi2() -> bool:
    """Whether numba compiles for this host (no NUMBA_CPU_NAME) and it has a fast pext and
    pdep: BMI2, except AMD before Zen 3, which microcodes them."""
    if config.CPU_NAME or config.CPU_FEATURES:
        return False
    name = llvmlite.binding.get_host_cpu_name()
    return bool(llvmlite.binding.get_host_cpu_features().get("bmi2")) and name not in (
        "znver1", "znver2", "bdver4")


# pext(meta, x, m) / pdep(meta, x, m): the hardware instruction where it is fast, else
# the tables (the same numbers; the hash does not depend on which)
FAST_BMI2 = _has_fast_bmi2()
pext = _pext_bmi2 if FAST_BMI2 else _pext_table
pdep = _pdep_bmi2 if FAST_BMI2 else _pdep_table


@functools.cache
def _colex_bytes(ncells: int) -> np.ndarray:
    """colex[c, m, q]: the colex-rank part of cells 8c..8c+7 holding the set bits of the
    byte q when m chosen cells come before them (sum of C(cell, its 1-based index)). A mask
    ranks a byte per lookup, and since m is the popcount of the mask's lower bytes the
    lookups do not wait for each other (a chain of count lookups cost Quixo's rank 20 ns)."""
    chunks = (ncells + 7) // 8
    colex = np.zeros((chunks, ncells + 1, 256), dtype=np.int64)
    q = np.arange(256)
    bits = (q[:, None] >> np.arange(8)) & 1
    index = np.cumsum(bits, axis=1)  # a set bit's 1-based index within the byte
    binom = _binomials(8 * chunks, ncells + 9)
    for c in range(chunks):
        for m in range(ncells + 1):
            colex[c, m] = (bits * binom[8 * c + np.arange(8), m + index]).sum(axis=1)
    return colex


def _binomials(rows: int, cols: int) -> np.ndarray:
    """C(i, k) for i < rows, k < cols (0 where k > i), as int64."""
    return np.array([[math.comb(i, k) for k in range(cols)] for i in range(rows)],
                    dtype=np.int64)


TABLE_CELLS = 16  # boards up to 16 cells unrank a mask by one lookup (`_subsets`)


@functools.cache
def _subsets(ncells: int) -> np.ndarray:
    """For ncells <= TABLE_CELLS: first[m] (ncells + 1 slots), then every subset of the
    cells as a mask, by size m and colex rank within it (at ncells + 1 + first[m] + rank).
    Colex ranks do not depend on how many cells there are to choose from, so the same
    rows unrank a mask packed into fewer cells (type 1's, among the cells type 0 left)."""
    if ncells > TABLE_CELLS:
        return np.zeros(0, dtype=np.int64)
    masks = np.arange(1 << ncells, dtype=np.int64)
    bits = (masks[:, None] >> np.arange(ncells)) & 1
    size = bits.sum(axis=1)
    binom = _binomials(ncells, ncells + 1)
    rank = (bits * binom[np.arange(ncells), np.cumsum(bits, axis=1)]).sum(axis=1)
    order = np.lexsort((rank, size))
    first = np.concatenate([[0], np.cumsum(np.bincount(size, minlength=ncells + 1))[:-1]])
    return np.concatenate([first, masks[order]]).astype(np.int64)


@functools.cache
def subset_places(ncells: int) -> np.ndarray:
    """place[mask]: the mask's place among every subset of ncells <= TABLE_CELLS cells in
    `_subsets`' order (by size, then colex rank), so a table kept in that order (a
    numbering's per-size tables, concatenated) is read by the set itself, with no rank
    computed first."""
    order = _subsets(ncells)[ncells + 1:]
    place = np.empty(order.size, dtype=np.int64)
    place[order] = np.arange(order.size, dtype=np.int64)
    return place


@functools.cache
def _nibble_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """pop[q]: bits of the nibble q; pext[f * 16 + q]: the bits of q at f's set bits,
    packed low (a software pext, four bits per lookup), and pdep its inverse."""
    pop = np.array([bin(q).count("1") for q in range(16)], dtype=np.int64)
    pext = np.zeros(256, dtype=np.int64)
    for f in range(16):
        for q in range(16):
            bits = [q >> j & 1 for j in range(4) if f >> j & 1]
            pext[f * 16 + q] = sum(b << i for i, b in enumerate(bits))
    pdep = np.zeros(256, dtype=np.int64)
    for f in range(16):
        cells = [j for j in range(4) if f >> j & 1]
        for q in range(16):
            pdep[f * 16 + q] = sum(1 << j for i, j in enumerate(cells) if q >> i & 1)
    return pop, pext, pdep


def _combo_key(counts: Sequence[int], radix: int) -> int:
    key = 0
    for t in range(len(counts) - 2, -1, -1):
        key = key * radix + counts[t]
    return key


def _enumerate_combos(ncells, bounds, predicate):
    """All count vectors within bounds summing to ncells, fewest placed pieces first."""
    k = len(bounds)
    out = []

    def rec(prefix, left):
        t = len(prefix)
        if t == k - 1:
            lo, hi = bounds[t]
            if lo <= left <= hi:
                c = tuple(prefix) + (left,)
                if predicate is None or predicate(c):
                    out.append(c)
            return
        lo, hi = bounds[t]
        for n in range(lo, min(hi, left) + 1):
            rec(prefix + [n], left - n)

    rec([], ncells)
    out.sort(key=lambda c: (sum(c[:-1]), c))
    return out


@njit(cache=True, nogil=True)
def rank(ctx, board, turn):
    """Hash of `board` (piece type per cell) with side `turn`; -1 if its counts are invalid.

    Two and three piece types (the common case) take one branch-free pass over the board
    that builds two bit masks: type 0's cells, and type 1's among the cells type 0 left;
    each mask's colex rank is then summed a byte per lookup (`_colex_bytes`).
    More types count, then rank, type by type."""
    meta, binom, combo_index, counts, combo_radix, combo_offset = ctx
    n = meta[0]
    k = meta[1]
    if k <= 3:
        one = 1 if k == 3 else 127  # type 1, unless it is the last type
        xm = np.int64(0)  # bit i: cell i holds type 0
        om = np.int64(0)  # bit j: the j-th cell without type 0 holds type 1
        m0 = 0
        for i in range(n):
            p = board[i]
            x = np.int64(p == 0)
            xm |= x << i
            om |= np.int64(p == one) << (i - m0)
            m0 += x
        return _rank_packed(meta, binom, combo_index, combo_radix, combo_offset, xm, om,
                            turn)
    radix = n + 1
    key = 0
    place = 1
    for t in range(k - 1):
        c = 0
        for i in range(n):
            c += board[i] == t
        key += c * place
        place *= radix
    combo = combo_index[key]
    if combo < 0:
        return -1
    sub = np.int64(0)
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
    arr = combo_radix[combo, 0] * binom[n, counts[combo, 0]]
    return combo_offset[combo] + turn * arr + sub


# The arrangement rank alone, for games that number a combination's arrangements in
# blocks of their own: rank(ctx, board, turn) == offsets[combination] + turn *
# arrangements(combination) + rank. For two or three piece types it comes in two inlined
# steps that the game calls one after the other, `arrangement_pass` then
# `arrangement_rank`: numba compiled Morris's rank 2.5 times slower when one inlined
# function (or a called one) held both the loop and the lookups after it, or when a
# branch on the number of types stood around the loop.

@njit(cache=True, nogil=True, inline="always")
def arrangement_pass(ctx, board):
    """(type 0's count, type 1's count, type 0's colex rank among all cells, type 1's
    among the cells type 0 left) of a board of two or three piece types, in one pass;
    `arrangement_rank` turns them into the board's combination and rank. Inside a game's
    move loop this beats `rank`'s byte tables, which the game's own data pushes out of
    the cache."""
    meta, binom = ctx[0], ctx[1]
    m0 = 0
    m1 = 0
    u1 = 0  # the cells so far without type 0
    r0 = np.int64(0)
    r1 = np.int64(0)
    for i in range(meta[0]):
        p = board[i]
        if p == 0:
            m0 += 1
            r0 += binom[i, m0]
        else:
            if p == 1:  # a constant: comparing with a variable cost Morris 10%
                m1 += 1
                r1 += binom[u1, m1]
            u1 += 1
    return m0, m1, r0, r1


@njit(cache=True, nogil=True, inline="always")
def arrangement_rank(ctx, m0, m1, r0, r1):
    """(combination, rank among its arrangements) from `arrangement_pass`'s counts and
    ranks; combination -1 (rank -1) when the counts are invalid. With two types, type 1
    is the last: its count is no part of the key, and its place value is 0."""
    meta = ctx[0]
    combo = ctx[2][m0 + (meta[0] + 1) * m1 * (meta[1] - 2)]
    if combo < 0:
        return combo, np.int64(-1)
    return combo, r0 * ctx[4][combo, 0] + r1 * ctx[4][combo, 1]


@njit(cache=True, nogil=True, inline="always")
def _colex_pair(meta, xm, om):
    """(colex rank of mask xm, of mask om), a byte per lookup at the row of the mask's
    bits below the byte. The byte count a constant for the boards games use, so LLVM
    unrolls the lookups and they overlap (Quixo 4x4's canonical children: 340 -> 295 ns a
    position)."""
    n = meta[0]
    chunks = (n + 7) // 8
    if chunks == 2:
        return _colex_bytes_of(meta, xm, om, n, 2)
    if chunks == 3:
        return _colex_bytes_of(meta, xm, om, n, 3)
    if chunks == 4:
        return _colex_bytes_of(meta, xm, om, n, 4)
    return _colex_bytes_of(meta, xm, om, n, chunks)


@njit(cache=True, nogil=True, inline="always")
def _colex_bytes_of(meta, xm, om, n, chunks):
    r0 = np.int64(0)
    r1 = np.int64(0)
    row = 256 * (n + 1)
    low = np.int64(0)  # the cells below byte c
    for c in range(chunks):
        at = BYTES + c * row
        r0 += meta[at + popcount(xm & low) * 256 + ((xm >> (8 * c)) & 255)]
        r1 += meta[at + popcount(om & low) * 256 + ((om >> (8 * c)) & 255)]
        low = (low << 8) | 255
    return r0, r1


@njit(cache=True, nogil=True, inline="always")
def rank_parts(ctx, xm, om):
    """(type 0's colex rank, type 1's among the cells type 0 left) of a three-type board
    given as masks, as `rank_masks` sums them (hashing/orbits.py numbers type 0's sets)."""
    return colex_parts(ctx[0], xm, om)


@njit(cache=True, nogil=True, inline="always")
def colex_parts(meta, xm, om):
    """`rank_parts` from the context's first array: a caller that ranks many boards takes
    it out of the context once (each array taken from a tuple in an inlined function
    costs reference counts)."""
    return _colex_pair(meta, xm, pext(meta, om, ~xm))


@njit(cache=True, nogil=True, inline="always")
def _rank_packed(meta, binom, combo_index, combo_radix, combo_offset, xm, om, turn):
    """rank of a board of two or three types given as type 0's cell mask `xm` and type
    1's mask `om` packed to the cells type 0 left (bit j: the j-th such cell): each mask's
    colex rank summed a byte per lookup, at the row of the mask's bits below the byte.
    Takes the context's arrays, not the tuple: unpacking a tuple of arrays in an inlined
    function costs reference counts at each use."""
    n = meta[0]
    r0, r1 = _colex_pair(meta, xm, om)
    m0 = popcount(xm)
    m1 = popcount(om)
    combo = combo_index[m0 + m1 * (n + 1)]
    if combo < 0:
        return -1
    rad = combo_radix[combo, 0]
    return combo_offset[combo] + (turn * binom[n, m0] + r0) * rad + r1


@njit(cache=True, nogil=True, inline="always")
def rank_masks(ctx, xm, om, turn):
    """`rank` of a board of two or three types given as bit masks (bit i: cell i): `xm`
    type 0's cells, `om` type 1's (0 with two types), the rest the last type. For
    bitboard games, which then need no board array. Type 1's mask is packed to the cells
    type 0 left (`pext`), then ranked as `rank` does."""
    meta, binom, combo_index, _counts, combo_radix, combo_offset = ctx
    return _rank_packed(meta, binom, combo_index, combo_radix, combo_offset, xm,
                        pext(meta, om, ~xm), turn)


@njit(cache=True, nogil=True)
def combo_of(ctx, h):
    """Index of the piece-count combination holding hash h."""
    combo_offset = ctx[5]
    return np.searchsorted(combo_offset, h, side="right") - 1


@njit(cache=True, nogil=True, inline="always")
def _locate(meta, binom, counts, combo_radix, combo_offset, h):
    """(combination, side to move, type 0's rank, the rest's rank) of hash h."""
    combo = np.searchsorted(combo_offset, h, side="right") - 1
    r = h - combo_offset[combo]
    rad = combo_radix[combo, 0]
    hi = r // rad  # turn * C(n, c0) + type 0's rank
    arr0 = binom[meta[0], counts[combo, 0]]
    turn = hi // arr0
    return combo, turn, hi - turn * arr0, r - hi * rad


@njit(cache=True, nogil=True, inline="always")
def _unrank_masks(meta, binom, counts, combo_radix, combo_offset, h):
    """`unrank_masks` on the context's arrays (see _rank_packed)."""
    combo, turn, r0, r1 = _locate(meta, binom, counts, combo_radix, combo_offset, h)
    m1 = counts[combo, 1] if meta[1] == 3 else 0
    xm, om = masks_of_ranks(meta, binom, counts[combo, 0], m1, r0, r1)
    return turn, xm, om


@njit(cache=True, nogil=True, inline="always")
def masks_of_ranks(meta, binom, m0, m1, r0, r1):
    """(type 0's cell mask, type 1's) of the board with m0 pieces of type 0 at colex rank
    r0 and m1 of type 1 at rank r1 among the cells type 0 left: the inverse of
    `rank_parts`, for a game that numbers boards by those ranks itself."""
    n = meta[0]
    if n <= TABLE_CELLS:
        at = BYTES + ((n + 7) // 8) * (n + 1) * 256
        xm = meta[at + n + 1 + meta[at + m0] + r0]
        return xm, pdep(meta, meta[at + n + 1 + meta[at + m1] + r1], ~xm)
    xm = np.int64(0)
    pm = np.int64(0)  # type 1's bits among the cells type 0 left
    # branch-free: a type's binomial never fits once its pieces are all placed (its
    # remaining rank is 0 and C(i, 0) = 1)
    for i in range(n - 1, -1, -1):
        b = binom[i, m0]
        x = np.int64(b <= r0)
        r0 -= b & -x
        m0 -= x
        b = binom[i, m1]
        o = np.int64(b <= r1)
        r1 -= b & -o
        m1 -= o
        xm |= x << i
        pm |= o << i
    return xm, pdep(meta, pm, ~xm)


@njit(cache=True, nogil=True, inline="always")
def unrank_masks(ctx, h):
    """(side to move, type 0's cell mask, type 1's cell mask) of hash h, for two or three
    types (type 1's mask is 0 with two): the inverse of `rank_masks`.

    Two independent greedy colex decodes from the last cell down, one per type: cell i
    is type 0 when C(i, type 0's pieces left) fits its remaining rank, and the i-th cell
    type 0 left is type 1 the same way (C(i, m) > rank for i past those cells, so both
    run over every cell, side by side). Type 1's bits are then spread over the cells
    type 0 left (`pdep`)."""
    meta, binom, _index, counts, combo_radix, combo_offset = ctx
    return _unrank_masks(meta, binom, counts, combo_radix, combo_offset, h)


@njit(cache=True, nogil=True)
def unrank(ctx, h, board):
    """Write the board of hash h into `board`; return the side to move.

    Three or two types decode their masks (`unrank_masks`); more decode type by type."""
    meta, binom, _index, counts, combo_radix, combo_offset = ctx
    n = meta[0]
    k = meta[1]
    if k <= 3:
        turn, xm, om = _unrank_masks(meta, binom, counts, combo_radix, combo_offset, h)
        last = k - 1
        for i in range(n):
            x = (xm >> i) & 1
            o = (om >> i) & 1
            board[i] = o + (1 - x - o) * last
        return turn
    combo, turn, _r0, _r1 = _locate(meta, binom, counts, combo_radix, combo_offset, h)
    r = h - combo_offset[combo]
    rad = combo_radix[combo, 0]
    arr0 = binom[n, counts[combo, 0]]
    arr = rad * arr0
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


@njit(cache=True, nogil=True, inline="always")
def unrank_arrangement(ctx, combo, r, board):
    """Write into `board` the arrangement of rank r among combination `combo`'s, for two
    or three piece types (the inverse of `arrangement_rank`): greedily from the last cell
    down, type 0's cells among all, then type 1's among the cells type 0 left, each pass
    done once its pieces are placed."""
    meta, binom, _index, counts, combo_radix, _offset = ctx
    n = meta[0]
    last = meta[1] - 1
    rad = combo_radix[combo, 0]
    r0 = r // rad
    r1 = r - r0 * rad
    m = counts[combo, 0]
    for i in range(n - 1, -1, -1):
        if m > 0 and binom[i, m] <= r0:
            board[i] = 0
            r0 -= binom[i, m]
            m -= 1
        else:
            board[i] = last
    m = counts[combo, 1] if last == 2 else 0
    u = n - counts[combo, 0] - 1  # the cells type 0 left, below cell i
    for i in range(n - 1, -1, -1):
        if m == 0:
            break
        if board[i] == 0:
            continue
        if binom[u, m] <= r1:
            board[i] = 1
            r1 -= binom[u, m]
            m -= 1
        u -= 1
