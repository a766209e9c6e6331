"""Quixo on an n x n board (n = 3, 4, 5; n in a row wins), GamesmanOne's rules exactly.

Rules (GamesmanOne src/games/quixo/quixo.c, after F. Bonnet's published solver):

* Every cube shows X, O or nothing (blank); the board starts blank, X moves first, no
  passing, no repetition rule (loopy: draws are real).
* A move takes a border cube that is blank or the mover's (never the opponent's), turns it
  to the mover's symbol and inserts it at one end of its row or column, not the end it
  came from; the cubes in between slide one step (a corner cube has 2 moves, another border
  cube 3; different moves may give the same board).
* A line is n of one symbol in a row, column or main diagonal. For the player to move:
  WIN if they have a line (made by the opponent's push), whether or not the opponent has
  one too (so a push that makes lines for both players loses for the pusher), else LOSE
  if the opponent has a line. A player always has a move otherwise.

Differences from GamesmanOne: none in the rules. Its tier solver solves every position of
a tier that passes a weak legality test (the last mover has a border cube); gsolve solves
the positions reachable from the start, so counts compare on that set only. The move
names use GamesmanOne's letters without its space. Symmetry: the 8 symmetries of the square
(`canonical`, `orbit`; a symmetry maps rows/columns/diagonals and border pushes to their kind).

Position string: rows top first joined by '/', cells `X`, `O`, `-` (blank), then a space
and the side to move, `x` or `o`. Start (4x4): `----/----/----/---- x`.

Moves: the cell taken (1..n*n, reading order) and the end it goes in at: `L`/`R` of its
row, `U`/`D` of its column (GamesmanOne's "1 R" is `1R`: the top-left cube goes in at the
right end of the top row, which slides left).

Hash: the generic hash over (X, O, blank) counts with a turn bit, 2 * 3^(n*n) slots
(3x3: 39,366; 4x4: 86,093,442; 5x5: 1.7e12, defined only). Tiers: one per (X, O) count,
GamesmanOne's tiers: a move keeps the counts or adds one cube of the mover's.
Un-moves: the last mover's cube at a line end goes back to a border cell of that line;
those in the same tier (the cell held the mover's cube, not a blank) are `parents_in_tier`.
"""

from __future__ import annotations

import math

import numpy as np

from games import register
from games.base import INDEXED, Game, PositionError, Tier, Variant, forms, hash_tiers
from games.common import mask_symmetries, mask_symmetry_cells, orbit_masks, rank_image
from games.pushing import (
    BLANK,
    push_children,
    push_parents,
    push_primitive,
    push_table,
)
from hashing import HashContext
from hashing.generic import colex_parts, masks_of_ranks, popcount, subset_places, unrank_masks
from hashing.jit import njit
from hashing.orbits import least_set_tables

# ctx = (generic hash, pushing.push_table, common.mask_symmetries, the numbering's tables:
# `Quixo._numbering`). Every rule comes in a plain, a `_canonical` form (positions
# replaced by their canonical images, for solver/kernels/symmetry.py) and an `_indexed`
# one (positions as their canonical indices, solver/kernels/compact.py): one inlined body
# each, its forms made by games.base.forms with `canon` constant.


@njit(cache=True, nogil=True)
def primitive(ctx, h, scratch):
    hctx, pt = ctx[0], ctx[1]
    turn, xm, om = unrank_masks(hctx, h)
    return push_primitive(pt, om if turn else xm, xm if turn else om)


@njit(cache=True, nogil=True, inline="always")
def _unrank_as(ctx, x, canon):
    """(side to move, X's mask, O's mask) of hash x, or (canon 2) of the position at
    index x (`canonical_index`)."""
    if canon == 2:
        hctx = ctx[0]
        _combo, turn, m0, r0, m1, r1 = _place(ctx[3], x)
        xm, om = masks_of_ranks(hctx[0], hctx[1], m0, m1, r0, r1)
        return turn, xm, om
    return unrank_masks(ctx[0], x)


