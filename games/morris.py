"""Three, Six and Nine Men's Morris (variant ``men`` = 3, 6 or 9).

Boards (points named as in the usual algebraic notation: file letter a.., rank 1.. from the
bottom):

* Three (men=3): the 3x3 grid of points a1..c3. Lines are the 3 rows and 3 columns (no
  diagonals); a piece slides to an orthogonally adjacent point (no diagonal steps).
  Variant diagonals=1 adds the two diagonals as lines: mills along them, and slides
  along them (from a corner to the centre and back).
* Six (men=6): two concentric squares, 16 points on a 5x5 grid; the midpoints of facing
  sides are joined (a3-b3, c5-c4, e3-d3, c1-c2). Mills are the 8 sides of the squares only
  (the joining lines hold two points, so they are no mills).
* Nine (men=9): three concentric squares, 24 points on a 7x7 grid; the midpoints of the
  sides are joined across the three squares. Mills: the 12 sides and the 4 joining lines.

Rules (White moves first; each player has `men` pieces in hand):

* Placement: the players alternate placing one piece from hand on an empty point until
  both hands are empty; then movement: the player to move slides one of their pieces
  along a line to an adjacent empty point.
* Three: three in a row (a mill) wins at once, in either phase: the player to move loses
  when the opponent has a mill. There is no flying and no capture.
* Six and Nine: a move (placement or slide) that forms a mill, i.e. puts the moved piece
  on a line whose three points then all hold the mover's pieces, removes one opponent
  piece from the board: one that is not in a mill, unless all of the opponent's pieces are
  in mills, then any. A move that forms two mills still removes one piece. (If the
  opponent has no piece on the board, nothing is removed.) Moving a piece out of a mill
  and back forms it again.
* Flying: in Nine, a player with exactly three pieces (after placement) may move a piece
  to any empty point. Six and Three have no flying.
* The player to move loses when they have fewer than three pieces (on the board and in
  hand together), or, in the movement phase, when they have no legal move.
* Sliding can repeat positions, so the game is loopy: positions neither side can force
  to an end are draws. There is no repetition or move-count rule.

Position string: the board row by row, top row (highest rank) first, rows joined by '/',
the points of a row left to right; `W` white, `B` black, `-` empty. Then the side to move
(`w` or `b`) and the pieces in hand of White and of Black. Rows hold 3/3/3 points (Three),
3/3/4/3/3 (Six), 3/3/3/6/3/3/3 (Nine). Starts:

    ---/---/--- w 3 3
    ---/---/----/---/--- w 6 6
    ---/---/---/------/---/---/--- w 9 9

Since players alternate placing, White to move has as many pieces in hand as Black, and
Black to move has one more than White. The two hand counts may be left out when both are
0. Moves are named by points: `b2` (placement), `a1-a2` (slide or flight), with `xc3`
appended when the move removes the opponent's piece on c3.

Hash: the board is ranked by the generic hash (hashing.HashContext over the piece types W,
B, empty). The global numbering is a list of blocks, one per (stage, pieces on board of
each side, side to move), where the stage is the number of placements made so far,
0..2*men (2*men = movement phase; the side to move is free only there). A block's
positions are numbered by the generic arrangement rank (hashing.generic.arrangement_rank). Blocks
hold the boards with W <= White's placed pieces and B <= Black's, the side to move with
at least 2 pieces in all (board and hand) and the other side with at least 3 (a side below
3 lost on its turn); during placement, at most (opponent's placed pieces - 2) of a side's
pieces are gone (a first mill needs three placed pieces). Three has no removals, so its
boards hold exactly the placed pieces. Sizes: Three 5,710 (5,466 reachable), Six
70,534,217, Nine 570,947,436,273 (about half of it in the placement stages).

Tiers: each placement block (stage, W, B) is a tier (its children are in the next stage);
each movement (W, B) pair, both sides to move, is a loopy tier whose children are in
itself, (W, B-1) and (W-1, B).

Un-moves (`parents`): un-place or un-slide (un-fly) a piece of the side that just moved;
when that piece stands in a mill, put back an opponent piece on any empty point from which
taking it was legal. Parents outside the hash space, and (Three) parents that are already
won, are left out. `parents_in_tier` gives only the un-slides that put no piece back (the
rest lie in other tiers), for the retrograde inside a movement tier. Moves and un-moves run
on the two point masks (bit p: point p; a mill is a line's mask inside a side's mask),
never on a board array: 2.2x faster children and 2.5x faster parents than the board loops
they replaced.

Symmetry (`canonical`, `orbit`, and `children_canonical`, `parents_canonical` for
solver/kernels/symmetry.py): a symmetry moves the pieces on the board and keeps the stage, the side
to move and the hands, so an image stays in its block. Three (with or without diagonals):
the 8 symmetries of the square. Six and Nine: those 8, each also with the rings swapped end
for end (inner <-> outer; Nine's middle ring stays), 16 in all: the swap maps the sides of
the squares to sides, and each joining line (Nine's mills across the rings, Six's two-point
links) to itself reversed. They are every permutation of the points that keeps the lines
and the adjacency (tests/test_morris.py). One group serves every position: in Nine, with
both sides flying, adjacency no longer matters and any order of the three rings keeps the
mills (48 permutations), but the solver's parent counts need the same group on both sides
of a move. The canonical image is the one of smallest hash, found on the two point masks
(each image three table lookups a mask, `symmetry_table`) and ranked once.
"""

