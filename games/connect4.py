"""Connect-k on a width x height board with gravity (Connect Four is 7x6, connect 4).

Position string: rows top first joined by '/', cells `X`, `O`, `-`; pieces fall to the
bottom row, so no column has an empty cell below a piece. X moves first and the side to
move follows from the counts (X has as many pieces as O, or one more). A move drops the
mover's piece into a column that is not full; moves are named by column, `1`..`width`
from the left. The player to move loses when the opponent has `connect` pieces in a row
(horizontally, vertically or diagonally); a full board without such a line is a tie.
Start of the 4x4 board: `----/----/----/----`.

Hash: dense over boards that respect gravity and the counts. With n pieces placed, the
position is (column-height vector, colouring of its n occupied cells with ceil(n/2) X):

    hash = offset[n] + heightrank_n(heights) * C(n, ceil(n/2)) + colouring rank

where heightrank_n numbers the height vectors summing to n and the colouring rank is the
combinatorial-number-system rank of the set of X cells among the occupied cells, taken
column by column from the left, bottom to top. Every hash is a valid board (no wasted
slot); 5x5 has 171,976,899. The hash is ordered by pieces placed, then by height vector,
so each height vector is a tier: a contiguous range of C(n, ceil(n/2)) colourings whose
children lie in the (at most `width`) tiers one piece higher in one column. Tiers with
the same piece count are independent of each other, so they solve side by side.
Symmetry: the mirror image (`canonical`, `orbit`).

Internally a board is a pair of bitboards, column c using bits c*(height+1) ..
c*(height+1)+height-1 (bottom first) plus an always-empty guard bit, so lines are found with
shifts; the occupied cells in bit order are exactly the colouring order above.
"""

from __future__ import annotations

import math

import numpy as np

from games.base import LOSE, TIE, Game, PositionError, Tier, Variant, parse_board
from games.registry import register
from hashing.jit import njit

CHARS = "XO-"
MAX_HASH = 2**62

# The context is one int64 table (one array: calls between jitted functions reference-count
# every array they pass, so fewer arrays is faster). Header slots, then sections:
W, HT, K, NCELLS, STRIDE, BW, OFF, NCOL, BINOM, HRANK, HCODE, HSTART = range(12)
HEADER = 12
#   OFF:    offsets[n], n = 0..ncells+1: first hash of tier n (pieces placed)
#   NCOL:   C(n, ceil(n/2)): colourings of n occupied cells
#   BINOM:  C(a, b) at BINOM + a*bw + b (a row of zeros before row 0, for reads at a = -1)
#   HRANK:  packed heights (3 bits a column) -> rank among height vectors with that sum
#   HCODE:  packed heights by (n, rank), tier n starting at HSTART[n]


@njit(cache=True, nogil=True, inline="always")
def _locate(t, h):
    """(pieces placed, packed heights, colouring rank) of hash h."""
    off = t[OFF]
    lo = 0
    hi = t[NCELLS] + 1
    while hi - lo > 1:  # offsets[lo] <= h < offsets[hi]
        mid = (lo + hi) >> 1
        if t[off + mid] <= h:
            lo = mid
        else:
            hi = mid
    r = h - t[off + lo]
    cnt = t[t[NCOL] + lo]
    hr = r // cnt
    return lo, t[t[HCODE] + t[t[HSTART] + lo] + hr], r - hr * cnt


@njit(cache=True, nogil=True, inline="always")
def _decode(t, h):
    """(pieces placed, packed heights, X bitboard, O bitboard) of hash h.

    Greedy combinatorial unranking from the top colouring index down: the cell at index i
    is an X exactly when C(i, k) <= rank, k being the X cells at or below i (C(i, 0) = 1 >
    rank = 0 once every X is placed; C(i, i + 1) = 0 when all the rest are X). Both
    possible next binomials are loaded before the comparison, to shorten the dependency
    chain."""
    width = t[W]
    stride = t[STRIDE]
    bw = t[BW]
    n, code, cr = _locate(t, h)
    k = (n + 1) // 2
    p = t[BINOM] + (n - 1) * bw + k
    b = t[p]
    pat = np.int64(0)  # bit i: colouring index i is an X
    for i in range(n - 1, -1, -1):
        b0 = t[p - bw]
        b1 = t[p - bw - 1]
        is_x = np.int64(b <= cr)
        pat |= is_x << i
        cr -= b * is_x
        p -= bw + is_x
        b = b1 if is_x else b0
    bx = np.int64(0)
    occ = np.int64(0)
    s = 0
    for c in range(width):
        hc = (code >> (3 * c)) & 7
        mask = (np.int64(1) << hc) - 1
        col = c * stride
        bx |= ((pat >> s) & mask) << col
        occ |= mask << col
        s += hc
    return n, code, bx, occ ^ bx