@forms("children", "expand", canonical=True, indexed=True)
@njit(cache=True, nogil=True, inline="always")
def _children(ctx, h, out, moves, scratch, canon, expand):
    """`children`, or (expand) `primitive` then `children` from one unranking (the
    solvers' hot loop): minus the value of a primitive position, else its number of
    children."""
    hctx, pt, sym = ctx[0], ctx[1], ctx[2]
    turn, xm, om = _unrank_as(ctx, h, canon)
    mine = om if turn else xm
    theirs = xm if turn else om
    if expand:
        v = push_primitive(pt, mine, theirs)
        if v != 0:
            return -v
    n = push_children(hctx, pt, turn, mine, theirs, out, moves, sym, canon)
    return _indices(ctx[0][0], ctx[3], out, n) if canon == INDEXED else n


@forms("parents", "parents_in_tier", canonical=True, indexed=True)
@njit(cache=True, nogil=True, inline="always")
def _parents(ctx, h, out, scratch, canon, same_tier):
    hctx, pt, sym = ctx[0], ctx[1], ctx[2]
    turn, xm, om = _unrank_as(ctx, h, canon)
    n = push_parents(hctx, pt, turn, om if turn else xm, xm if turn else om, out, sym,
                     canon, same_tier)
    return _indices(ctx[0][0], ctx[3], out, n) if canon == INDEXED else n


@njit(cache=True, nogil=True)
def canonical(ctx, h, scratch):
    hctx, sym = ctx[0], ctx[2]
    turn, xm, om = unrank_masks(hctx, h)
    return rank_image(hctx, sym, True, xm, om, turn)


@njit(cache=True, nogil=True)
def orbit(ctx, h, scratch):
    turn, xm, om = unrank_masks(ctx[0], h)
    return orbit_masks(ctx[2], xm, om)


# -- the numbering of canonical positions (solver/kernels/compact.py) ---------------------
# A canonical board's X set is the least of its images (hashing/orbits.py), so a board
# numbers as its combination's first index, then the side to move, then its X set's place
# among the least X sets, then O's rank among the cells X left: the hash's order, with
# C(n*n, x) X ranks down to the least ones (about 1/8). A compact solve then builds and
# keeps no index of canonical slots (4x4 with --symmetry, 2 threads, back to back: 16.9-17.1
# s with the index cached, 16.1-16.6 s numbered; the index's first build adds 5 s).
NUMBERED_CELLS = 16  # 5x5 would hold tables of 2^25 sets (0.3 GB) for a game not solvable


# `num`, ctx[3], one array (each array an inlined rule takes out of ctx costs reference
# counts: the tables as five arrays made Quixo's indexed children 250 ns a position
# slower than its canonical ones): a header, each combination's first index, its facts,
# then the place of each X set among the least ones, the inverse, each count pair's facts
# (PAIRS) and the place of each X set by the set itself (BYMASK).
NBLOCKS, INFO, PLACE, XRANK, PAIRS, BYMASK = range(6)
ISTART = 8  # num[ISTART + c]: combination c's first index (and the total after the last)
RAD, XS, OS, LEAST, FIRST_R, FIRST_I = range(6)  # a combination's facts, at INFO + 6c
P_START, P_LEAST, P_RAD = range(3)  # a count pair's, at PAIRS + 3 (x (nn + 1) + o)


@njit(cache=True, nogil=True, inline="always")
def canonical_index(ctx, h):
    """The index of canonical h in the numbering above."""
    hctx, num = ctx[0], ctx[3]
    binom, counts, radix, coffset = hctx[1], hctx[3], hctx[4], hctx[5]
    combo = np.searchsorted(coffset, h, side="right") - 1
    r = h - coffset[combo]
    rad = radix[combo, 0]
    hi = r // rad
    arr0 = binom[hctx[0][0], counts[combo, 0]]
    turn = hi // arr0
    f = num[INFO] + 6 * combo
    return num[ISTART + combo] + (turn * num[f + LEAST]
                                  + num[num[PLACE] + num[f + FIRST_I] + hi - turn * arr0]) \
        * rad + r - hi * rad


