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
Symmetry: the mirror image (`canonical`, `orbit`). It maps a height vector to its reverse
and keeps the pieces placed, so a tier is canonical when its height vector ranks no higher
than its reverse: a canonical tier that is not a palindrome holds only canonical positions,
its mirror tier none, and a palindromic tier both. The game numbers its canonical positions
itself (`canonical_index`, `canonical_slot`; solver/kernels/direct.py), so a symmetric
solve keeps no bit per hash slot: the canonical tiers one after another in hash order, each
with all its colourings (a palindromic tier's non-canonical half is a gap a solve never
reaches). `children_indexed` and `expand_indexed` rank the children's canonical images in
that numbering from one more pass over the colouring, not by mirroring every child.

Internally a board is a pair of bitboards, column c using bits c*(height+1) ..
c*(height+1)+height-1 (bottom first) plus an always-empty guard bit, so lines are found with
shifts (8x7 fills all 64 bits, the sign bit being the last guard); the occupied cells in bit
order are exactly the colouring order above. A height vector is packed 3 bits a column for
reading, and ranked through a table indexed by its mixed-radix number (digit c: column c's
height, base height + 1), one entry a height vector: 8x4 has 390,625, where a table over
the packed heights would have 8^8.
"""

from __future__ import annotations

import math

import numpy as np

from games import register
from games.base import (
    INDEXED,
    LOSE,
    TIE,
    Game,
    PositionError,
    Tier,
    Variant,
    VariantError,
    forms,
    parse_board,
)
from hashing.jit import njit

CHARS = "XO-"
MAX_HASH = 2**62

# The context is one int64 table (one array: calls between jitted functions reference-count
# every array they pass, so fewer arrays is faster). Header slots, then sections:
W, HT, K, NCELLS, STRIDE, BW, DSHIFT, OFF, NCOL, BINOM, HRANK, HCODE, HSTART, TBASE, TDIR, \
    PW = range(16)
HEADER = 16
#   OFF:    offsets[n], n = 0..ncells+1: first hash of tier n (pieces placed)
#   NCOL:   C(n, ceil(n/2)): colourings of n occupied cells
#   BINOM:  C(a, b) at BINOM + a*bw + b (a row of zeros before row 0, for reads at a = -1)
#   HRANK:  mixed-radix heights (sum of height[c] * stride^c) -> rank among the height
#           vectors with that sum
#   HCODE:  by tier g = HSTART[n] + rank (n pieces placed, rank among them), at HCODE + 4g:
#           the packed heights, their HRANK index, their reverse's, and 1 when a child tier
#           is mirrored or a palindrome (its children need the mirror image's ranks)
#   HSTART: the first tier of n pieces placed, n = 0..ncells+1
#   TBASE:  tier g's first canonical index << 2 | KEEP | PALINDROME (KEEP: canonical tier;
#           a mirrored tier has no index of its own: the next canonical tier's first), then
#           canonical_size << 2 (g = the number of tiers)
#   TDIR:   the tier of canonical index q << DSHIFT, q = 0, 1, ... (one past the last index):
#           where `_tier_at` searches (DSHIFT: about as many entries as tiers)
#   PW:     stride^c, c = 0..width-1: a piece more in column c adds PW[c] to the mixed radix
KEEP, PALINDROME = 1, 2
TIERCODE = 4  # HCODE entries a tier


@njit(cache=True, nogil=True, inline="always")
def _tier_of(t, h):
    """(pieces placed, tier, colouring rank) of hash h."""
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
    return lo, t[t[HSTART] + lo] + hr, r - hr * cnt


@njit(cache=True, nogil=True, inline="always")
def _locate(t, h):
    """(pieces placed, packed heights, colouring rank) of hash h."""
    n, g, cr = _tier_of(t, h)
    return n, t[t[HCODE] + TIERCODE * g], cr


@njit(cache=True, nogil=True, inline="always")
def _tier_at(t, i):
    """The canonical tier holding canonical index i (below canonical_size): the last tier
    whose first index is at most i (a mirrored tier shares the next one's), searched
    between the directory's tiers of the indices around i (mostly one or two: the
    positions lie in the big tiers)."""
    tb = t[TBASE]
    key = (i << 2) | 3
    q = t[TDIR] + (i >> t[DSHIFT])
    lo = t[q]
    hi = t[q + 1] + 1
    while hi - lo > 1:  # TBASE[lo] <= key < TBASE[hi]
        mid = (lo + hi) >> 1
        if t[tb + mid] <= key:
            lo = mid
        else:
            hi = mid
    return lo


@njit(cache=True, nogil=True, inline="always")
def _pieces(t, code):
    """Pieces placed: the sum of the packed heights."""
    n = np.int64(0)
    for c in range(t[W]):
        n += (code >> (3 * c)) & 7
    return n


@njit(cache=True, nogil=True, inline="always")
def _mix(t, code, mirror):
    """HRANK's index of the packed heights, or with `mirror` of their reverse (the mirror
    image's): Horner's rule over the columns from the most significant digit."""
    width = t[W]
    stride = t[STRIDE]
    m = np.int64(0)
    for s in range(width):
        c = s if mirror else width - 1 - s
        m = m * stride + ((code >> (3 * c)) & 7)
    return m


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
def _insertions(t, n, code, cr, bx, grow_at, mirror):
    """What dropping the mover's piece on each open column adds to the colouring rank, into
    grow_at[column]: one pass down the colouring indices from the top, the hash's order
    (columns from the right; X cells decoded from the colouring rank cr) or, with
    `mirror`, the mirror image's (columns from the left; X cells read from bitboard bx).
    Inserting a piece below an X at (index i, rank k) moves it to (i + 1, k + 1) when X
    moves, to (i + 1, k) when O moves: its term C(i, k) grows by C(i, k + 1), or by
    C(i, k - 1). The pass sums that growth over the X cells above the current point, so a
    child's colouring rank is the parent's plus the growth (plus the new X's own term).
    Both possible next binomials are loaded before the comparison, to shorten the
    dependency chain. Returns (X bitboard, occupied bitboard, colouring rank)."""
    width = t[W]
    height = t[HT]
    bw = t[BW]
    stride = t[STRIDE]
    kx = np.int64(n % 2 == 0)  # 1 when X moves
    sgn = 2 * kx - 1
    k = (n + 1) // 2
    p = t[BINOM] + (n - 1) * bw + k  # C(i, k) of the next cell to decode
    b = t[p]
    grow = np.int64(0)
    rank = np.int64(0)
    x = np.int64(0)
    occ = np.int64(0)
    for s in range(width):
        c = s if mirror else width - 1 - s
        hc = (code >> (3 * c)) & 7
        if hc < height:
            # the new piece gets index i + 1 with k X cells below it: term C(i + 1, k + 1)
            grow_at[c] = grow + kx * t[p + bw + 1]
        col = c * stride
        occ |= ((np.int64(1) << hc) - 1) << col
        for j in range(hc - 1, -1, -1):
            b0 = t[p - bw]
            b1 = t[p - bw - 1]
            d = t[p + sgn]
            if mirror:
                is_x = (bx >> (col + j)) & 1
            else:
                is_x = np.int64(b <= cr)
                cr -= b * is_x
            rank += b * is_x
            grow += d * is_x
            x |= is_x << (col + j)
            p -= bw + is_x
            b = b1 if is_x else b0
    return x, occ, rank


@forms("children", "expand", indexed=True)
@njit(cache=True, nogil=True, inline="always")
def _children(ctx, h, out, moves, scratch, numbering, expand):
    """Children of hash h in column order, or (numbering INDEXED) of the position at
    canonical index h as the canonical indices of their images; with `expand`, minus the
    value of a primitive position instead (the solvers' hot loop: `primitive` and
    `children` from one decoding pass). An indexed child in a mirrored tier is ranked
    through its image (a second pass, over the mirror image's colouring order, taken only
    in a tier with such a child), one in a palindromic tier as the smaller of the two."""
    t = ctx[0]
    if numbering == INDEXED:
        g = _tier_at(t, h)
        code = t[t[HCODE] + TIERCODE * g]
        n = _pieces(t, code)
        cr = h - (t[t[TBASE] + g] >> 2)
    else:
        n, g, cr = _tier_of(t, h)
        code = t[t[HCODE] + TIERCODE * g]
    mix = t[t[HCODE] + TIERCODE * g + 1]
    bx, occ, _rank = _insertions(t, n, code, cr, np.int64(0), out, False)
    if expand:
        # the player who just moved has (n + 1) // 2 pieces: a line needs `connect` of them
        if (n + 1) // 2 >= t[K] and _has_line(t, bx if n % 2 == 1 else occ ^ bx):
            return -LOSE
        if n == t[NCELLS]:
            return -TIE
    width = t[W]
    height = t[HT]
    hrank = t[HRANK]
    m = 0
    if numbering == INDEXED:
        pw = t[PW]
        mcr = np.int64(0)
        if t[t[HCODE] + TIERCODE * g + 3]:  # a child tier mirrored or a palindrome
            _bx, _occ, mcr = _insertions(t, n, code, 0, bx, moves, True)
        mmix = t[t[HCODE] + TIERCODE * g + 2]
        tb = t[TBASE] + t[t[HSTART] + n + 1]  # the tiers of n + 1 pieces
        for c in range(width):
            if (code >> (3 * c)) & 7 < height:
                r = cr + out[c]
                pk = t[tb + t[hrank + mix + t[pw + c]]]
                if pk & KEEP == 0:  # its image lies in the reversed tier
                    r = mcr + moves[c]
                    pk = t[tb + t[hrank + mmix + t[pw + width - 1 - c]]]
                elif pk & PALINDROME:
                    r = min(r, mcr + moves[c])
                out[m] = (pk >> 2) + r
                moves[m] = c
                m += 1
        return m
    base = t[t[OFF] + n + 1]
    cnt1 = t[t[NCOL] + n + 1]
    stride = t[STRIDE]
    hm = hrank + mix
    step = np.int64(1)  # a piece more in column c: PW[c]
    for c in range(width):  # m <= c: each entry is read before it is overwritten
        if (code >> (3 * c)) & 7 < height:
            out[m] = base + t[hm + step] * cnt1 + cr + out[c]
            moves[m] = c
            m += 1
        step *= stride
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
    hm = t[HRANK] + _mix(t, code, False)  # this tier's HRANK entry
    pw = t[PW]
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
                out[m] = base + t[hm - t[pw + c]] * cnt0 + total - shrink \
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
    cr = np.int64(0)
    i = 0
    k = 0
    for c in range(width - 1, -1, -1):  # the mirror's column width - 1 - c, from the left
        for j in range((code >> (3 * c)) & 7):
            if (bx >> (c * stride + j)) & 1:
                k += 1
                cr += t[t[BINOM] + i * bw + k]
            i += 1
    return t[t[OFF] + n] + t[t[HRANK] + _mix(t, code, True)] * t[t[NCOL] + n] + cr


@njit(cache=True, nogil=True)
def canonical(ctx, h, scratch):
    """Symmetry (solver/kernels/symmetry.py): the smaller hash of h and its mirror image,
    known from the tier alone unless it is a palindrome (the mirror keeps the pieces
    placed and reverses the heights, whose rank orders the tiers)."""
    t = ctx[0]
    _n, g, _cr = _tier_of(t, h)
    kind = t[t[TBASE] + g] & 3
    if kind == KEEP:
        return h
    m = _mirror(t, h)
    return m if kind == 0 else min(h, m)


@njit(cache=True, nogil=True)
def orbit(ctx, h, scratch):
    """How many distinct images h has: 1 when it is its own mirror image, else 2 (always
    outside a palindromic tier)."""
    t = ctx[0]
    _n, g, _cr = _tier_of(t, h)
    if t[t[TBASE] + g] & PALINDROME == 0:
        return 2
    return 1 if _mirror(t, h) == h else 2


@njit(cache=True, nogil=True)
def canonical_index(ctx, h):
    """h's place among the canonical tiers' colourings, one tier after another in hash
    order (solver/kernels/direct.py): its tier's first index plus its colouring rank.
    Every hash of a mirrored tier gets the next canonical tier's first index, so the map
    never decreases (a compact solve ranks every tier's start and stop: a mirrored tier
    gets an empty range), and h = hash_size gets canonical_size."""
    t = ctx[0]
    if h >= t[t[OFF] + t[NCELLS] + 1]:
        return t[t[TBASE] + t[t[HSTART] + t[NCELLS] + 1]] >> 2
    _n, g, cr = _tier_of(t, h)
    pk = t[t[TBASE] + g]
    return (pk >> 2) + cr * (pk & KEEP)


@njit(cache=True, nogil=True)
def canonical_slot(ctx, i):
    """The hash at canonical index i (`canonical_index`); in a palindromic tier's gap, a
    position whose mirror image is the canonical one."""
    t = ctx[0]
    g = _tier_at(t, i)
    n = _pieces(t, t[t[HCODE] + TIERCODE * g])
    return (t[t[OFF] + n] + (g - t[t[HSTART] + n]) * t[t[NCOL] + n]
            + i - (t[t[TBASE] + g] >> 2))


@njit(cache=True, nogil=True)
def orbit_sizes_indexed(ctx, first, value, out, scratch):
    """out[j]: the orbit of the position at canonical index first + j, 0 where value[j] is
    0 (a count of every position, solver/use/analysis.py): 2 through a tier that is no
    palindrome, with no unranking; asked of the board in a palindromic one."""
    t = ctx[0]
    size = t[t[TBASE] + t[t[HSTART] + t[NCELLS] + 1]] >> 2
    nv = value.shape[0]
    j = 0
    while j < nv:
        i = first + j
        if i >= size:
            out[j:] = 0
            break
        g = _tier_at(t, i)
        pk = t[t[TBASE] + g]
        code = t[t[HCODE] + TIERCODE * g]
        stop = min(nv, j + (pk >> 2) + t[t[NCOL] + _pieces(t, code)] - i)
        for q in range(j, stop):
            if value[q] == 0:
                out[q] = 0
            elif pk & PALINDROME == 0:
                out[q] = 2
            else:
                h = canonical_slot(ctx, first + q)
                out[q] = 1 if _mirror(t, h) == h else 2
        j = stop
    return nv


def _directory(tbase: np.ndarray) -> tuple[int, np.ndarray]:
    """(DSHIFT, TDIR): the tier of every (1 << DSHIFT)-th canonical index, up to one entry
    past the last index, for about as many entries as tiers."""
    size = int(tbase[-1] >> 2)
    tiers = len(tbase) - 1
    shift = max(0, (size // tiers).bit_length() - 1)
    at = np.arange(((size - 1) >> shift) + 2, dtype=np.int64) << shift
    return shift, np.searchsorted(tbase[:-1] >> 2, at, side="right").astype(np.int64) - 1


def _mixed(heights, stride: int) -> int:
    """HRANK's index of a height vector: its mixed-radix number, column 0 least
    significant."""
    return sum(int(hc) * stride**c for c, hc in enumerate(heights))


def _vectors_by_sum(width: int, height: int) -> list[int]:
    """How many height vectors sum to n, n = 0..width*height: the coefficients of
    (1 + x + ... + x^height)^width, exact, so the hash is sized before any table is built."""
    count = [1]
    for _ in range(width):
        grown = [0] * (len(count) + height)
        for i, a in enumerate(count):
            for j in range(height + 1):
                grown[i + j] += a
        count = grown
    return count


@register
class Connect4(Game):
    name = "connect4"
    title = "Connect Four (connect-k with gravity)"
    columns = True  # a piece falls down its column: a viewer plays a column, not a cell
    variants = {
        "width": Variant(4, 1, 8, "columns"),  # 8 columns of 8 bits fill the int64 bitboard
        "height": Variant(4, 1, 7, "rows"),  # 3 bits a column in the packed heights
        "connect": Variant(4, 1, 8, "pieces in a row that win"),
    }

    def __init__(self, **variant):
        super().__init__(**variant)
        w, ht, k = self.variant["width"], self.variant["height"], self.variant["connect"]
        self.width, self.height, self.connect = w, ht, k
        ncells = w * ht
        stride = ht + 1
        self.stride = stride
        self.ncells = ncells
        per_n = _vectors_by_sum(w, ht)
        sizes = [per_n[n] * math.comb(n, (n + 1) // 2) for n in range(ncells + 1)]
        total = sum(sizes)
        if total >= MAX_HASH:
            raise VariantError(f"connect4 {w}x{ht} has {total:,} boards: too many to number "
                               f"in 62 bits")
        # height vectors grouped by pieces placed, in packed-code order inside a group (the
        # mixed-radix order: both put column w - 1 first)
        mix = np.arange(stride**w, dtype=np.int64)  # every height vector's HRANK index
        codes = np.zeros_like(mix)
        sums = np.zeros_like(mix)
        rev = np.zeros_like(mix)  # the mirror image's index
        for c in range(w):
            digit = mix // stride**c % stride
            codes |= digit << (3 * c)
            sums += digit
            rev += digit * stride**(w - 1 - c)
        order = np.lexsort((mix, sums))
        hcode = codes[order]
        hstart = np.zeros(ncells + 2, dtype=np.int64)
        hstart[1:] = np.cumsum(per_n)
        tier_n = sums[order]
        del codes, sums
        hrank = np.empty_like(mix)
        hrank[order] = mix - hstart[tier_n]  # mix doubles as the tiers' places 0, 1, ...
        ncol = np.array([math.comb(n, (n + 1) // 2) for n in range(ncells + 2)], np.int64)
        offsets = np.zeros(ncells + 2, dtype=np.int64)
        for n in range(ncells + 1):
            offsets[n + 1] = offsets[n] + sizes[n]
        bw = ncells + 3
        binom = np.zeros((ncells + 3) * bw, dtype=np.int64)  # row a = C(a, .) at (a + 1) * bw
        for a in range(ncells + 2):
            for b in range(a + 1):
                binom[(a + 1) * bw + b] = math.comb(a, b)
        rev = rev[order]
        tbase = self._canonical_tiers(hrank[rev], hstart, tier_n, ncol)
        shift, tdir = _directory(tbase)
        pw = stride ** np.arange(w, dtype=np.int64)
        tiercode = np.stack([hcode, order, rev, self._mirrored_children(
            hcode, order, hrank, hstart, tier_n, tbase)], axis=1).ravel()
        del rev
        sections = [offsets, ncol, binom, hrank, tiercode, hstart, tbase, tdir, pw]
        header = [w, ht, k, ncells, stride, bw, shift]
        at = HEADER
        for sec in sections:
            header.append(at if sec is not binom else at + bw)
            at += len(sec)
        table = np.concatenate([np.array(header, np.int64), *sections])
        self.ctx = (table,)
        self.hrank, self.hmix = hrank, order  # order: the tiers' HRANK indices
        self.hcode, self.hstart, self.ncol = hcode, hstart, ncol
        self.offsets, self.tier_n = offsets, tier_n
        self.hash_size = total
        self.canonical_size = int(tbase[-1] >> 2)
        self.start = 0
        self.max_children = w
        self.scratch_size = 1
        self.max_remoteness = ncells

    def _canonical_tiers(self, mirror_rank, hstart, tier_n, ncol) -> np.ndarray:
        """TBASE (see the table's layout): the tiers whose heights rank no higher than
        their reverse's (mirror_rank, by tier) keep their colourings, one tier after another
        in hash order."""
        rank = np.arange(len(tier_n), dtype=np.int64) - hstart[tier_n]
        keep = rank <= mirror_rank
        base = np.zeros(len(tier_n) + 1, np.int64)
        np.cumsum(np.where(keep, ncol[tier_n], 0), out=base[1:])
        if base[-1] >= MAX_HASH >> 2:
            raise VariantError(f"connect4 {self.width}x{self.height} has {int(base[-1]):,} "
                               "mirror classes: too many to number in 60 bits")
        kind = np.where(keep, KEEP, 0) | np.where(rank == mirror_rank, PALINDROME, 0)
        base[:-1] = base[:-1] << 2 | kind
        base[-1] <<= 2
        return base

    def _mirrored_children(self, hcode, mix, hrank, hstart, tier_n, tbase) -> np.ndarray:
        """By tier: 1 when a child tier is mirrored or a palindrome (its children are ranked
        through their images, a second pass over the colouring: 38-43% of the canonical
        slots of 6x4 to 8x4, 6x6, 7x5), else 0."""
        out = np.zeros(len(hcode), np.int64)
        top = np.minimum(tier_n + 1, self.ncells)
        for c in range(self.width):
            ok = (hcode >> (3 * c)) & 7 < self.height
            child = hstart[top] + hrank[np.where(ok, mix + self.stride**c, 0)]
            out |= ok & (tbase[child] & 3 != KEEP)
        return out

    # -- tiers -----------------------------------------------------------------------
    def tiers(self) -> list[Tier]:
        """One tier per column-height vector, in hash order (pieces placed, then the
        height vector's rank); its children add one piece to a column that is not full."""
        w, ht = self.width, self.height
        code = self.hcode
        n = self.tier_n
        rank = np.arange(len(code)) - self.hstart[n]
        start = self.offsets[n] + rank * self.ncol[n]
        stop = start + self.ncol[n]
        kids = []
        for c in range(w):
            hc = (code >> (3 * c)) & 7
            up = self.hmix + self.stride**c
            ok = hc < ht
            kids.append(np.where(ok, self.hstart[np.minimum(n + 1, self.ncells)]
                                 + self.hrank[np.where(ok, up, 0)], -1))
        kids = np.stack(kids, axis=1).tolist()
        digits = np.stack([(code >> (3 * c)) & 7 for c in range(w)], axis=1) + ord("0")
        heights = np.ascontiguousarray(digits.astype(np.uint8)).view(f"S{w}").ravel()
        out = []  # from Python ints and strings, a few at a time: 8x4 has 390,625 tiers
        for p, hs, a, b, ks in zip(n.tolist(), heights.tolist(), start.tolist(),
                                   stop.tolist(), kids, strict=True):
            out.append(Tier(f"{p} pieces, heights {hs.decode()}", a, b,
                            tuple(k for k in ks if k >= 0)))
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
        hr = int(self.hrank[_mixed(heights, self.stride)])
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