@njit(cache=True, nogil=True, inline="always")
def _has_line(t, b):
    """True when bitboard b holds `connect` in a row (runs doubled by shifts)."""
    k = t[K]
    stride = t[STRIDE]
    for j in range(4):
        d = 1 if j == 0 else stride - 2 + j  # vertical, then /, horizontal, \
        m = b
        run = 1
        while 2 * run <= k:
            m &= m >> (run * d)
            run *= 2
        if run < k:
            m &= m >> ((k - run) * d)
        if m != 0:
            return True
    return False


@njit(cache=True, nogil=True)
def primitive(ctx, h, scratch):
    t = ctx[0]
    n, _code, bx, bo = _decode(t, h)
    # the player who just moved has (n + 1) // 2 pieces: a line needs `connect` of them
    if (n + 1) // 2 >= t[K] and _has_line(t, bx if n % 2 == 1 else bo):
        return LOSE
    if n == t[NCELLS]:
        return TIE
    return 0


@njit(cache=True, nogil=True, inline="always")
def _children(t, h, out, moves):
    """(children, X bitboard, O bitboard): one pass from the top of the last column down,
    decoding the colouring. Inserting a piece below an X at (index i, rank k) moves it to
    (i + 1, k + 1) when X moves, to (i + 1, k) when O moves: its term C(i, k) grows by
    C(i, k + 1), or by C(i, k - 1). The pass sums that growth over the X cells above the
    current point, so the child's colouring rank at each insertion point is rank + growth
    (+ the new X's own term). The board comes out of the same pass for `expand`.
    Returns (children, pieces placed, X bitboard, O bitboard)."""
    width = t[W]
    height = t[HT]
    bw = t[BW]
    stride = t[STRIDE]
    n, code, cr = _locate(t, h)
    total = cr
    kx = np.int64(n % 2 == 0)  # 1 when X moves
    sgn = 2 * kx - 1
    base = t[t[OFF] + n + 1]
    cnt1 = t[t[NCOL] + n + 1]
    hrank = t[HRANK]
    k = (n + 1) // 2
    p = t[BINOM] + (n - 1) * bw + k  # C(i, k) of the next cell to decode
    b = t[p]
    grow = np.int64(0)
    bx = np.int64(0)
    occ = np.int64(0)
    m = width
    for c in range(width - 1, -1, -1):
        hc = (code >> (3 * c)) & 7
        if hc < height:
            # the new piece gets index i + 1 with k X cells below it: term C(i + 1, k + 1)
            m -= 1
            out[m] = base + t[hrank + code + (1 << (3 * c))] * cnt1 + total + grow \
                + kx * t[p + bw + 1]
            moves[m] = c
        occ |= ((np.int64(1) << hc) - 1) << (c * stride)
        for j in range(hc - 1, -1, -1):
            b0 = t[p - bw]
            b1 = t[p - bw - 1]
            d = t[p + sgn]
            is_x = np.int64(b <= cr)
            cr -= b * is_x
            grow += d * is_x
            bx |= is_x << (c * stride + j)
            p -= bw + is_x
            b = b1 if is_x else b0
    # children were written from the end, rightmost column last: move them to the front
    if m > 0:
        for i in range(width - m):
            out[i] = out[i + m]
            moves[i] = moves[i + m]
    return width - m, n, bx, occ ^ bx


@njit(cache=True, nogil=True)
def children(ctx, h, out, moves, scratch):
    return _children(ctx[0], h, out, moves)[0]


@njit(cache=True, nogil=True)
def expand(ctx, h, out, moves, scratch):
    """`primitive` and `children` in one decoding pass (the solvers' hot loop): minus the
    value of a primitive position, else its number of children."""
    t = ctx[0]
    m, n, bx, bo = _children(t, h, out, moves)
    # the player who just moved has (n + 1) // 2 pieces: a line needs `connect` of them
    if (n + 1) // 2 >= t[K] and _has_line(t, bx if n % 2 == 1 else bo):
        return -LOSE
    if n == t[NCELLS]:
        return -TIE
    return m