@njit(cache=True, nogil=True, inline="always")
def _place(num, i):
    """(combination, side to move, X's count and colex rank, O's count and rank) of the
    position at index i."""
    lo = 0
    hi = num[NBLOCKS]
    while hi - lo > 1:  # the combination: the last first index <= i
        mid = (lo + hi) >> 1
        if num[ISTART + mid] <= i:
            lo = mid
        else:
            hi = mid
    f = num[INFO] + 6 * lo
    local = i - num[ISTART + lo]
    rad, least = num[f + RAD], num[f + LEAST]
    q = local // rad
    turn = q // least
    return (lo, turn, num[f + XS], num[num[XRANK] + num[f + FIRST_R] + q - turn * least],
            num[f + OS], local - q * rad)


@njit(cache=True, nogil=True, inline="always")
def canonical_slot(ctx, i):
    """The hash at index i (`canonical_index`)."""
    hctx = ctx[0]
    combo, turn, x, r0, _o, r1 = _place(ctx[3], i)
    return hctx[5][combo] + (turn * hctx[1][hctx[0][0], x] + r0) * hctx[4][combo, 0] + r1


@njit(cache=True, nogil=True)
def _indices(meta, num, out, count):
    """Turn the moves collected in `out` as canonical `board_word`s into their indices, in
    one loop (ranking each where it is found takes arrays out of ctx at every move; and
    it takes the two arrays it reads, not ctx, whose every array a call counts)."""
    nn = meta[0]
    low = (np.int64(1) << nn) - 1
    pairs, bymask = num[PAIRS], num[BYMASK]  # read once: out[] may alias num for LLVM
    for j in range(count):
        w = out[j]
        turn, x, o = w >> (2 * nn), (w >> nn) & low, w & low
        _r0, r1 = colex_parts(meta, x, o)  # (x's rank goes unused: LLVM drops it)
        f = pairs + 3 * (popcount(x) * (nn + 1) + popcount(o))  # the counts' PAIR facts
        out[j] = num[f + P_START] + (turn * num[f + P_LEAST] + num[bymask + x]) \
            * num[f + P_RAD] + r1
    return count


