"""Peg solitaire on the triangle board (the "Cracker Barrel" game) and the English cross.

Rules: a move jumps a peg over an adjacent peg, along a line of the board, into the empty
hole just beyond, and removes the jumped peg. Goal (WIN): one peg left, anywhere. A position
with more than one peg and no jump is a dead end (LOSE). Every move removes a peg, so no
position repeats. The puzzle starts with every hole filled but one (variant `hole`).

Boards (variant `board`):

* 0, triangle with `rows` rows (3..7, default 5); row i (from 0) has i+1 holes; jumps run
  along the rows and along both diagonals (six directions). Position string: rows top first
  joined by '/', `X` a peg, `-` a hole. 5 rows, top hole empty: `-/XX/XXX/XXXX/XXXXX`.
* 1, the English 33-hole cross: a 7x7 square less its four 2x2 corners; jumps run along
  rows and columns (four directions). Position string: the holes of each of the 7 rows,
  top first, joined by '/' (rows of 3, 3, 7, 7, 7, 3, 3; the short rows are the middle
  three columns). Centre empty: `XXX/XXX/XXXXXXX/XXX-XXX/XXXXXXX/XXX/XXX`. Padded rows of 7
  with ' ' or '.' in the missing corners (`..XXX..`) are accepted too.

Cells are numbered 0.. in reading order (top row first, left to right); `hole` is the cell
left empty at the start (default -1: the board's usual one, the top of the triangle or the
centre of the cross; the variant then records the actual cell). Moves are named
FROM-OVER-TO by cell number, as in the Triangle Game write-up: `5-2-0` jumps the peg in cell
5 over cell 2 into cell 0.

Hash: one block per number of pegs k = 1..cells-1, fewest pegs first, so hash = block
offset + the rank of the peg set among the C(cells, k) sets; size 2^cells - 2 (32,766 for
the 5-row triangle; 8,589,934,590 for the English board). The triangle ranks a peg set with
the generic hash over two piece types (peg, hole), one tier per block. The English board
ranks it class first (`ClassHash`): a jump flips the parity of the pegs on each colour of
the diagonal 3-colourings, so the 16 Conway classes split each block into 16 contiguous
tiers, (k, class c), whose moves all lead to the one tier (k-1, c ^ 15); a position
reachable from a start lies in one class per block. A tiered solve of the English board
(`--method tiers --memory 4`) reads 1/16 of a child block per task instead of all of it.

`gsolve analyze pegsolitaire` also counts, with a forward walk from the start in decreasing
peg order, the winning move sequences by the cell where the last peg ends, and finds the
most pegs a reachable dead end can hold.
"""

from __future__ import annotations

import math

import numpy as np

from games import register
from games.base import LOSE, WIN, Game, PositionError, Tier, Variant, VariantError
from hashing import HashContext
from hashing.generic import popcount, rank_masks, unrank_masks
from hashing.jit import njit

PEG, HOLE = 0, 1
CHARS = "X-"
TRIANGLE, ENGLISH = 0, 1
LIMIT = 1 << 62  # path counts saturate here and report an overflow
MAX_WALK_TIER = 1 << 27  # the analysis walk keeps two tiers of int64 counts in memory


# -- boards ---------------------------------------------------------------------------------

def triangle_cells(rows: int) -> list[tuple[int, int]]:
    return [(r, c) for r in range(rows) for c in range(r + 1)]


def english_cells() -> list[tuple[int, int]]:
    return [(r, c) for r in range(7) for c in range(7) if 2 <= r <= 4 or 2 <= c <= 4]


def jump_table(cells: list[tuple[int, int]], directions) -> np.ndarray:
    """(from, over, to) cell numbers of every jump the board's lines allow, ordered by
    `from` cell then direction."""
    index = {rc: i for i, rc in enumerate(cells)}
    out = []
    for (r, c) in cells:
        for dr, dc in directions:
            over, to = (r + dr, c + dc), (r + 2 * dr, c + 2 * dc)
            if over in index and to in index:
                out.append((index[(r, c)], index[over], index[to]))
    return np.array(out, dtype=np.int64).reshape(-1, 3)


# along the row, down-left/up-right diagonal (r, c) -> (r+1, c), and down-right (r+1, c+1)
TRIANGLE_DIRECTIONS = ((0, -1), (0, 1), (-1, -1), (-1, 0), (1, 0), (1, 1))
ENGLISH_DIRECTIONS = ((-1, 0), (0, -1), (0, 1), (1, 0))