@njit(cache=True, nogil=True)
def parents(ctx, h, out, scratch):
    """Un-moves: lift the top piece of a column when it is the last mover's. None when the
    player to move already has a line (every such parent would be a finished game).
    Lifting a cell below an X at (i, k) moves it to (i - 1, k - 1) when the lifted cell is
    an X, else to (i - 1, k): its term shrinks by C(i - 1, k), or by C(i - 1, k - 1)."""
    t = ctx[0]
    width = t[W]
    bw = t[BW]
    n, code, bx, bo = _decode(t, h)
    if n == 0:
        return 0
    if _has_line(t, bx if n % 2 == 0 else bo):
        return 0
    _n, _code, cr = _locate(t, h)
    total = cr
    kx = np.int64(n % 2 == 1)  # 1 when X made the last move
    base = t[t[OFF] + n - 1]
    cnt0 = t[t[NCOL] + n - 1]
    hrank = t[HRANK]
    k = (n + 1) // 2
    p = t[BINOM] + (n - 1) * bw + k
    shrink = np.int64(0)
    m = 0
    for c in range(width - 1, -1, -1):
        hc = (code >> (3 * c)) & 7
        for j in range(hc):
            b = t[p]
            is_x = np.int64(b <= cr)
            if j == 0 and is_x == kx:
                out[m] = base + t[hrank + code - (1 << (3 * c))] * cnt0 + total - shrink \
                    - b * is_x
                m += 1
            shrink += t[p - bw - 1 + kx] * is_x
            cr -= b * is_x
            p -= bw + is_x
    return m


@njit(cache=True, nogil=True)
def _mirror(t, h):
    """Hash of h's mirror image (columns reversed): heights reversed, then the colouring
    ranked column by column from the left, bottom first, as in the hash."""
    width = t[W]
    stride = t[STRIDE]
    bw = t[BW]
    n, code, bx, _bo = _decode(t, h)
    mcode = np.int64(0)
    for c in range(width):
        mcode |= ((code >> (3 * c)) & 7) << (3 * (width - 1 - c))
    cr = np.int64(0)
    i = 0
    k = 0
    for c in range(width - 1, -1, -1):  # the mirror's column width - 1 - c, from the left
        for j in range((code >> (3 * c)) & 7):
            if (bx >> (c * stride + j)) & 1:
                k += 1
                cr += t[t[BINOM] + i * bw + k]
            i += 1
    return t[t[OFF] + n] + t[t[HRANK] + mcode] * t[t[NCOL] + n] + cr


@njit(cache=True, nogil=True)
def canonical(ctx, h, scratch):
    """Symmetry (solver/kernels/symmetry.py): the smaller hash of h and its mirror image."""
    return min(h, _mirror(ctx[0], h))


@njit(cache=True, nogil=True)
def orbit(ctx, h, scratch):
    """How many distinct images h has: 1 when it is its own mirror image, else 2."""
    return 1 if _mirror(ctx[0], h) == h else 2


def _pack(heights) -> int:
    """Column heights packed 3 bits a column, column 0 lowest."""
    return sum(int(hc) << (3 * c) for c, hc in enumerate(heights))