from __future__ import annotations

import math

import numpy as np

from games import register
from games.base import LOSE, Game, PositionError, Tier, Variant, VariantError, forms
from hashing import HashContext
from hashing.generic import (
    arrangement_pass,
    arrangement_rank,
    colex_parts,
    popcount,
    rank_masks,
    unrank,
    unrank_masks,
)
from hashing.jit import njit
from hashing.orbits import least_set_tables

W, B, EMPTY = 0, 1, 2
CHARS = "WB-"
SIDES = "wb"

# params[] slots
P_POINTS, P_MEN, P_MILLWIN, P_FLY, P_MOVE_STAGE = range(5)


# -- board geometry -------------------------------------------------------------------------

def board_geometry(men: int, diagonals: int = 0):
    """(points as (x, y) with y = 0 the top row, mills as point-index triples, adjacent
    point pairs) of the board for `men` = 3, 6 or 9 (Three: with the two diagonals as lines
    when `diagonals`). Points are in reading order."""
    if men == 3:
        pts = [(x, y) for y in range(3) for x in range(3)]
        lines = [[(x, y) for x in range(3)] for y in range(3)]
        lines += [[(x, y) for y in range(3)] for x in range(3)]
        if diagonals:
            lines += [[(i, i) for i in range(3)], [(2 - i, i) for i in range(3)]]
        links = []
    else:
        rings = 2 if men == 6 else 3
        c = rings  # centre coordinate; the grid is (2*rings+1) wide
        pts = set()
        lines, links = [], []
        for d in range(1, rings + 1):  # ring at distance d from the centre
            corners = [(c - d, c - d), (c + d, c - d), (c + d, c + d), (c - d, c + d)]
            for i in range(4):
                (x0, y0), (x1, y1) = corners[i], corners[(i + 1) % 4]
                side = [(x0, y0), ((x0 + x1) // 2, (y0 + y1) // 2), (x1, y1)]
                lines.append(side)
                pts.update(side)
        for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0)):  # joins of the side midpoints
            spoke = [(c + dx * d, c + dy * d) for d in range(rings, 0, -1)]
            if len(spoke) == 3:
                lines.append(spoke)
            else:
                links.append(spoke)
        pts = sorted(pts, key=lambda p: (p[1], p[0]))
    index = {p: i for i, p in enumerate(pts)}
    mills = [[index[p] for p in line] for line in lines]
    adj = set()
    for line in lines + links:
        for a, b in zip(line, line[1:], strict=False):
            adj.add((index[a], index[b]))
            adj.add((index[b], index[a]))
    return pts, mills, sorted(adj)


def board_symmetries(men: int, diagonals: int = 0) -> np.ndarray:
    """The board's symmetries as point maps, the identity first: row s sends point p (in
    `board_geometry`'s order) to point where[s, p]. The 8 of the square (0..3 quarter
    turns, then the same after a mirror), and for Six and Nine each of these also with the
    rings swapped end for end (inner <-> outer; Nine's middle ring stays): 8 rows for
    Three, 16 for Six and Nine. Each maps lines to lines (mills, and Six's joining lines)
    and adjacent points to adjacent points (tests/test_morris.py checks that they form a
    group, and that it is every permutation that does)."""
    pts = board_geometry(men, diagonals)[0]
    index = {p: i for i, p in enumerate(pts)}
    rings = {3: 1, 6: 2, 9: 3}[men]
    c = rings  # the centre's coordinate (Three: the 3x3 grid's middle point)
    where = []
    for swap in ((False, True) if rings > 1 else (False,)):
        for flip in (False, True):
            for turns in range(4):
                row = []
                for x, y in pts:
                    u, v = x - c, y - c
                    d = max(abs(u), abs(v))  # the ring (Three: 0 the centre, 1 the rest)
                    if swap:
                        u, v = u // d * (rings + 1 - d), v // d * (rings + 1 - d)
                    for _ in range(turns):
                        u, v = -v, u
                    if flip:
                        u = -u
                    row.append(index[(c + u, c + v)])
                where.append(row)
    return np.array(where, dtype=np.int64)


def symmetry_table(where: np.ndarray) -> np.ndarray:
    """image[(s * 3 + k) * 256 + q]: the point mask of the bits q at byte k of a mask
    (bit p: point p) moved by symmetry s (`board_symmetries`); a mask's image is the OR of
    three lookups (`_image`). Boards have at most 24 points."""
    nsym, npts = where.shape
    tab = np.zeros((nsym, 3, 256), dtype=np.int64)
    for s in range(nsym):
        for k in range(3):
            for q in range(256):
                for b in range(8):
                    if q >> b & 1 and 8 * k + b < npts:
                        tab[s, k, q] |= 1 << int(where[s, 8 * k + b])
    return tab.ravel()