# -- the English board's hash: Conway's classes first ------------------------------------

GROUP_MAX = 7  # room per cell group in the tables (the English board's largest has 5):
# 9 groups of 7 bits, one field per group, fit an int64
SUB_MAX = 35  # room per peg count in the subset tables: C(7, 3)


def class_of_counts(groups: list[tuple[int, int]], counts) -> int:
    """Conway's class (0..15) of a board given its pegs per cell group: the parities of
    the pegs on colours 0 and 1 of the diagonal colourings (row + column) mod 3 and
    (row - column) mod 3. `groups` gives each group's (row mod 3, column mod 3)."""
    pa, pb = [0, 0, 0], [0, 0, 0]
    for (r, c), m in zip(groups, counts, strict=True):
        pa[(r + c) % 3] += m
        pb[(r - c) % 3] += m
    return (pa[0] & 1) | (pa[1] & 1) << 1 | (pb[0] & 1) << 2 | (pb[1] & 1) << 3


class ClassHash:
    """A numbering of peg sets, block by block per number of pegs (k = 1..ncells-1, fewest
    first, the same blocks as the generic hash), and inside a block by Conway's class.

    A jump runs along a line, so the cells it changes (from, over, to) have three different
    colours in each of the colourings (row + column) mod 3 and (row - column) mod 3: every
    colour's peg count changes by one, and its parity flips. So the classes (parities of
    colours 0 and 1, each colouring) of a board with k pegs and of its children with k-1
    are complements (class c -> c ^ 15), and every position reachable from a start lies in
    one class per block, 1/16 of the board's sets. Ranking the class first makes each
    (pegs, class) a contiguous range, a tier whose only child tier is one class below, so
    a tiered solve reads 1/16 of the child block instead of all of it.

    Inside a block of k pegs: the classes in order; inside a class the vectors of pegs per
    cell group (cells by row mod 3 and column mod 3: the class is a function of them) in
    order of `key` (mixed radix, group 0 lowest); inside a vector the mixed-radix number
    of each group's colex rank (group 0 most significant). A combinatorial rank of the peg
    set among the C(ncells, k) sets of the block, so hash = block offset + rank."""

    def __init__(self, cells: list[tuple[int, int]]):
        n = self.ncells = len(cells)
        kinds = sorted({(r % 3, c % 3) for r, c in cells})
        members = [[i for i, (r, c) in enumerate(cells) if (r % 3, c % 3) == g] for g in kinds]
        size = np.array([len(m) for m in members], np.int64)
        if size.max() > GROUP_MAX:
            raise ValueError("a cell group is too large for the class hash")
        ng = len(kinds)
        gcells = np.full(ng * GROUP_MAX, -1, np.int64)
        for g, m in enumerate(members):
            gcells[g * GROUP_MAX:g * GROUP_MAX + len(m)] = m
        binom = np.array([[math.comb(s, m) for m in range(GROUP_MAX + 1)]
                          for s in range(GROUP_MAX + 1)], np.int64)
        crank = np.zeros(1 << GROUP_MAX, np.int64)  # colex rank of a subset mask
        cunrank = np.zeros((GROUP_MAX + 1) * SUB_MAX, np.int64)  # [m * SUB_MAX + rank]
        for mask in range(1 << GROUP_MAX):
            r, m = 0, 0
            for j in range(GROUP_MAX):
                if mask >> j & 1:
                    m += 1
                    r += math.comb(j, m)
            crank[mask] = r
            cunrank[m * SUB_MAX + r] = mask
        place = np.ones(ng, np.int64)
        for g in range(1, ng):
            place[g] = place[g - 1] * (size[g - 1] + 1)
        nkeys = int(place[-1] * (size[-1] + 1))
        keys = np.arange(nkeys, dtype=np.int64)
        counts = (keys[:, None] // place[None, :]) % (size[None, :] + 1)
        pegs = counts.sum(axis=1)
        blocks = np.ones(nkeys, np.int64)
        for g in range(ng):
            blocks *= binom[size[g], counts[:, g]]
        pa = np.zeros((nkeys, 3), np.int64)
        pb = np.zeros((nkeys, 3), np.int64)
        for g, (r, c) in enumerate(kinds):
            pa[:, (r + c) % 3] += counts[:, g]
            pb[:, (r - c) % 3] += counts[:, g]
        cls = (pa[:, 0] & 1) | (pa[:, 1] & 1) << 1 | (pb[:, 0] & 1) << 2 | (pb[:, 1] & 1) << 3
        del counts, pa, pb
        toff = np.zeros(n + 1, np.int64)  # toff[k]: first hash of k pegs (k = 1..n-1)
        for k in range(2, n + 1):
            toff[k] = toff[k - 1] + math.comb(n, k - 1)
        vec_off = np.full(nkeys, -1, np.int64)
        vfirst = np.zeros(n + 1, np.int64)
        vstart, vkey = [], []
        self.class_ranges = {}  # (k, class) -> [start, stop) hashes, non-empty ones only
        used = 0
        for k in range(1, n):
            vfirst[k] = used
            idx = np.flatnonzero(pegs == k)
            idx = idx[np.lexsort((idx, cls[idx]))]
            sizes = blocks[idx]
            starts = np.zeros(idx.size, np.int64)
            np.cumsum(sizes[:-1], out=starts[1:])
            if int(starts[-1] + sizes[-1]) != math.comb(n, k):
                raise AssertionError("class hash: blocks do not add up")
            vec_off[idx] = starts
            vstart.append(starts)
            vkey.append(idx)
            used += idx.size
            for c in range(16):
                sel = cls[idx] == c
                if sel.any():
                    first = int(np.flatnonzero(sel)[0])
                    last = int(np.flatnonzero(sel)[-1])
                    self.class_ranges[(k, c)] = (int(toff[k] + starts[first]),
                                                 int(toff[k] + starts[last] + sizes[last]))
        vfirst[n] = used
        self.size = int(toff[n])
        self.toff = toff
        # gbytes[b * 256 + v]: the cells of byte b of a mask holding v, as group fields
        # (group g's subset mask at bit GROUP_MAX * g)
        gbytes = np.zeros(((n + 7) // 8) * 256, np.int64)
        for b in range(gbytes.size // 256):
            for v in range(256):
                for bit in range(8):
                    i = 8 * b + bit
                    if v >> bit & 1 and i < n:
                        g = next(g for g, m in enumerate(members) if i in m)
                        gbytes[b * 256 + v] |= 1 << (GROUP_MAX * g + members[g].index(i))
        self.nb = (toff, gcells, size, crank, cunrank, binom.ravel(), place, vec_off, vfirst,
                   np.concatenate(vstart), np.concatenate(vkey), gbytes)
        self.groups = kinds

    def class_of(self, mask: int) -> int:
        counts = [0] * len(self.groups)
        gcells, size = self.nb[1], self.nb[2]
        for g in range(len(self.groups)):
            for j in range(int(size[g])):
                counts[g] += (mask >> int(gcells[g * GROUP_MAX + j])) & 1
        return class_of_counts(self.groups, counts)


def no_class_hash(ncells: int, toff: np.ndarray) -> tuple:
    """The English tables' slot in a triangle's ctx: its block offsets, the rest empty."""
    empty = np.zeros(0, np.int64)
    return (toff,) + (empty,) * 11


@njit(cache=True, nogil=True, inline="always")
def _class_rank(mask, toff, gbytes, size, crank, binom, place, vec_off):
    """ClassHash rank of a peg mask (the tables as arrays, not the tuple: unpacking a
    tuple of arrays at each call of an inlined function costs reference counts). The
    groups' subsets come a byte of the mask per lookup."""
    fields = np.int64(0)
    for b in range(gbytes.shape[0] >> 8):
        fields |= gbytes[(b << 8) + ((mask >> (8 * b)) & 255)]
    key = 0
    sub = np.int64(0)
    for g in range(size.shape[0]):
        s = size[g]
        gm = (fields >> (GROUP_MAX * g)) & ((1 << GROUP_MAX) - 1)
        m = popcount(gm)
        key += m * place[g]
        sub = sub * binom[s * (GROUP_MAX + 1) + m] + crank[gm]
    return toff[popcount(mask)] + vec_off[key] + sub


@njit(cache=True, nogil=True, inline="always")
def _class_unrank(eng, h):
    toff, gcells, size, _crank, cunrank, binom, place, _vo, vfirst, vstart, vkey, _gb = eng
    k = np.searchsorted(toff, h, side="right") - 1
    r = h - toff[k]
    # the vector block holding r: a branch-free binary search over the block's vectors
    lo = vfirst[k]
    n = vfirst[k + 1] - lo
    while n > 1:
        half = n >> 1
        lo = lo + half if vstart[lo + half] <= r else lo
        n -= half
    key = vkey[lo]
    sub = r - vstart[lo]
    mask = np.int64(0)
    for g in range(size.shape[0] - 1, -1, -1):
        s = size[g]
        m = (key // place[g]) % (s + 1)
        c = binom[s * (GROUP_MAX + 1) + m]
        q = sub // c
        gm = cunrank[m * SUB_MAX + sub - q * c]
        sub = q
        for i in range(s):
            mask |= ((gm >> i) & 1) << gcells[g * GROUP_MAX + i]
    return mask


# -- numba: rules (a board is a bit mask of its pegs) ------------------------------------

@njit(cache=True, nogil=True, inline="always")
def _unrank(ctx, h):
    hctx, _jumps, eng = ctx
    if eng[1].shape[0] == 0:  # the triangle: the generic hash
        return unrank_masks(hctx, h)[1]
    return _class_unrank(eng, h)


@njit(cache=True, nogil=True, inline="always")
def _rank(ctx, mask):
    hctx, _jumps, eng = ctx
    if eng[1].shape[0] == 0:
        return rank_masks(hctx, mask, np.int64(0), 0)
    toff, _gc, size, crank, _cu, binom, place, vec_off, _vf, _vs, _vk, gbytes = eng
    return _class_rank(mask, toff, gbytes, size, crank, binom, place, vec_off)


@njit(cache=True, nogil=True, inline="always")
def _pegs(ctx, h):
    return np.searchsorted(ctx[2][0], h, side="right") - 1


@njit(cache=True, nogil=True, inline="always")
def _jumps_from(ctx, mask, out, moves, undo):
    """The boards one jump from `mask` (one un-jump before it when `undo`) ranked into
    out, jump numbers into moves; returns how many. The tables are unpacked once here,
    not per child."""
    hctx, jumps, eng = ctx
    toff, _gc, size, crank, _cu, binom, place, vec_off, _vf, _vs, _vk, gbytes = eng
    generic = size.shape[0] == 0
    n = 0
    for j in range(jumps.shape[0]):
        a = np.int64(1) << jumps[j, 0]
        b = np.int64(1) << jumps[j, 1]
        c = np.int64(1) << jumps[j, 2]
        if undo:
            ok = (mask & a) == 0 and (mask & b) == 0 and (mask & c) != 0
        else:
            ok = (mask & a) != 0 and (mask & b) != 0 and (mask & c) == 0
        if ok:
            child = mask ^ (a | b | c)
            moves[n] = j  # before out[n]: a caller without names passes out as moves
            if generic:
                out[n] = rank_masks(hctx, child, np.int64(0), 0)
            else:
                out[n] = _class_rank(child, toff, gbytes, size, crank, binom, place, vec_off)
            n += 1
    return n


@njit(cache=True, nogil=True)
def _has_jump(mask, jumps):
    for j in range(jumps.shape[0]):
        if ((mask >> jumps[j, 0]) & 1) and ((mask >> jumps[j, 1]) & 1) and not (
                (mask >> jumps[j, 2]) & 1):
            return True
    return False


@njit(cache=True, nogil=True)
def primitive(ctx, h, scratch):
    if _pegs(ctx, h) == 1:
        return WIN
    if _has_jump(_unrank(ctx, h), ctx[1]):
        return 0
    return LOSE


@njit(cache=True, nogil=True)
def children(ctx, h, out, moves, scratch):
    return _jumps_from(ctx, _unrank(ctx, h), out, moves, False)


@njit(cache=True, nogil=True)
def expand(ctx, h, out, moves, scratch):
    """primitive and children in one unranking: -value at an end, else the children."""
    if _pegs(ctx, h) == 1:
        return -WIN
    n = _jumps_from(ctx, _unrank(ctx, h), out, moves, False)
    return n if n else -LOSE


@njit(cache=True, nogil=True)
def parents(ctx, h, out, scratch):
    """Un-jumps: a peg in `to` with holes in `over` and `from` goes back. Every parent has
    two or more pegs and a jump, so none is primitive; distinct jumps give distinct
    parents."""
    return _jumps_from(ctx, _unrank(ctx, h), out, out, True)


@njit(cache=True, nogil=True)
def rank_board(ctx, mask):
    """Hash of the board with pegs on the set bits of `mask` (for Python callers)."""
    return _rank(ctx, mask)


@njit(cache=True, nogil=True)
def unrank_board(ctx, h):
    """The peg mask of hash h (for Python callers)."""
    return _unrank(ctx, h)


# -- numba: the analysis walk ---------------------------------------------------------------

@njit(cache=True, nogil=True)
def _sat_add(a, b):
    """a + b for counts in [0, LIMIT], saturating at LIMIT."""
    if a > LIMIT - b:
        return LIMIT
    return a + b


@njit(cache=True, nogil=True, nrt=True)
def walk_paths(ctx, start, max_children, scratch_size):
    """Move sequences from the start to each end, tier by tier in decreasing peg order.

    Returns (wins by the cell of the last peg [ncells], total [win, lose], most pegs in a
    reachable dead end, how many such dead-end positions, the sequences reaching them, one
    of them (hash), overflow flag)."""
    toff = ctx[2][0]
    ncells = toff.shape[0] - 1
    out = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    by_cell = np.zeros(ncells, np.int64)
    totals = np.zeros(2, np.int64)
    dead_pegs = 0
    dead_count = 0
    dead_paths = np.int64(0)
    dead_example = -1
    overflow = False
    k = _pegs(ctx, start)
    cur = np.zeros(toff[k + 1] - toff[k], np.int64)
    cur[start - toff[k]] = 1
    while k >= 1:
        base = toff[k]
        if k > 1:
            below = toff[k - 1]
            nxt = np.zeros(base - below, np.int64)
        else:
            below = 0
            nxt = np.zeros(0, np.int64)
        for i in range(cur.shape[0]):
            w = cur[i]
            if w == 0:
                continue
            h = base + i
            if k == 1:
                mask = _unrank(ctx, h)
                for cell in range(ncells):
                    if (mask >> cell) & 1:
                        by_cell[cell] = _sat_add(by_cell[cell], w)
                totals[0] = _sat_add(totals[0], w)
                continue
            n = _jumps_from(ctx, _unrank(ctx, h), out, moves, False)
            if n == 0:
                totals[1] = _sat_add(totals[1], w)
                if k > dead_pegs:
                    dead_pegs = k
                    dead_count = 0
                    dead_paths = 0
                    dead_example = h
                if k == dead_pegs:
                    dead_count += 1
                    dead_paths = _sat_add(dead_paths, w)
            else:
                for j in range(n):
                    c = out[j] - below
                    nxt[c] = _sat_add(nxt[c], w)
                    if nxt[c] == LIMIT:
                        overflow = True
        cur = nxt
        k -= 1
    if totals[0] == LIMIT or totals[1] == LIMIT or dead_paths == LIMIT:
        overflow = True
    for cell in range(ncells):
        if by_cell[cell] == LIMIT:
            overflow = True
    return by_cell, totals, dead_pegs, dead_count, dead_paths, dead_example, overflow


# -- the game -------------------------------------------------------------------------------

@register
class PegSolitaire(Game):
    name = "pegsolitaire"
    title = "Peg solitaire"
    puzzle = True
    loopy = False
    variants = {
        "board": Variant(0, 0, 1, "0: triangle with `rows` rows, 1: English 33-hole cross"),
        "rows": Variant(5, 3, 7, "rows of the triangle (the English board has 7)"),
        "hole": Variant(-1, -1, 32, "cell left empty at the start, 0.. in reading order; "
                                    "-1: the top of the triangle, the centre of the cross"),
    }

    @classmethod
    def check_variant(cls, given: dict[str, int]) -> dict[str, int]:
        """Range checks, then one canonical form per board: the English board always has
        rows=7, and hole=-1 becomes the cell it stands for, so `hole=-1` and the same cell
        named by number share one database."""
        out = super().check_variant(given)
        if out["board"] == ENGLISH:
            if "rows" in given and given["rows"] != 7:
                raise VariantError(
                    "pegsolitaire: the English board (board=1) has 7 rows; leave `rows` out")
            out["rows"] = 7
            ncells, usual = 33, 16
        else:
            ncells, usual = out["rows"] * (out["rows"] + 1) // 2, 0
        if out["hole"] == -1:
            out["hole"] = usual
        if out["hole"] >= ncells:
            raise VariantError(
                f"pegsolitaire variant hole={out['hole']} is out of range 0..{ncells - 1} "
                "for this board")
        return out

    def __init__(self, **variant):
        super().__init__(**variant)
        self.board = self.variant["board"]
        self.cells, directions, self.cross = self.layout()
        rows = sorted({r for r, _ in self.cells})
        self.row_lengths = [sum(1 for r, _ in self.cells if r == row) for row in rows]
        self.row_starts = [min(c for r, c in self.cells if r == row) for row in rows]
        self.width = max(c for _, c in self.cells) + 1
        jumps = jump_table(self.cells, directions)
        n = self.ncells = len(self.cells)
        self.jumps = jumps
        self.hash = HashContext(n, [(1, n - 1), (1, n - 1)])
        toff = np.zeros(n + 1, np.int64)  # toff[k]: first hash of the block of k pegs
        toff[1:] = self.hash.offsets
        if self.cross:
            self.classes = ClassHash(self.cells)
            eng = self.classes.nb
        else:
            self.classes = None
            eng = no_class_hash(n, toff)
        self.toff = eng[0]
        self.ctx = (self.hash.nb, jumps, eng)
        self.hash_size = self.hash.size
        self.max_children = max(1, len(jumps))
        self.scratch_size = n
        self.max_remoteness = n - 2
        self.start = self.rank((1 << n) - 1 - (1 << self.variant["hole"]))

    def layout(self) -> tuple[list[tuple[int, int]], tuple, bool]:
        """(the cells as (row, column) in reading order, the jump directions, whether the
        board is a cross of rows and columns numbered by Conway's classes (ClassHash)).
        A subclass may lay out another board (tests: a small cross)."""
        if self.board == ENGLISH:
            return english_cells(), ENGLISH_DIRECTIONS, True
        return triangle_cells(self.variant["rows"]), TRIANGLE_DIRECTIONS, False

    def rank(self, mask: int) -> int:
        """Hash of the board with pegs on the set bits of `mask` (bit i: cell i)."""
        return int(rank_board(self.ctx, np.int64(mask)))

    def unrank(self, h: int) -> int:
        """The peg mask of hash h."""
        if not 0 <= h < self.hash_size:
            raise ValueError(f"pegsolitaire hash {h} is outside [0, {self.hash_size})")
        return int(unrank_board(self.ctx, np.int64(h)))

    # -- tiers ------------------------------------------------------------------------
    def tiers(self) -> list[Tier]:
        """The triangle: one tier per number of pegs, fewest first (tier i holds i+1
        pegs). The English board: each block of k pegs cut into its Conway classes (see
        ClassHash), fewest pegs first, then by class; tier (k, c)'s only child tier is
        (k-1, c ^ 15). Empty classes (few pegs) have no tier."""
        def label(k):
            return f"{k} peg" + ("s" if k > 1 else "")

        n = self.ncells
        if self.classes is None:
            return [Tier(label(k), int(self.toff[k]), int(self.toff[k + 1]),
                         (k - 2,) if k > 1 else ()) for k in range(1, n)]
        ranges = self.classes.class_ranges
        index = {kc: i for i, kc in enumerate(sorted(ranges))}
        out = []
        for k, c in sorted(index, key=index.get):
            child = index.get((k - 1, c ^ 15))
            a, b = ranges[(k, c)]
            out.append(Tier(f"{label(k)}, class {c}", a, b, () if child is None else (child,)))
        return out

    def peg_class(self, h: int) -> int:
        """Conway's class (0..15) of position h (the English board)."""
        return self.classes.class_of(self.unrank(h))

    # -- positions ------------------------------------------------------------------
    def to_string(self, h: int) -> str:
        mask = self.unrank(h)
        cells = "".join(CHARS[PEG if mask >> i & 1 else HOLE] for i in range(self.ncells))
        out, i = [], 0
        for length in self.row_lengths:
            out.append(cells[i:i + length])
            i += length
        return "/".join(out)

    def from_string(self, s: str) -> int:
        text = s.strip()
        parts = text.split("/")
        if len(parts) != len(self.row_lengths):
            raise PositionError(
                f"pegsolitaire position '{s}' should have {len(self.row_lengths)} rows "
                "joined by '/'")
        cells: list[str] = []
        for i, (part, length) in enumerate(zip(parts, self.row_lengths, strict=True)):
            first = self.row_starts[i]
            if self.cross and length < self.width and len(part) == self.width:
                pad = part[:first] + part[first + length:]
                if all(ch in " ." for ch in pad):
                    part = part[first:first + length]
            if len(part) != length:
                raise PositionError(
                    f"pegsolitaire position '{s}': row {i + 1} should have {length} holes")
            for ch in part:
                if ch not in CHARS:
                    raise PositionError(
                        f"pegsolitaire position '{s}': '{ch}' is not 'X' (peg) or '-' (hole)")
            cells.extend(part)
        pegs = cells.count("X")
        if pegs == 0:
            raise PositionError(
                f"pegsolitaire position '{s}' cannot occur: it has no peg (a jump always "
                "leaves one)")
        if pegs == self.ncells:
            raise PositionError(
                f"pegsolitaire position '{s}' cannot occur: it has no hole (the puzzle "
                "starts with one and jumps never add pegs)")
        return self.rank(sum(1 << i for i, c in enumerate(cells) if c == "X"))

    def move_name(self, h: int, code: int) -> str:
        a, b, c = (int(x) for x in self.jumps[code])
        return f"{a}-{b}-{c}"

    # -- analysis ---------------------------------------------------------------------
    def board_picture(self, values: list[str]) -> list[str]:
        """Lines drawing the board with one label per cell (the triangle centred)."""
        width = max(len(v) for v in values)
        if not self.cross and width % 2 == 0:
            width += 1  # an odd width centres each triangle row between the two below it
        lines, i = [], 0
        nrows = len(self.row_lengths)
        for r, length in enumerate(self.row_lengths):
            labels = [v.rjust(width) for v in values[i:i + length]]
            i += length
            if self.cross:
                lead = " " * ((width + 1) * self.row_starts[r])
            else:
                lead = " " * ((width + 1) // 2 * (nrows - 1 - r))
            lines.append("  " + lead + " ".join(labels))
        return lines

    def analysis_extras(self, solved) -> dict:
        """Answers to the Triangle Game questions: winning sequences by the cell of the
        last peg, and the most pegs a dead end can leave."""
        off = self.toff
        biggest = int(max(off[k + 1] - off[k] for k in range(1, self.ncells)))
        if biggest > MAX_WALK_TIER:
            return {"notes": ["", f"(sequence counts by end cell skipped: tiers of up to "
                                  f"{biggest:,} positions are too large for the walk)"]}
        by_cell, totals, dead_pegs, dead_count, dead_paths, dead_ex, overflow = walk_paths(
            self.ctx, self.start, self.max_children, self.scratch_size)
        by_cell = [int(x) for x in by_cell]
        ends = {str(c): n for c, n in enumerate(by_cell) if n}
        dead_position = self.to_string(int(dead_ex)) if dead_ex >= 0 else None
        start_pegs = self.ncells - 1
        extras = {
            "win_sequences_by_last_peg": ends,
            "sequences": {"win": int(totals[0]), "lose": int(totals[1])},
            "max_dead_end_pegs": int(dead_pegs) if dead_ex >= 0 else None,
            "max_dead_end_positions": int(dead_count),
            "max_dead_end_sequences": int(dead_paths),
            "max_dead_end_example": dead_position,
            "fewest_jumps_to_dead_end": start_pegs - int(dead_pegs) if dead_ex >= 0 else None,
            "counts_overflowed": bool(overflow),
        }
        notes = [""]
        if overflow:
            notes.append("(some sequence counts passed 2^62 and are saturated)")
        notes.append(f"move sequences from the start: {int(totals[0]):,} end with one peg "
                     f"(win), {int(totals[1]):,} in a dead end (lose)")
        if ends:
            notes.append("winning sequences by the cell where the last peg ends "
                         "(cells numbered in reading order):")
            notes.extend(self.board_picture([str(c) for c in range(self.ncells)]))
            notes.append("  ->")
            notes.extend(self.board_picture([f"{n:,}" for n in by_cell]))
            notes.append("  last peg can end in cells " + ", ".join(ends) + "; "
                         + ", ".join(f"{c}: {n:,}" for c, n in ends.items()))
        else:
            notes.append("no sequence leaves one peg")
        if dead_ex >= 0:
            notes.append(
                f"most pegs left with no jump: {dead_pegs} (after {start_pegs - dead_pegs} "
                f"jumps; {dead_count:,} such position(s), {dead_paths:,} sequence(s)), "
                f"e.g. {dead_position}")
        return {**extras, "notes": notes}