@register
class Connect4(Game):
    name = "connect4"
    title = "Connect Four (connect-k with gravity)"
    columns = True  # a piece falls down its column: a viewer plays a column, not a cell
    variants = {
        "width": Variant(4, 1, 7, "columns"),
        "height": Variant(4, 1, 7, "rows"),
        "connect": Variant(4, 1, 7, "pieces in a row that win"),
    }

    def __init__(self, **variant):
        super().__init__(**variant)
        w, ht, k = self.variant["width"], self.variant["height"], self.variant["connect"]
        self.width, self.height, self.connect = w, ht, k
        ncells = w * ht
        stride = ht + 1
        self.stride = stride
        self.ncells = ncells
        # height vectors grouped by pieces placed, in packed-code order inside a group
        digits = np.indices((stride,) * w, dtype=np.int64).reshape(w, -1)
        codes = (digits << (3 * np.arange(w, dtype=np.int64))[:, None]).sum(axis=0)
        sums = digits.sum(axis=0)
        order = np.lexsort((codes, sums))
        hcode = codes[order]
        per_n = np.bincount(sums, minlength=ncells + 1)
        hstart = np.zeros(ncells + 2, dtype=np.int64)
        hstart[1:] = np.cumsum(per_n)
        hrank = np.zeros(8**w, dtype=np.int64)
        hrank[hcode] = np.arange(len(hcode), dtype=np.int64) - hstart[sums[order]]
        ncol = np.array([math.comb(n, (n + 1) // 2) for n in range(ncells + 2)], np.int64)
        sizes = [int(per_n[n]) * math.comb(n, (n + 1) // 2) for n in range(ncells + 1)]
        total = sum(sizes)
        if total >= MAX_HASH:
            raise ValueError(f"a {w}x{ht} board has too many positions to number")
        offsets = np.zeros(ncells + 2, dtype=np.int64)
        for n in range(ncells + 1):
            offsets[n + 1] = offsets[n] + sizes[n]
        bw = ncells + 3
        binom = np.zeros((ncells + 3) * bw, dtype=np.int64)  # row a = C(a, .) at (a + 1) * bw
        for a in range(ncells + 2):
            for b in range(a + 1):
                binom[(a + 1) * bw + b] = math.comb(a, b)
        sections = [offsets, ncol, binom, hrank, hcode, hstart]
        header = [w, ht, k, ncells, stride, bw]
        at = HEADER
        for sec in sections:
            header.append(at if sec is not binom else at + bw)
            at += len(sec)
        table = np.concatenate([np.array(header, np.int64), *sections])
        self.ctx = (table,)
        self.hrank = hrank
        self.hcode, self.hstart, self.ncol = hcode, hstart, ncol
        self.offsets = offsets
        self.hash_size = total
        self.start = 0
        self.max_children = w
        self.scratch_size = 1
        self.max_remoteness = ncells

    # -- tiers -----------------------------------------------------------------------
    def tiers(self) -> list[Tier]:
        """One tier per column-height vector, in hash order (pieces placed, then the
        height vector's rank); its children add one piece to a column that is not full."""
        w, ht = self.width, self.height
        code = self.hcode
        n = np.repeat(np.arange(self.ncells + 1), np.diff(self.hstart[:self.ncells + 2]))
        rank = np.arange(len(code)) - self.hstart[n]
        start = self.offsets[n] + rank * self.ncol[n]
        stop = start + self.ncol[n]
        kids = []
        for c in range(w):
            hc = (code >> (3 * c)) & 7
            up = code + (1 << (3 * c))
            ok = hc < ht
            kids.append(np.where(ok, self.hstart[np.minimum(n + 1, self.ncells)]
                                 + self.hrank[np.where(ok, up, 0)], -1))
        kids = np.stack(kids, axis=1)
        digits = [((code >> (3 * c)) & 7) for c in range(w)]
        out = []
        for i in range(len(code)):
            label = f"{n[i]} pieces, heights " + "".join(str(int(d[i])) for d in digits)
            out.append(Tier(label, int(start[i]), int(stop[i]),
                            tuple(int(k) for k in kids[i] if k >= 0)))
        return out

    # -- positions -------------------------------------------------------------------
    def _cells(self, h: int) -> list[str]:
        """Row-major characters, top row first."""
        if not 0 <= h < self.hash_size:
            raise PositionError(f"connect4 hash {h} is out of range 0..{self.hash_size - 1}")
        _n, _code, bx, bo = _decode(self.ctx[0], h)
        cells = []
        for r in range(self.height):
            j = self.height - 1 - r
            for c in range(self.width):
                bit = 1 << (c * self.stride + j)
                cells.append("X" if bx & bit else "O" if bo & bit else "-")
        return cells

    def to_string(self, h: int) -> str:
        cells = self._cells(h)
        w = self.width
        return "/".join("".join(cells[i:i + w]) for i in range(0, len(cells), w))

    def from_string(self, s: str) -> int:
        s = s.strip()
        cells = parse_board(s, [self.width] * self.height, CHARS, self.name)
        w, ht = self.width, self.height
        heights = []
        colour = []  # occupied cells, column by column from the left, bottom first
        for c in range(w):
            col = [cells[(ht - 1 - j) * w + c] for j in range(ht)]  # bottom first
            hc = 0
            while hc < ht and col[hc] != "-":
                hc += 1
            if any(ch != "-" for ch in col[hc:]):
                raise PositionError(
                    f"connect4 position '{s}' cannot occur: column {c + 1} has an empty "
                    "cell under a piece (pieces fall to the bottom)")
            heights.append(hc)
            colour.extend(col[:hc])
        nx, no = colour.count("X"), colour.count("O")
        if nx not in (no, no + 1):
            raise PositionError(
                f"connect4 position '{s}' cannot occur: X moves first, so X must have as "
                f"many pieces as O or one more (X={nx}, O={no})")
        n = nx + no
        hr = int(self.hrank[_pack(heights)])
        cr = 0
        k = 0
        for i, ch in enumerate(colour):
            if ch == "X":
                k += 1
                cr += math.comb(i, k)
        return int(self.offsets[n]) + hr * math.comb(n, (n + 1) // 2) + cr

    def move_name(self, h: int, code: int) -> str:
        return str(code + 1)

    def analysis_extras(self, solved) -> dict:
        best = [m.move for m in solved.best_moves()]
        return {"best_first_moves": best,
                "notes": ["best first moves (columns): " + (", ".join(best) or "none")]}