def _csr(groups: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    starts = np.zeros(len(groups) + 1, dtype=np.int64)
    for i, g in enumerate(groups):
        starts[i + 1] = starts[i] + len(g)
    ids = np.array([x for g in groups for x in g] or [0], dtype=np.int64)
    return starts, ids


# -- numba core -----------------------------------------------------------------------------

@njit(cache=True, nogil=True, inline="always")
def _decode(ctx, h, board):
    """Board of hash h into `board`; returns (stage, side to move)."""
    hctx, bstart, binfo = ctx[0], ctx[1], ctx[2]
    k = np.searchsorted(bstart, h, side="right") - 1
    combo = binfo[k, 2]
    unrank(hctx, hctx[5][combo] + h - bstart[k], board)
    return binfo[k, 0], binfo[k, 1]


@njit(cache=True, nogil=True, inline="always")
def _encode(ctx, board, stage, turn):
    """Hash of `board` in the block (stage, turn), -1 when there is none: the block's
    start plus the board's generic arrangement rank (types W, B, empty)."""
    m0, m1, r0, r1 = arrangement_pass(ctx[0], board)
    combo, r = arrangement_rank(ctx[0], m0, m1, r0, r1)
    if combo < 0:
        return -1
    k = ctx[3][stage, combo, turn]
    if k < 0:
        return -1
    return ctx[1][k] + r


@njit(cache=True, nogil=True, inline="always")
def _image(tab, s, m):
    """The point mask m moved by symmetry s (`symmetry_table`)."""
    at = s * 768
    return tab[at + (m & 255)] | tab[at + 256 + ((m >> 8) & 255)] | tab[at + 512 + (m >> 16)]


@njit(cache=True, nogil=True, inline="always")
def _least_image(tab, n, xm, om):
    """(the smallest image of the board (xm, om) as one key, the symmetries that fix it):
    a board's key is its White mask above its Black mask (n points each). Keys order the
    boards of a block as their hashes do: White's colex rank orders its masks as numbers,
    and Black's among the points White left, given White's, too. So the canonical image is
    ranked once, not once per image."""
    key = (xm << n) | om
    best = key
    fixed = 1
    for s in range(1, tab.shape[0] // 768):
        xi = _image(tab, s, xm)
        if xi > best >> n and xi != xm:  # neither smaller nor fixing: Black's image unneeded
            continue
        img = (xi << n) | _image(tab, s, om)
        best = min(best, img)
        fixed += img == key
    return best, fixed


@njit(cache=True, nogil=True, inline="always")
def _least_rank(hctx, tab, xm, om):
    """The generic rank (hctx: the game's HashContext) of the smallest image of the board
    (xm, om)."""
    n = hctx[0][0]
    best, _fixed = _least_image(tab, n, xm, om)
    return rank_masks(hctx, best >> n, best & ((np.int64(1) << n) - 1), 0)


@njit(cache=True, nogil=True)
def canonical(ctx, h, scratch):
    """The smallest hash among h's images: the same block (stage, side to move, pieces
    in hand and on the board), the board moved by a symmetry of the board."""
    hctx, bstart, binfo, tab = ctx[0], ctx[1], ctx[2], ctx[9]
    k = np.searchsorted(bstart, h, side="right") - 1
    base = hctx[5][binfo[k, 2]]
    _turn, xm, om = unrank_masks(hctx, base + h - bstart[k])
    return bstart[k] + _least_rank(hctx, tab, xm, om) - base


@njit(cache=True, nogil=True)
def orbit(ctx, h, scratch):
    """How many distinct images h has: the symmetries divided by those that fix it."""
    hctx, bstart, binfo, tab = ctx[0], ctx[1], ctx[2], ctx[9]
    k = np.searchsorted(bstart, h, side="right") - 1
    _turn, xm, om = unrank_masks(hctx, hctx[5][binfo[k, 2]] + h - bstart[k])
    _best, fixed = _least_image(tab, hctx[0][0], xm, om)
    return tab.shape[0] // 768 // fixed


@njit(cache=True, nogil=True, inline="always")
def _renumber(hctx, combo, local, table, first):
    """A board's offset in its block under one numbering from its offset under the other:
    White's rank (hash) or place among the least White sets (index) is local // C(points
    left, Black), the rest is Black's rank; `table` maps the one to the other."""
    rad = hctx[4][combo, 0]
    q = local // rad
    return table[first[hctx[3][combo, 0]] + q] * rad + local - q * rad


@njit(cache=True, nogil=True, inline="always")
def canonical_index(ctx, h):
    """The index of canonical h among the canonical positions (hashing/orbits.py): its
    block's first index, then its White set's place among the least White sets, then
    Black's rank among the points left."""
    hctx, bstart, binfo, numbering = ctx[0], ctx[1], ctx[2], ctx[10]
    k = np.searchsorted(bstart, h, side="right") - 1
    return numbering[4][k] + _renumber(hctx, binfo[k, 2], h - bstart[k], numbering[0],
                                       numbering[2])


@njit(cache=True, nogil=True, inline="always")
def canonical_slot(ctx, i):
    """The hash at index i (`canonical_index`)."""
    hctx, bstart, binfo, numbering = ctx[0], ctx[1], ctx[2], ctx[10]
    istart = numbering[4]
    k = np.searchsorted(istart, i, side="right") - 1
    return bstart[k] + _renumber(hctx, binfo[k, 2], i - istart[k], numbering[1],
                                 numbering[3])


@njit(cache=True, nogil=True)
def orbit_sizes_indexed(ctx, first, value, out, scratch):
    """out[j]: the orbit of the position at index first + j, 0 where value[j] is 0. The
    numbering runs one White set at a time, and a board's symmetries fix its White set: a
    White set that no symmetry fixes gives every board of its run the whole group, unseen."""
    hctx, binfo, tab, istart = ctx[0], ctx[2], ctx[9], ctx[10][4]
    whole = tab.shape[0] // 768
    n = value.shape[0]
    j = 0
    while j < n:
        i = first + j
        k = np.searchsorted(istart, i, side="right") - 1
        rad = hctx[4][binfo[k, 2], 0]
        stop = min(n, j + rad - (i - istart[k]) % rad)  # the end of this White set's run
        _stage, _side, xm, _om = _decode_masks(ctx, i, 2)
        plain = _least_image(tab, hctx[0][0], xm, np.int64(0))[1] == 1
        for q in range(j, stop):
            if value[q] == 0:
                out[q] = 0
            elif plain:
                out[q] = whole
            else:
                out[q] = orbit(ctx, canonical_slot(ctx, first + q), scratch)
        j = stop
    return n


@njit(cache=True, nogil=True, inline="always")
def _decode_masks(ctx, x, canon):
    """(stage, side to move, White's point mask, Black's) of hash x, or (canon 2) of the
    position at index x (`canonical_index`): the masks straight from the ranks, no board."""
    hctx, bstart, binfo, numbering = ctx[0], ctx[1], ctx[2], ctx[10]
    if canon == 2:
        istart = numbering[4]
        k = np.searchsorted(istart, x, side="right") - 1
        local = _renumber(hctx, binfo[k, 2], x - istart[k], numbering[1], numbering[3])
    else:
        k = np.searchsorted(bstart, x, side="right") - 1
        local = x - bstart[k]
    _turn, xm, om = unrank_masks(hctx, hctx[5][binfo[k, 2]] + local)
    return binfo[k, 0], binfo[k, 1], xm, om


@njit(cache=True, nogil=True, inline="always")
def _sides(side, a, b):
    """(a, b) when `side` is White, else (b, a): (White's mask, Black's) from (side's,
    the other's), and back."""
    if side == W:
        return a, b
    return b, a


@njit(cache=True, nogil=True, inline="always")
def _low(bits):
    """The point of the lowest set bit."""
    return popcount((bits & -bits) - 1)


@njit(cache=True, nogil=True, inline="always")
def _closes(lines, mstart, mids, mask, q):
    """Whether point q lies on a line all of whose points are in `mask`."""
    for j in range(mstart[q], mstart[q + 1]):
        m = lines[mids[j]]
        if (mask & m) == m:
            return True
    return False


@njit(cache=True, nogil=True, inline="always")
def _in_mills(lines, mask):
    """The points of `mask` on a line all of whose points are in `mask`."""
    out = np.int64(0)
    for j in range(lines.shape[0]):
        m = lines[j]
        if (mask & m) == m:
            out |= m
    return out


@njit(cache=True, nogil=True, inline="always")
def _encode_masks(ctx, xm, om, stage, turn, least):
    """`_encode` of the board with White's points xm and Black's om, or (least) of its
    canonical image (`canonical` of its hash, without the hash and the unranking in
    between); -1 when there is none."""
    hctx, bstart, blk, tab = ctx[0], ctx[1], ctx[3], ctx[9]
    meta, cindex, coffset = hctx[0], hctx[2], hctx[5]
    n = meta[0]
    combo = cindex[popcount(xm) + (n + 1) * popcount(om)]
    if combo < 0:
        return -1
    k = blk[stage, combo, turn]
    if k < 0:
        return -1
    if least:
        return bstart[k] + _least_rank(hctx, tab, xm, om) - coffset[combo]
    return bstart[k] + rank_masks(hctx, xm, om, 0) - coffset[combo]


@njit(cache=True, nogil=True, inline="always")
def _word(xm, om, n, stage, turn):
    """The position as one word for `_indices`: stage and side above White's mask above
    Black's (Nine: 6 + 1 + 2 x 24 bits)."""
    return ((stage * 2 + turn) << (2 * n)) | (xm << n) | om


@njit(cache=True, nogil=True)
def _indices(ctx, out, count, drop):
    """Turn the moves collected in `out` as `_word`s into the `canonical_index` of their
    canonical images, found as `_encode_masks` finds its hash (no block search, no
    division), in one loop after the moves. A word outside the hash space gives -1, or
    (drop) is left out; returns the count kept."""
    hctx, blk, tab, numbering = ctx[0], ctx[3], ctx[9], ctx[10]
    meta, cindex, radix = hctx[0], hctx[2], hctx[4]
    index, first, istart = numbering[0], numbering[2], numbering[4]
    n = meta[0]
    low = (np.int64(1) << n) - 1
    m = 0
    for j in range(count):
        w = out[j]
        key = w >> (2 * n)
        xm, om = (w >> n) & low, w & low
        white = popcount(xm)
        combo = cindex[white + (n + 1) * popcount(om)]
        k = blk[key >> 1, combo, key & 1] if combo >= 0 else -1
        if k < 0:
            if not drop:
                out[m] = -1
                m += 1
            continue
        best, _fixed = _least_image(tab, n, xm, om)
        r0, r1 = colex_parts(meta, best >> n, best & low)
        out[m] = istart[k] + index[first[white] + r0] * radix[combo, 0] + r1
        m += 1
    return m


@njit(cache=True, nogil=True, inline="always")
def _hash_of(ctx, wm, bm, stage, turn, canon):
    """The hash of the board (White's points wm, Black's bm), its canonical hash (canon
    1), or (canon 2) the `_word` that `_indices` turns into its index."""
    if canon == 2:
        return _word(wm, bm, ctx[0][0][0], stage, turn)
    return _encode_masks(ctx, wm, bm, stage, turn, canon == 1)


@njit(cache=True, nogil=True)
def _placed(men, stage, side):
    """Pieces `side` has placed after `stage` placements (White places first)."""
    if side == W:
        return min(men, (stage + 1) // 2)
    return min(men, stage // 2)


@njit(cache=True, nogil=True, inline="always")
def _short(ctx, mine, theirs, stage, me):
    """LOSE when `me` (points `mine`) has lost before moving: the opponent (`theirs`)
    stands in a mill (millwin) or `me` has fewer than three pieces on the board and in
    hand; else 0."""
    params, lines = ctx[8], ctx[4]
    men = params[P_MEN]
    if params[P_MILLWIN] and _in_mills(lines, theirs):
        return LOSE
    if popcount(mine) + men - _placed(men, stage, me) < 3:
        return LOSE
    return 0


@njit(cache=True, nogil=True)
def primitive(ctx, h, scratch):
    params, near = ctx[8], ctx[7]
    stage, me, wm, bm = _decode_masks(ctx, h, 0)
    mine, theirs = _sides(me, wm, bm)
    if _short(ctx, mine, theirs, stage, me):
        return LOSE
    if stage == params[P_MOVE_STAGE]:
        if params[P_FLY] and popcount(mine) == 3:
            return 0  # some point is empty on every board
        empty = ((np.int64(1) << params[P_POINTS]) - 1) & ~(wm | bm)
        s = mine
        while s:
            if near[_low(s)] & empty:
                return 0
            s &= s - 1
        return LOSE
    return 0


@njit(cache=True, nogil=True, inline="always")
def _emit(ctx, mine, theirs, dst, code, me, stage, out, moves, n, canon):
    """Children of the move that just put `me` on dst (`mine`, `theirs`: the points after
    it): one per opponent piece a mill may take when the move formed one (a piece in no
    mill, any when all are), else one; each as `_hash_of` gives it. One call site of
    `_hash_of` (it is inlined: each site is compiled again, with the canonical search)."""
    params, lines, mstart, mids = ctx[8], ctx[4], ctx[5], ctx[6]
    opp = 1 - me
    take = np.int64(0)
    if theirs and params[P_MILLWIN] == 0 and _closes(lines, mstart, mids, mine, dst):
        take = theirs & ~_in_mills(lines, theirs)
        if take == 0:
            take = theirs
    once = take == 0  # no mill: the one child without a removal
    while take or once:
        left, c = theirs, code
        if take:
            q = _low(take)
            left, c = theirs ^ (np.int64(1) << q), code + q + 1
            take &= take - 1
        once = False
        wm, bm = _sides(me, mine, left)
        out[n] = _hash_of(ctx, wm, bm, stage, opp, canon)
        moves[n] = c
        n += 1
    return n


# `expand`: a primitive and the children from one decode (composed from `primitive`, a
# compact solve paid a second decode of each position by its hash, with the reference
# counts of all of ctx).
@forms("children", "expand", canonical=True, indexed=True)
@njit(cache=True, nogil=True, inline="always")
def _children(ctx, h, out, moves, scratch, canon, expand):
    """Children of h (canon 0), as canonical hashes (1, for solver/kernels/symmetry.py),
    or of the position at index h as canonical indices (2, solver/kernels/compact.py), in
    the order of the move codes. With `expand`, -value of a primitive instead. On point
    masks (bit p: point p), no board."""
    params, near = ctx[8], ctx[7]
    npts = params[P_POINTS]
    stage, me, wm, bm = _decode_masks(ctx, h, canon)
    mine, theirs = _sides(me, wm, bm)
    if expand and _short(ctx, mine, theirs, stage, me):
        return -LOSE
    empty = ((np.int64(1) << npts) - 1) & ~(wm | bm)
    n = 0
    # placements: one pass with no source (src -1); else slides (flights with three
    # pieces) from each of mine: one loop, so `_emit` is inlined once
    placing = stage < params[P_MOVE_STAGE]
    fly = params[P_FLY] != 0 and popcount(mine) == 3
    s = np.int64(1) if placing else mine
    while s:
        src = -1 if placing else _low(s)
        left = mine if placing else mine ^ (np.int64(1) << src)
        d = empty if placing or fly else near[src] & empty
        while d:
            dst = _low(d)
            n = _emit(ctx, left | (np.int64(1) << dst), theirs, dst,
                      ((src + 1) * npts + dst) * (npts + 1), me, stage + placing, out, moves,
                      n, canon)
            d &= d - 1
        s &= s - 1
    if expand and n == 0 and not placing:
        return -LOSE  # blocked
    return _indices(ctx, out, n, False) if canon == 2 else n


@njit(cache=True, nogil=True, inline="always")
def _add_parent(ctx, mover, other, prev, stage, canon, out, n):
    """Append the parent where `prev` (points `mover`) is to move against `other`, unless
    it is outside the hash space (canon 2: left to `_indices`) or primitive (Three: the
    side not to move has a line); returns the new count."""
    params, lines = ctx[8], ctx[4]
    wm, bm = _sides(prev, mover, other)
    p = _hash_of(ctx, wm, bm, stage, prev, canon)
    if p < 0 or (params[P_MILLWIN] and _in_mills(lines, other)):
        return n
    out[n] = p
    return n + 1


@njit(cache=True, nogil=True, inline="always")
def _unmove(ctx, moved, other, empty, d, src, prev, stage, out, n, canon, in_tier):
    """Parents where `prev` moved to d (from src, -1 for a placement) in the parent of
    `stage`, the child's points being `moved` (prev's), `other` and `empty`: without a
    removal, or with one of the other side's pieces taken from an empty point r when the
    move closed a mill and taking r was legal (r in no mill, or all in mills); `in_tier`:
    not those, which had one piece more, so lie in another tier."""
    params, lines, mstart, mids = ctx[8], ctx[4], ctx[5], ctx[6]
    one = np.int64(1)
    back = moved ^ (one << d)
    if src >= 0:
        back |= one << src
    put = np.int64(0)  # the points r of a piece the mill took
    plain = True  # and the parent without a removal
    if params[P_MILLWIN] == 0 and _closes(lines, mstart, mids, moved, d):
        free = 0 if in_tier else empty
        if src >= 0:
            free &= ~(one << src)
        while free:
            r = _low(free)
            had = other | (one << r)
            if not _closes(lines, mstart, mids, had, r) or _in_mills(lines, had) == had:
                put |= one << r
            free &= free - 1
        plain = other == 0  # a mill removes nothing only when the opponent had no piece out
    for _ in range(popcount(put) + plain):  # one call site: `_add_parent` is inlined once
        low = put & -put
        put ^= low
        n = _add_parent(ctx, back, other | low, prev, stage, canon, out, n)
    return n


# `parents_in_tier`: the retrograde inside a movement tier asks for these only; a slide
# that closed a mill had up to a dozen parents with a piece put back, all in other tiers.
@forms("parents", "parents_in_tier", canonical=True, indexed=True)
@njit(cache=True, nogil=True, inline="always")
def _parents(ctx, h, out, scratch, canon, in_tier):
    """Every position (in the hash space, not primitive) with h among its children, once;
    (canon) each in its canonical form, repeats allowed; (in_tier) only those in h's tier:
    un-slides without a piece put back (un-placements and un-removals change the stage or
    the pieces on the board)."""
    params, near = ctx[8], ctx[7]
    npts = params[P_POINTS]
    mstage = params[P_MOVE_STAGE]
    stage, me, wm, bm = _decode_masks(ctx, h, canon)
    prev = 1 - me
    moved, other = _sides(prev, wm, bm)
    empty = ((np.int64(1) << npts) - 1) & ~(wm | bm)
    n = 0
    # un-placements (phase 0: the parent is in the previous stage, with prev to move; no
    # source), then un-slides (1: un-flights when prev had three pieces), in one loop so
    # that `_unmove` is inlined once
    fly = params[P_FLY] != 0 and popcount(moved) == 3
    first = 1 if in_tier or stage == 0 or (stage >= mstage and me != W) else 0
    last = 1 if stage >= mstage else 0
    for phase in range(first, last + 1):
        slide = phase == 1
        st = stage - 1 + phase
        s = moved
        while s:
            d = _low(s)
            f = (empty if fly else near[d] & empty) if slide else np.int64(1)
            while f:
                n = _unmove(ctx, moved, other, empty, d, _low(f) if slide else -1, prev,
                            st, out, n, canon, in_tier)
                f &= f - 1
            s &= s - 1
    return _indices(ctx, out, n, True) if canon == 2 else n


# -- the game -------------------------------------------------------------------------------

@register
class Morris(Game):
    name = "morris"
    title = "Three, Six and Nine Men's Morris"
    loopy = True
    variants = {
        "men": Variant(3, 3, 9, "pieces per player and board", choices=(3, 6, 9)),
        "diagonals": Variant(0, 0, 1, "Three only: 1 = the diagonals are lines too"),
    }

    def __init__(self, **variant):
        super().__init__(**variant)
        men = self.variant["men"]
        if men not in (3, 6, 9):
            raise VariantError(
                f"morris variant men={men}: must be 3, 6 or 9 (Three, Six or Nine Men's Morris)")
        if self.variant["diagonals"] and men != 3:
            raise VariantError("morris variant diagonals=1 is for Three Men's Morris only")
        self.men = men
        pts, mills, adj = board_geometry(men, self.variant["diagonals"])
        npts = len(pts)
        self.npoints = npts
        self.millwin = men == 3
        self.flying = men == 9
        self.move_stage = 2 * men
        # rows of the position string, and point names
        ys = sorted({y for _, y in pts})
        self.row_lengths = [sum(1 for _, y in pts if y == yy) for yy in ys]
        size = max(x for x, _ in pts) + 1
        self.point_names = [f"{'abcdefg'[x]}{size - y}" for x, y in pts]
        self.mills = mills
        self.adjacent = adj

        self.hash = HashContext(npts, [(0, men), (0, men), (0, npts)])
        self.blocks = self._blocks()  # (stage, turn, combo, w, b)
        offsets = self.hash.offsets
        bstart = np.zeros(len(self.blocks) + 1, dtype=np.int64)
        binfo = np.zeros((len(self.blocks), 3), dtype=np.int64)
        blk = np.full((self.move_stage + 1, len(self.hash.combos), 2), -1, dtype=np.int64)
        for k, (stage, turn, combo, _w, _b) in enumerate(self.blocks):
            bstart[k + 1] = bstart[k] + offsets[combo + 1] - offsets[combo]
            binfo[k] = (stage, turn, combo)
            blk[stage, combo, turn] = k
        self.bstart = bstart
        self.hash_size = int(bstart[-1])
        through = [[m for m, line in enumerate(mills) if p in line] for p in range(npts)]
        mstart, mids = _csr(through)
        nbrs = [[b for a, b in adj if a == p] for p in range(npts)]
        params = np.array([npts, men, int(self.millwin), int(self.flying), self.move_stage],
                          dtype=np.int64)
        self.symmetries = board_symmetries(men, self.variant["diagonals"])
        lines = np.array([sum(1 << p for p in m) for m in mills], dtype=np.int64)
        near = np.array([sum(1 << q for q in g) for g in nbrs], dtype=np.int64)
        self.ctx = (self.hash.nb, bstart, binfo, blk, lines, mstart, mids, near, params,
                    symmetry_table(self.symmetries), self._numbering())
        removals = 1 if self.millwin else men
        moves_bound = max(npts, men * max(len(g) for g in nbrs))
        if self.flying:
            moves_bound = max(moves_bound, 3 * npts)
        self.max_children = moves_bound * removals
        unremove = 1 if self.millwin else npts
        self.max_parents = max(men * max(len(g) for g in nbrs),
                               3 * npts if self.flying else 0, men) * unremove
        self.scratch_size = npts
        self.max_remoteness = 4095
        self.start = self.encode(np.full(npts, EMPTY, dtype=np.int8), 0, W)

    # -- numbering ------------------------------------------------------------------------
    def _valid(self, stage: int, turn: int, w: int, b: int) -> bool:
        men = self.men
        pw = min(men, (stage + 1) // 2)
        pb = min(men, stage // 2)
        if self.millwin:
            return w == pw and b == pb
        if w > pw or b > pb:
            return False
        total = (w + men - pw, b + men - pb)
        if total[turn] < 2 or total[1 - turn] < 3:
            return False
        if stage < self.move_stage:  # each mill needs a new placement, the first three
            if pw - w > max(0, pb - 2) or pb - b > max(0, pw - 2):
                return False
        return True

    def _blocks(self):
        out = []
        for stage in range(self.move_stage + 1):
            turns = (0, 1) if stage == self.move_stage else (stage % 2,)
            for combo, (w, b, _e) in enumerate(self.hash.combos):
                for turn in turns:
                    if self._valid(stage, turn, w, b):
                        out.append((stage, turn, combo, w, b))
        return out

    def _numbering(self):
        """Tables of `canonical_index`: for each count w of White pieces, the place of each
        White set among the least ones (-1: none) and the inverse, concatenated; then each
        block's first index. Nine: 164,501 least White sets, built in 0.3 s."""
        n = self.npoints
        index, rank, first_i, first_r = least_set_tables(self.symmetries, self.men)
        istart = np.zeros(len(self.blocks) + 1, dtype=np.int64)
        for k, (_stage, _turn, _combo, w, b) in enumerate(self.blocks):
            istart[k + 1] = istart[k] + (first_r[w + 1] - first_r[w]) * math.comb(n - w, b)
        self.canonical_size = int(istart[-1])
        self.block_index = istart  # block k's canonical indices: [istart[k], istart[k + 1])
        return (index, rank, first_i, first_r, istart)

    def encode(self, board: np.ndarray, stage: int, turn: int) -> int:
        h = int(_encode(self.ctx, np.asarray(board, dtype=np.int8), stage, turn))
        if h < 0:
            raise PositionError("morris: no such position in the hash space")
        return h

    def decode(self, h: int) -> tuple[np.ndarray, int, int]:
        if not 0 <= h < self.hash_size:
            raise PositionError(f"morris hash {h} is out of range 0..{self.hash_size - 1}")
        board = np.empty(self.npoints, dtype=np.int8)
        stage, turn = _decode(self.ctx, h, board)
        return board, int(stage), int(turn)

    def parent_hashes(self, h: int) -> list[int]:
        """The positions with h among their children (Python callers and tests)."""
        out = np.empty(self.max_parents, np.int64)
        n = parents(self.ctx, h, out,  # noqa: F821  (made by forms above)
                    np.empty(self.scratch_size, np.int8))
        return [int(x) for x in out[:n]]

    def hands(self, stage: int) -> tuple[int, int]:
        men = self.men
        return men - min(men, (stage + 1) // 2), men - min(men, stage // 2)

    def tiers(self) -> list[Tier]:
        groups: list[list[int]] = []  # block ids per tier
        key_of: dict[tuple[int, int, int], int] = {}
        for k, (stage, _turn, _combo, w, b) in enumerate(self.blocks):
            key = (stage, w, b)
            if key not in key_of:
                key_of[key] = len(groups)
                groups.append([])
            groups[key_of[key]].append(k)
        tiers = []
        for (stage, w, b), t in key_of.items():
            ks = groups[t]
            if stage < self.move_stage:
                turn = stage % 2
                if turn == W:
                    cand = [(stage + 1, w + 1, b), (stage + 1, w + 1, b - 1)]
                else:
                    cand = [(stage + 1, w, b + 1), (stage + 1, w - 1, b + 1)]
                label = f"place {stage} W{w} B{b}"
            else:
                cand = [(stage, w, b), (stage, w, b - 1), (stage, w - 1, b)]
                label = f"move W{w} B{b}"
            if self.millwin:
                cand = cand[:1]
            kids = tuple(sorted({key_of[c] for c in cand if c in key_of}))
            tiers.append(Tier(label, int(self.bstart[ks[0]]), int(self.bstart[ks[-1] + 1]),
                              kids))
        return tiers

    # -- strings --------------------------------------------------------------------------
    def to_string(self, h: int) -> str:
        board, stage, turn = self.decode(h)
        cells = "".join(CHARS[p] for p in board)
        rows, i = [], 0
        for n in self.row_lengths:
            rows.append(cells[i:i + n])
            i += n
        hw, hb = self.hands(stage)
        return f"{'/'.join(rows)} {SIDES[turn]} {hw} {hb}"

    def from_string(self, s: str) -> int:
        text = s.strip()
        parts = text.split()
        where = f"morris position '{text}'"
        if len(parts) not in (2, 4):
            raise PositionError(
                f"{where} should be 'BOARD SIDE [WHITE_HAND BLACK_HAND]', "
                f"e.g. '{self.to_string(self.start)}'")
        rows = parts[0].split("/")
        if len(rows) != len(self.row_lengths):
            raise PositionError(
                f"{where} should have {len(self.row_lengths)} rows joined by '/'")
        for i, (row, n) in enumerate(zip(rows, self.row_lengths, strict=True)):
            if len(row) != n:
                raise PositionError(f"{where}: row {i + 1} should have {n} points")
            for ch in row:
                if ch not in CHARS:
                    raise PositionError(f"{where}: '{ch}' is not one of '{CHARS}'")
        if parts[1] not in SIDES:
            raise PositionError(f"{where}: the side to move must be 'w' or 'b'")
        turn = SIDES.index(parts[1])
        if len(parts) == 4:
            try:
                hw, hb = int(parts[2]), int(parts[3])
            except ValueError:
                raise PositionError(f"{where}: pieces in hand must be integers") from None
        else:
            hw = hb = 0
        men = self.men
        if not (0 <= hw <= men and 0 <= hb <= men):
            raise PositionError(f"{where}: pieces in hand must be 0..{men}")
        if turn == W and hw != hb:
            raise PositionError(
                f"{where} cannot occur: players alternate placing, White first, so with "
                f"White to move both hold as many pieces in hand")
        if turn == B and hb != hw + 1 and hb + hw > 0:
            raise PositionError(
                f"{where} cannot occur: players alternate placing, White first, so with "
                f"Black to move Black holds one piece more in hand than White")
        stage = 2 * men - hw - hb
        board = np.array([CHARS.index(c) for c in "".join(rows)], dtype=np.int8)
        w, b = int((board == W).sum()), int((board == B).sum())
        if not self._valid(stage, turn, w, b):
            raise PositionError(
                f"{where} cannot occur: {w} white and {b} black pieces on the board do not "
                f"fit the pieces placed ({men - hw} white, {men - hb} black)"
                + ("" if self.millwin else
                   ", removals by mills, and a side below three pieces having lost"))
        return self.encode(board, stage, turn)

    def move_name(self, h: int, code: int) -> str:
        npts = self.npoints
        rem = code % (npts + 1) - 1
        rest = code // (npts + 1)
        dst = rest % npts
        src = rest // npts - 1
        name = self.point_names[dst]
        if src >= 0:
            name = f"{self.point_names[src]}-{name}"
        if rem >= 0:
            name += f"x{self.point_names[rem]}"
        return name

    def analysis_extras(self, solved) -> dict:
        if self.millwin:
            rule = "three in a row wins" + (" (diagonals too)" if self.variant["diagonals"]
                                            else " (rows and columns, no diagonals)")
        else:
            rule = "a mill removes an opponent piece; " + (
                "flying at three pieces" if self.flying else "no flying")
        return {"notes": [f"{self.title}: {self.men} pieces each, {self.npoints} points, "
                          f"{len(self.mills)} lines; {rule}"]}