@register
class Quixo(Game):
    """Quixo, and the base of its family (games/cambio.py): the board, the generic hash
    with a turn bit, the position string and the move names, each game with its own cell
    letters (`chars`: X, O, blank) and push ends (`ends`: into the row from the left and
    the right, into the column from the top and the bottom)."""

    name = "quixo"
    title = "Quixo"
    loopy = True
    variants = {
        "size": Variant(3, 3, 5, "board side n, n in a row wins (4: 86M slots; 5: defined)"),
    }
    chars = "XO-"
    ends = "LRUD"
    cell_words = "X, O or -"

    def __init__(self, **variant):
        super().__init__(**variant)
        self.n = n = self.variant["size"]
        nn = n * n
        self.hash = HashContext(nn, [(0, nn)] * 3, turn=True)
        self.hash_size = self.hash.size
        self.canonical_size = None
        numbering = self._numbering() if nn <= NUMBERED_CELLS else np.zeros(ISTART, np.int64)
        self.ctx = (self.hash.nb, push_table(n), mask_symmetries(n), numbering)
        self.max_children = 12 * n - 16  # 4 corners with 2 pushes, other border cubes 3
        self.max_parents = 2 * self.max_children
        self.scratch_size = 0
        self.max_remoteness = 4095
        self.start = self.hash.rank(np.full(nn, BLANK, dtype=np.int8), 0)
        self.cell_text = bytes.maketrans(bytes(range(len(self.chars))), self.chars.encode())

    def _numbering(self) -> np.ndarray:
        """`num`, the numbering's one array (layout above): for each X count, the place of
        each X set among the least ones and the inverse (hashing/orbits.py); each
        combination's first index (4x4: 11,729,222 indices for 10,796,166 canonical
        slots)."""
        nn = self.n * self.n
        index, rank, first_i, first_r = least_set_tables(mask_symmetry_cells(self.n), nn)
        counts = self.hash.nb[3]
        nb = counts.shape[0]
        istart = np.zeros(nb + 1, dtype=np.int64)
        info = np.zeros((nb, 6), dtype=np.int64)
        combo = np.full((nn + 1) ** 2, -1, dtype=np.int64)
        for c, (x, o) in enumerate(counts[:, :2].tolist()):
            least = int(first_r[x + 1] - first_r[x])
            info[c] = (math.comb(nn - x, o), x, o, least, first_r[x], first_i[x])
            istart[c + 1] = istart[c] + 2 * least * math.comb(nn - x, o)
            combo[x * (nn + 1) + o] = c
        self.canonical_size = int(istart[-1])
        # PAIRS: for each (X count, O count), its combination's facts `_indices` reads, in
        # one place (no lookup of the combination first); BYMASK: the place of each X set
        # among the least ones by the set itself (no colex rank of it first)
        pairs = np.zeros(((nn + 1) ** 2, 3), dtype=np.int64)
        ok = combo >= 0
        pairs[ok] = np.stack([istart[combo[ok]], info[combo[ok], LEAST], info[combo[ok], RAD]],
                             axis=1)
        bymask = index[subset_places(nn)]  # index is by size, then colex rank
        header = np.zeros(ISTART, dtype=np.int64)
        parts = [istart, info.ravel(), index, rank, pairs.ravel(), bymask]
        at = np.cumsum([ISTART] + [p.size for p in parts])
        header[[NBLOCKS, INFO, PLACE, XRANK, PAIRS, BYMASK]] = (nb, *at[1:6])
        return np.concatenate([header] + parts)

    def tiers(self) -> list[Tier]:
        return hash_tiers(self.hash, lambda c: f"{c[0]} X, {c[1]} O",
                          lambda c: [c, (c[0] + 1, c[1], c[2] - 1),
                                     (c[0], c[1] + 1, c[2] - 1)])

    def to_string(self, h: int) -> str:
        if not 0 <= h < self.hash_size:
            raise PositionError(f"{self.name} hash {h} out of range")
        board, turn = self.hash.unrank(h)
        n = self.n
        cells = board.tobytes().translate(self.cell_text).decode()  # a third of a join's time
        rows = "/".join(cells[r * n:(r + 1) * n] for r in range(n))
        return f"{rows} {'xo'[turn]}"

    def from_string(self, s: str) -> int:
        n = self.n
        parts = s.split()
        if (len(parts) != 2 or parts[1] not in ("x", "o")
                or len(rows := parts[0].split("/")) != n or any(len(r) != n for r in rows)):
            raise PositionError(
                f"{self.name} position '{s}' should be {n} rows of {n} cells "
                f"({self.cell_words}) joined by '/', then a space and the side to move, "
                f"e.g. '{'/'.join([self.chars[BLANK] * n] * n)} x'")
        cells = "".join(rows)
        if bad := [ch for ch in cells if ch not in self.chars]:
            raise PositionError(
                f"{self.name} position '{s}': '{bad[0]}' is not a cell ({self.cell_words})")
        board = np.array([self.chars.index(ch) for ch in cells], dtype=np.int8)
        turn = "xo".index(parts[1])
        self.check_reachable(s, cells, turn)
        return self.hash.rank(board, turn)

    def check_reachable(self, s: str, cells: str, turn: int) -> None:
        """PositionError unless the start can lead to the board: X moved first, and the
        last mover's cube went in at the border."""
        n = self.n
        nx, no = cells.count("X"), cells.count("O")
        border = [cells[r * n + c] for r in range(n) for c in range(n)
                  if r in (0, n - 1) or c in (0, n - 1)]
        if nx + no == 0:
            ok = turn == 0
        else:
            ok = nx > 0 and "XO"[1 - turn] in border and (no > 0 or (turn, nx) == (1, 1))
        if not ok:
            raise PositionError(
                f"{self.name} position '{s}' cannot occur: X moves first and the last "
                "mover's cube is on the border")

    def move_name(self, h: int, code: int) -> str:
        return f"{code // 4 + 1}{self.ends[code % 4]}"
