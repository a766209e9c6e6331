"""Bagh-Chal (tigers and goats) on an n x n board of points, n = 3, 4 or 5.

Rules (the standard game on the 5x5 board, scaled down on the "lite" boards):

* The board is an n x n grid of points. Lines join orthogonally adjacent points
  everywhere, and diagonally adjacent points only along the standard board's diagonals:
  from a point whose (row + column) is even, all four diagonal steps are lines (such a
  point's diagonal neighbours are even too; odd points have no diagonals). On 5x5 and 3x3
  every corner is even; on 4x4 the top-right and bottom-left corners are odd.
* Tigers start on the corners, filled in the order top-left, bottom-right, top-right,
  bottom-left (the standard game has all 4). All goats start in hand. Goats move first,
  then the sides alternate.
* Goats: while any goat is in hand, a goat move places one goat on any empty point
  (goats on the board cannot move yet). Once every goat is placed, a goat move slides one
  goat along a line to an adjacent empty point.
* Tigers (in both phases): slide one tiger along a line to an adjacent empty point, or
  jump along a line over an adjacent goat onto the empty point directly behind it,
  capturing that goat. One capture per move (no multiple jumps); capturing is optional.
* Tigers win once `captures` goats are captured (standard: 5): the position with goats to
  move is a loss for the goats. Goats win when the tigers, to move, have no legal move.
  A goat side with no legal move (only possible in the sliding phase) loses too: in
  every case the side to move without a legal move loses (as in GamesCrafters' Bagh Chal).
* There is no repetition rule, so the sliding phase is loopy: positions can repeat, and a
  game that neither side can force to an end is a DRAW.

Variants (`size`, `tigers`, `goats`, `captures`); keys left out take the defaults of the
chosen size (solved values for the goats, who move first):

    size 3: tigers=1 goats=6  captures=2   default; goats win in 13 (8,177 positions)
    size 4: tigers=2 goats=8  captures=3   "lite"; draw (7,184,451 positions)
    size 5: tigers=4 goats=20 captures=5   the standard game: defined, far too big here

Limits: 1 <= tigers <= 4, 1 <= goats <= size*size - tigers, 1 <= captures <= goats.

Position string: the board, rows top first joined by '/', `T` tiger, `G` goat, `-` empty;
then a space and the side to move, `g` (goats) or `t` (tigers); a space and the goats
still in hand; a space and the goats captured so far. Start of the default variant:
`T--/---/--- g 6 0`; after the goats place on the centre and the tiger jumps it:
`---/---/--T g 5 1`. Points in move names are column letter (a = left) and row number
(1 = bottom): a placement is `b2`, a slide `a3-b3`, a capture `a3xc3`.

Hash: a goat move in the placement phase changes the goats placed, p = goats - in hand,
and a capture changes the goats captured, k; the goats on the board are p - k. The hash
space is split into tiers by (p, k, side to move), in order of p, then k, then goats
before tigers:

* placement (p < goats): goats to move for 0 <= k <= min(p, captures); tigers to move
  for 1 <= p and k < min(p, captures) (the tigers have moved p - 1 times);
* sliding (p = goats): one tier per k < captures holding both sides (turn bit), and one
  tier (goats, captures, goats to move) of games the tigers have won.

Inside a tier, boards are numbered exactly as hashing.HashContext (types T, G, empty)
numbers the piece-count combination (tigers, p - k, rest) (hashing.generic's
arrangement_rank and unrank_arrangement), times the turn bit in sliding tiers. A position's hash is
its tier's offset plus its rank there. Hash sizes: 9,837 (default), 7,447,200 (size 4),
291,228,843,950 (size 5). Placement tiers are loop-free (every move leaves the tier); a
sliding tier's moves stay in it or capture into the next one. Un-moves (`parents`) are
provided for retrograde solving.

Symmetry (`canonical`, `orbit`; `--symmetry` solves canonical positions only): the
symmetries of the square that map lines to lines, moving the pieces on the board and
keeping the hands, the captures and the side to move (the tier). On 3x3 and 5x5 all 8
(every corner is even); on 4x4 the 4 that keep (row + column)'s parity: the identity, the
half turn and the two diagonal reflections. The tigers' start need not be symmetric (3x3:
one tiger on a corner); the reduced database answers the images of what it reached too.
`children_canonical` and `parents_canonical` give the canonical forms from bit masks kept
beside the board, with no second unranking (4x4 retrograde, one thread: 9.7 s of CPU with
them, 15.6 s through `canonical`, 19 s unreduced; `parents_in_tier` forms made no
measurable difference to the tiered solve, so there are none).
"""

from __future__ import annotations

import math

import numpy as np

from games import register
from games.base import (
    LOSE,
    Game,
    PositionError,
    Tier,
    Variant,
    VariantError,
    forms,
    parse_board,
)
from games.common import (
    board_to_rows,
    canonical_masks_in,
    mask_symmetries,
    mask_symmetry_cells,
    orbit_masks_in,
)
from hashing import HashContext
from hashing.generic import (
    arrangement_pass,
    arrangement_rank,
    colex_parts,
    masks_of_ranks,
    popcount,
    rank_masks,
    unrank_arrangement,
    unrank_masks,
)
from hashing.jit import njit
from hashing.orbits import least_sets

TIGER, GOAT, EMPTY = 0, 1, 2
CHARS = "TG-"
GOATS_TURN, TIGERS_TURN, BOTH = 0, 1, 2
SIDES = "gt"
# the 8 line directions: orthogonal first, then diagonal
DIRECTIONS = ((-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1))

SIZE_DEFAULTS = {
    3: {"tigers": 1, "goats": 6, "captures": 2},
    4: {"tigers": 2, "goats": 8, "captures": 3},
    5: {"tigers": 4, "goats": 20, "captures": 5},
}
DEFAULT_SIZE = 3

# params[] slots. P_GROUP: the board's symmetries, a bit set (`board_symmetries`); from
# P_SWAPS on, the delta swaps of the square's 8 symmetries (common.mask_symmetries without
# its tables, which give the smallest image under all 8: 4x4 keeps 4). In params, not an
# array of their own: each array of ctx costs every call that passes ctx (~2% of children)
P_CELLS, P_TIGERS, P_GOATS, P_CAPTURES, P_GROUP, P_SWAPS = range(6)


@njit(cache=True, nogil=True)
def _decode(ctx, h, board):
    """Write the board of hash h into `board`; return (side to move, placed, captured)."""
    hnb, gcombo, _nbr, _beyond, _params, toff, tp, tk, tturn, tarr, _tid, _num = ctx
    t = np.searchsorted(toff, h, side="right") - 1
    r = h - toff[t]
    turn = tturn[t]
    if turn == BOTH:
        turn = r // tarr[t]
        r -= turn * tarr[t]
    unrank_arrangement(hnb, gcombo[tp[t] - tk[t]], r, board)
    return turn, tp[t], tk[t]


@njit(cache=True, nogil=True)
def _encode(ctx, board, turn, p, k):
    """Hash of `board` with `turn` to move, p goats placed and k captured: the tier's
    offset, the turn's block in a sliding tier, and the board's generic arrangement rank."""
    hnb, _gcombo, _nbr, _beyond, _params, toff, _tp, _tk, tturn, tarr, tid, _num = ctx
    t = tid[p, k, turn]
    m0, m1, r0, r1 = arrangement_pass(hnb, board)
    sub = arrangement_rank(hnb, m0, m1, r0, r1)[1]
    if tturn[t] == BOTH:
        sub += turn * tarr[t]
    return toff[t] + sub


@njit(cache=True, nogil=True)
def _can_move(ctx, board, piece):
    """Whether some `piece` can slide (or, for tigers, jump)."""
    nbr, beyond = ctx[2], ctx[3]
    n = ctx[4][P_CELLS]
    for i in range(n):
        if board[i] != piece:
            continue
        for d in range(8):
            j = nbr[i, d]
            if j < 0:
                continue
            if board[j] == EMPTY:
                return True
            if piece == TIGER and board[j] == GOAT:
                m = beyond[i, d]
                if m >= 0 and board[m] == EMPTY:
                    return True
    return False


@njit(cache=True, nogil=True)
def primitive(ctx, h, scratch):
    params = ctx[4]
    turn, p, k = _decode(ctx, h, scratch)
    if turn == GOATS_TURN:
        if k >= params[P_CAPTURES]:
            return LOSE
        if p < params[P_GOATS]:
            return 0  # placement: an empty point always exists (tigers + goats <= cells)
        return 0 if _can_move(ctx, scratch, GOAT) else LOSE
    return 0 if _can_move(ctx, scratch, TIGER) else LOSE


@njit(cache=True, nogil=True, inline="always")
def _board_masks(board, n):
    """(tiger mask, goat mask) of a board (bit i: point i)."""
    a = np.int64(0)
    b = np.int64(0)
    for i in range(n):
        a |= np.int64(board[i] == TIGER) << i
        b |= np.int64(board[i] == GOAT) << i
    return a, b


@njit(cache=True, nogil=True)
def _encode_canonical(ctx, a, b, turn, p, k):
    """The hash of the canonical image (see `canonical`) of the position with tigers on
    the mask a, goats on b, `turn` to move, p goats placed and k captured. The rules below
    keep the masks beside the board when `canon`, so that a canonical child or parent
    needs no unranking (solver/kernels/symmetry.py). (Each call site picks this, `_index`
    or `_encode` itself: one inlined function choosing between them, taking ctx, made
    `children` twice as slow, 1.6 -> 3.3 us a 4x4 position; choosing `_index` so cost
    5x5's 3.3 us a position 4.2.)"""
    hnb, gcombo, params, toff, tturn, tarr, tid = ctx[0], ctx[1], ctx[4], ctx[5], ctx[8], \
        ctx[9], ctx[10]
    ca, cb = canonical_masks_in(params[P_SWAPS:], params[P_GROUP], a, b)
    t = tid[p, k, turn]
    base = toff[t]
    if tturn[t] == BOTH:
        base += turn * tarr[t]
    return base + rank_masks(hnb, ca, cb, 0) - hnb[5][gcombo[p - k]]


@njit(cache=True, nogil=True)
def _indices(ctx, out, count):
    """Turn the moves collected in `out` as words (tier * 2 + side to move, then the tiger
    mask, then the goat mask: `_word`) into the `canonical_index` of their canonical
    images, in one loop: the tier is known, so there is no hash, tier search or
    division. (A helper per move that took arrays, inlined, paid their reference counts
    at every move: 5x5 children 1.6 us a position, against 1.25 so.)"""
    hnb, params, tturn, num = ctx[0], ctx[4], ctx[8], ctx[11]
    meta, binom, sym = hnb[0], hnb[1], params[P_SWAPS:]
    group, n = params[P_GROUP], params[P_CELLS]
    low = (np.int64(1) << n) - 1
    left = n - params[P_TIGERS]
    c, least = num[0], num[1]
    for j in range(count):
        key = out[j] >> (2 * n)
        t, turn = key >> 1, key & 1
        ca, cb = canonical_masks_in(sym, group, (out[j] >> n) & low, out[j] & low)
        r0, r1 = colex_parts(meta, ca, cb)
        block = turn if tturn[t] == BOTH else 0
        rad = binom[left, popcount(cb)]
        out[j] = num[2 + c + least + t] + (block * least + num[2 + r0]) * rad + r1
    return count


@njit(cache=True, nogil=True, inline="always")
def _word(tid, n, a, b, turn, p, k):
    """The position (tigers a, goats b, `turn` to move, p placed, k captured) as one word
    for `_indices`: 2n bits of masks under its tier and side (5x5: 50 + 9 bits)."""
    return ((tid[p, k, turn] * 2 + turn) << (2 * n)) | a << n | b


@njit(cache=True, nogil=True)
def _decode_index(hnb, params, tp, tk, tturn, num, i, board):
    """`_decode` of the position at index i, from the numbering straight to the masks and
    the board: no hash, no second tier search (takes the arrays it reads, not ctx)."""
    meta, binom = hnb[0], hnb[1]
    c, least = num[0], num[1]
    base = 2 + c + least  # each tier's first index
    lo = 0
    hi = tp.shape[0]
    while hi - lo > 1:
        mid = (lo + hi) >> 1
        if num[base + mid] <= i:
            lo = mid
        else:
            hi = mid
    n, tigers = params[P_CELLS], params[P_TIGERS]
    g = tp[lo] - tk[lo]
    rad = binom[n - tigers, g]
    local = i - num[base + lo]
    turn = tturn[lo]
    if turn == BOTH:
        turn = local // (least * rad)
        local -= turn * least * rad
    q = local // rad
    a, b = masks_of_ranks(meta, binom, tigers, g, num[2 + c + q], local - q * rad)
    for j in range(n):
        board[j] = TIGER if a >> j & 1 else (GOAT if b >> j & 1 else EMPTY)
    return turn, tp[lo], tk[lo]


@njit(cache=True, nogil=True, inline="always")
def _decode_as(ctx, x, board, canon):
    """`_decode` of hash x, or (canon 2) of the position at index x."""
    if canon == 2:
        return _decode_index(ctx[0], ctx[4], ctx[6], ctx[7], ctx[8], ctx[11], x, board)
    return _decode(ctx, x, board)


# `expand`: a primitive and the children from one decode. Composed from `primitive`, a
# compact solve's reach paid a second decode of each position, by its hash, and the
# reference counts of every array of ctx (two threads then fought over them: 60% of the
# 5x5 reach in NRT_incref and NRT_decref).
@forms("children", "expand", canonical=True, indexed=True)
@njit(cache=True, nogil=True, inline="always")
def _children(ctx, h, out, moves, scratch, canon, expand):
    """Children of h (canon 0), as canonical hashes (1), or of the position at index h as
    canonical indices (2: words collected, `_indices` at the end). With `expand`, -value
    of a primitive instead (`primitive`: the side to move loses when it has no move)."""
    nbr, beyond, params, tid = ctx[2], ctx[3], ctx[4], ctx[10]
    n = params[P_CELLS]
    board = scratch[:n]
    turn, p, k = _decode_as(ctx, h, board, canon)
    if k >= params[P_CAPTURES]:  # the tigers have won: no move (and no tier to move to)
        if not expand:
            return 0
        return -LOSE if turn == GOATS_TURN or not _can_move(ctx, board, TIGER) else 0
    a, b = _board_masks(board, n) if canon else (np.int64(0), np.int64(0))
    one = np.int64(1)
    count = 0
    if turn == GOATS_TURN and p < params[P_GOATS]:
        for i in range(n):
            if board[i] == EMPTY:
                if canon == 2:
                    out[count] = _word(tid, n, a, b | one << i, TIGERS_TURN, p + 1, k)
                elif canon:
                    out[count] = _encode_canonical(ctx, a, b | one << i, TIGERS_TURN, p + 1, k)
                else:
                    board[i] = GOAT
                    out[count] = _encode(ctx, board, TIGERS_TURN, p + 1, k)
                    board[i] = EMPTY
                moves[count] = i
                count += 1
        return _indices(ctx, out, count) if canon == 2 else count  # never empty
    piece = GOAT if turn == GOATS_TURN else TIGER
    other = TIGERS_TURN if turn == GOATS_TURN else GOATS_TURN
    for i in range(n):
        if board[i] != piece:
            continue
        for d in range(8):
            j = nbr[i, d]
            if j < 0:
                continue
            if board[j] == EMPTY:
                na, nb = a, b ^ (one << i | one << j)
                if piece == TIGER:
                    na, nb = a ^ (one << i | one << j), b
                if canon == 2:
                    out[count] = _word(tid, n, na, nb, other, p, k)
                elif canon:
                    out[count] = _encode_canonical(ctx, na, nb, other, p, k)
                else:
                    board[i] = EMPTY
                    board[j] = piece
                    out[count] = _encode(ctx, board, other, p, k)
                    board[j] = EMPTY
                    board[i] = piece
                moves[count] = n + i * n + j
                count += 1
            elif piece == TIGER and board[j] == GOAT:
                m = beyond[i, d]
                if m >= 0 and board[m] == EMPTY:
                    na, nb = a ^ (one << i | one << m), b ^ one << j
                    if canon == 2:
                        out[count] = _word(tid, n, na, nb, GOATS_TURN, p, k + 1)
                    elif canon:
                        out[count] = _encode_canonical(ctx, na, nb, GOATS_TURN, p, k + 1)
                    else:
                        board[i] = EMPTY
                        board[j] = EMPTY
                        board[m] = TIGER
                        out[count] = _encode(ctx, board, GOATS_TURN, p, k + 1)
                        board[m] = EMPTY
                        board[j] = GOAT
                        board[i] = TIGER
                    moves[count] = n + i * n + m
                    count += 1
    if expand and count == 0:
        return -LOSE
    return _indices(ctx, out, count) if canon == 2 else count


@njit(cache=True, nogil=True)
def _has_tier(ctx, p, k, turn):
    tid = ctx[10]
    return 0 <= p < tid.shape[0] and 0 <= k < tid.shape[1] and tid[p, k, turn] >= 0


@njit(cache=True, nogil=True, inline="always")
def _parent(ctx, board, a, b, turn, p, k, out, count, canon):
    """Put the parent (tigers a, goats b, shown on `board`) at out[count] as `_children`
    does its children; returns count + 1."""
    if canon == 2:
        out[count] = _word(ctx[10], board.shape[0], a, b, turn, p, k)
    elif canon:
        out[count] = _encode_canonical(ctx, a, b, turn, p, k)
    else:
        out[count] = _encode(ctx, board, turn, p, k)
    return count + 1


@forms("parents", canonical=True, indexed=True)
@njit(cache=True, nogil=True, inline="always")
def _parents(ctx, h, out, scratch, canon):
    """Every position (valid hash) with h among its children, each once: un-place a goat,
    un-slide a goat or a tiger, or un-jump a tiger (putting the captured goat back)."""
    nbr, beyond, params = ctx[2], ctx[3], ctx[4]
    n = params[P_CELLS]
    board = scratch[:n]
    turn, p, k = _decode_as(ctx, h, board, canon)
    a, b = _board_masks(board, n) if canon else (np.int64(0), np.int64(0))
    one = np.int64(1)
    count = 0
    if turn == TIGERS_TURN:  # the goats moved last
        if p >= 1 and _has_tier(ctx, p - 1, k, GOATS_TURN) and k < params[P_CAPTURES]:
            for i in range(n):  # un-place a goat
                if board[i] == GOAT:
                    board[i] = EMPTY
                    count = _parent(ctx, board, a, b ^ one << i, GOATS_TURN, p - 1, k, out,
                                    count, canon)
                    board[i] = GOAT
        if p == params[P_GOATS]:  # un-slide a goat
            for j in range(n):
                if board[j] != GOAT:
                    continue
                for d in range(8):
                    i = nbr[j, d]
                    if i >= 0 and board[i] == EMPTY:
                        board[j] = EMPTY
                        board[i] = GOAT
                        count = _parent(ctx, board, a, b ^ (one << i | one << j), GOATS_TURN,
                                        p, k, out, count, canon)
                        board[i] = EMPTY
                        board[j] = GOAT
        return _indices(ctx, out, count) if canon == 2 else count
    # the tigers moved last
    slide = _has_tier(ctx, p, k, TIGERS_TURN)
    jump = k >= 1 and _has_tier(ctx, p, k - 1, TIGERS_TURN)
    for j in range(n):
        if board[j] != TIGER:
            continue
        for d in range(8):
            m = nbr[j, d]
            if m < 0 or board[m] != EMPTY:
                continue
            if slide:
                board[j] = EMPTY
                board[m] = TIGER
                count = _parent(ctx, board, a ^ (one << j | one << m), b, TIGERS_TURN, p, k,
                                out, count, canon)
                board[m] = EMPTY
                board[j] = TIGER
            i = beyond[j, d]
            if jump and i >= 0 and board[i] == EMPTY:
                board[j] = EMPTY
                board[m] = GOAT
                board[i] = TIGER
                count = _parent(ctx, board, a ^ (one << j | one << i), b | one << m,
                                TIGERS_TURN, p, k - 1, out, count, canon)
                board[i] = EMPTY
                board[m] = EMPTY
                board[j] = TIGER
    return _indices(ctx, out, count) if canon == 2 else count


@njit(cache=True, nogil=True, inline="always")
def position_masks(ctx, h):
    """(the hash of h's tier and side block, that tier's combination offset in the generic
    hash, the tiger mask, the goat mask) of hash h (bit i: point i)."""
    hnb, gcombo, toff, tp, tk, tturn, tarr = ctx[0], ctx[1], ctx[5], ctx[6], ctx[7], ctx[8], \
        ctx[9]
    t = np.searchsorted(toff, h, side="right") - 1
    base = toff[t]
    r = h - base
    if tturn[t] == BOTH:
        turn = r // tarr[t]
        r -= turn * tarr[t]
        base += turn * tarr[t]
    coff = hnb[5][gcombo[tp[t] - tk[t]]]
    _turn, a, b = unrank_masks(hnb, coff + r)
    return base, coff, a, b


@njit(cache=True, nogil=True)
def canonical(ctx, h, scratch):
    """The smallest hash among h's images under the board's symmetries (solver/kernels/symmetry.py).
    A symmetry keeps the tier and the side: it moves the tigers' and the goats' points
    only. Inside a block, boards rank by the tiger mask, then the goat mask (colex ranks:
    masks of one size order as numbers), so the image of smallest (tigers, goats) masks is
    the image of smallest hash."""
    base, coff, a, b = position_masks(ctx, h)
    params = ctx[4]
    ca, cb = canonical_masks_in(params[P_SWAPS:], params[P_GROUP], a, b)
    if ca == a and cb == b:
        return h
    return base + rank_masks(ctx[0], ca, cb, 0) - coff


@njit(cache=True, nogil=True, inline="always")
def canonical_index(ctx, h):
    """The index of canonical h among the canonical positions (hashing/orbits.py): its
    tier's first index, the turn's block, the tiger set's place among the least tiger
    sets, then the goats' rank among the points left. ctx[11] holds, one array: the
    tiger sets' count C and the least ones' L, then each set's place (-1: not least), the
    least ones' colex ranks, and each tier's first index."""
    toff, tturn, tarr, num = ctx[5], ctx[8], ctx[9], ctx[11]
    c, least = num[0], num[1]
    t = np.searchsorted(toff, h, side="right") - 1
    r = h - toff[t]
    block = 0
    if tturn[t] == BOTH:
        block = r // tarr[t]
        r -= block * tarr[t]
    rad = tarr[t] // c
    q = r // rad
    return num[2 + c + least + t] + (block * least + num[2 + q]) * rad + r - q * rad


@njit(cache=True, nogil=True, inline="always")
def canonical_slot(ctx, i):
    """The hash at index i (`canonical_index`)."""
    toff, tarr, num = ctx[5], ctx[9], ctx[11]
    c, least = num[0], num[1]
    istart = num[2 + c + least:]
    t = np.searchsorted(istart, i, side="right") - 1
    rad = tarr[t] // c
    local = i - istart[t]
    block = local // (least * rad)
    local -= block * least * rad
    q = local // rad
    return toff[t] + block * tarr[t] + num[2 + c + q] * rad + local - q * rad


@njit(cache=True, nogil=True)
def orbit(ctx, h, scratch):
    """How many distinct images h has under the board's symmetries."""
    _base, _coff, a, b = position_masks(ctx, h)
    params = ctx[4]
    return orbit_masks_in(params[P_SWAPS:], params[P_GROUP], a, b)


@njit(cache=True, nogil=True)
def orbit_sizes_indexed(ctx, first, value, out, scratch):
    """out[j]: the orbit of the position at index first + j, 0 where value[j] is 0. The
    numbering runs one tiger set at a time, and a board's symmetries fix its tiger set: a
    tiger set that no symmetry fixes gives every board of its run the whole group, unseen."""
    tarr, num, params = ctx[9], ctx[11], ctx[4]
    c, least = num[0], num[1]
    istart = num[2 + c + least:]
    sym, group = params[P_SWAPS:], params[P_GROUP]
    whole = popcount(group)
    n = value.shape[0]
    j = 0
    while j < n:
        i = first + j
        t = np.searchsorted(istart, i, side="right") - 1
        rad = tarr[t] // c
        stop = min(n, j + rad - (i - istart[t]) % rad)  # the end of this tiger set's run
        _base, _coff, a, _b = position_masks(ctx, canonical_slot(ctx, i))
        plain = orbit_masks_in(sym, group, a, np.int64(0)) == whole
        for k in range(j, stop):
            if value[k] == 0:
                out[k] = 0
            elif plain:
                out[k] = whole
            else:
                out[k] = orbit(ctx, canonical_slot(ctx, first + k), scratch)
        j = stop
    return n


def line_tables(size: int) -> tuple[np.ndarray, np.ndarray]:
    """nbr[i, d]: the point one step from i along direction d on a line, else -1;
    beyond[i, d]: the point two steps away along the same line, else -1."""
    cells = size * size
    nbr = np.full((cells, 8), -1, dtype=np.int64)
    beyond = np.full((cells, 8), -1, dtype=np.int64)
    for r in range(size):
        for c in range(size):
            for d, (dr, dc) in enumerate(DIRECTIONS):
                if dr and dc and (r + c) % 2:
                    continue  # no diagonal lines through odd points
                if 0 <= r + dr < size and 0 <= c + dc < size:
                    nbr[r * size + c, d] = (r + dr) * size + c + dc
                    if 0 <= r + 2 * dr < size and 0 <= c + 2 * dc < size:
                        beyond[r * size + c, d] = (r + 2 * dr) * size + c + 2 * dc
    return nbr, beyond


def board_symmetries(size: int) -> int:
    """The symmetries of the square that map the board's lines to lines, as a bit set over
    games.common.mask_symmetry_cells(size) (bit s: symmetry s; they form a group). All 8
    on odd sizes, where every corner is even; on 4x4 the 4 that keep (row + column)'s
    parity: the identity, the half turn and the two diagonal reflections (a quarter turn
    or a mirror in a middle line swaps even and odd points, so diagonal lines with points
    that have none)."""
    nbr, _beyond = line_tables(size)
    lines = {frozenset((i, int(j))) for i in range(size * size) for j in nbr[i] if j >= 0}
    group = 0
    for s, where in enumerate(mask_symmetry_cells(size)):
        if {frozenset(int(where[i]) for i in line) for line in lines} == lines:
            group |= 1 << s
    return group


def tiger_corners(size: int, tigers: int) -> list[int]:
    last = size - 1
    corners = [(0, 0), (last, last), (0, last), (last, 0)]
    return [r * size + c for r, c in corners[:tigers]]


@register
class BaghChal(Game):
    name = "baghchal"
    title = "Bagh-Chal (tigers and goats)"
    loopy = True
    variants = {
        "size": Variant(DEFAULT_SIZE, 3, 5, "board size n (n x n points)"),
        "tigers": Variant(SIZE_DEFAULTS[DEFAULT_SIZE]["tigers"], 1, 4,
                          "tigers, on the corners (default 1 / 2 / 4 for size 3 / 4 / 5)"),
        "goats": Variant(SIZE_DEFAULTS[DEFAULT_SIZE]["goats"], 1, 24,
                         "goats in hand at the start, at most size*size - tigers "
                         "(default 6 / 8 / 20 for size 3 / 4 / 5)"),
        "captures": Variant(SIZE_DEFAULTS[DEFAULT_SIZE]["captures"], 1, 24,
                            "goats the tigers must capture to win, at most goats "
                            "(default 2 / 3 / 5 for size 3 / 4 / 5)"),
    }

    @classmethod
    def check_variant(cls, given: dict[str, int]) -> dict[str, int]:
        for key in given:
            if key not in cls.variants:
                raise VariantError(
                    f"{cls.name} has no variant key '{key}' (keys: {', '.join(cls.variants)})")
        size = given.get("size", DEFAULT_SIZE)
        out = {}
        for key, spec in cls.variants.items():
            val = given.get(key, SIZE_DEFAULTS.get(size, {}).get(key, spec.default))
            if not isinstance(val, int) or not spec.lo <= val <= spec.hi:
                raise VariantError(
                    f"{cls.name} variant {key}={val} is out of range {spec.lo}..{spec.hi}")
            out[key] = val
        if out["goats"] > size * size - out["tigers"]:
            raise VariantError(
                f"{cls.name} variant goats={out['goats']}: at most size*size - tigers = "
                f"{size * size - out['tigers']} goats fit on the {size}x{size} board")
        if out["captures"] > out["goats"]:
            raise VariantError(
                f"{cls.name} variant captures={out['captures']}: at most goats="
                f"{out['goats']}")
        return out

    def __init__(self, **variant):
        super().__init__(**variant)
        v = self.variant
        self.size = n = v["size"]
        self.cells = cells = n * n
        self.ntigers, self.ngoats, self.ncaptures = v["tigers"], v["goats"], v["captures"]
        T, G, C = self.ntigers, self.ngoats, self.ncaptures
        self.hash = HashContext(cells, [(T, T), (0, G), (0, cells)])
        gcombo = np.array([self.hash.combo_id((T, g, cells - T - g)) for g in range(G + 1)],
                          dtype=np.int64)  # the combination of g goats on the board
        nbr, beyond = line_tables(n)
        self.symmetries = board_symmetries(n)
        swaps = mask_symmetries(n, tables=False)
        params = np.concatenate([np.array([cells, T, G, C, self.symmetries], dtype=np.int64),
                                 swaps])

        # tiers: (placed, captured, side) in order of placed, captured, goats first
        self.tier_keys: list[tuple[int, int, int]] = []
        for p in range(G + 1):
            for k in range(min(p, C) + 1):
                if p < G:
                    self.tier_keys.append((p, k, GOATS_TURN))
                    if k < min(p, C):
                        self.tier_keys.append((p, k, TIGERS_TURN))
                else:
                    self.tier_keys.append((p, k, BOTH if k < C else GOATS_TURN))
        nt = len(self.tier_keys)
        toff = np.zeros(nt + 1, dtype=np.int64)
        tarr = np.zeros(nt, dtype=np.int64)
        tid = np.full((G + 1, C + 1, 2), -1, dtype=np.int64)
        for t, (p, k, side) in enumerate(self.tier_keys):
            g = p - k
            tarr[t] = math.comb(cells, T) * math.comb(cells - T, g)
            toff[t + 1] = toff[t] + tarr[t] * (2 if side == BOTH else 1)
            for s in ((GOATS_TURN, TIGERS_TURN) if side == BOTH else (side,)):
                tid[p, k, s] = t
        keys = np.array(self.tier_keys, dtype=np.int64).reshape(nt, 3)
        self.tier_offsets = toff
        self.ctx = (self.hash.nb, gcombo, nbr, beyond, params, toff,
                    keys[:, 0].copy(), keys[:, 1].copy(), keys[:, 2].copy(), tarr, tid,
                    self._numbering(tarr))
        self.hash_size = int(toff[-1])
        on_board = min(G, cells - T)
        self.max_children = max(cells, 8 * max(T, on_board))
        self.max_parents = max(9 * on_board, 16 * T)
        self.scratch_size = cells
        self.max_remoteness = 4095
        board = np.full(cells, EMPTY, dtype=np.int8)
        board[tiger_corners(n, T)] = TIGER
        self.start = int(_encode(self.ctx, board, GOATS_TURN, 0, 0))

    def _numbering(self, tarr: np.ndarray) -> np.ndarray:
        """`canonical_index`'s table: the tiger sets that are least of their images under
        the board's symmetries (size 5: 1,651 of 12,650), then each tier's first index."""
        group = [s for s in range(8) if self.symmetries >> s & 1]
        index, rank = least_sets(mask_symmetry_cells(self.size)[group], self.ntigers)
        istart = np.zeros(len(self.tier_keys) + 1, dtype=np.int64)
        for t, (_p, _k, side) in enumerate(self.tier_keys):
            istart[t + 1] = istart[t] + (tarr[t] // index.size * rank.size
                                         * (2 if side == BOTH else 1))
        self.canonical_size = int(istart[-1])
        return np.concatenate([[index.size, rank.size], index, rank, istart]).astype(np.int64)

    # -- tiers ----------------------------------------------------------------------
    def tiers(self) -> list[Tier]:
        index = {key: t for t, key in enumerate(self.tier_keys)}
        G, C = self.ngoats, self.ncaptures

        def tier_of(p, k, side):
            if p == G and k < C:
                side = BOTH
            return index[(p, k, side)]

        out = []
        for t, (p, k, side) in enumerate(self.tier_keys):
            kids: list[int] = []
            if side == GOATS_TURN and k < C:  # a placement
                kids.append(tier_of(p + 1, k, TIGERS_TURN))
            elif side == TIGERS_TURN:  # slide, or capture
                kids.append(tier_of(p, k, GOATS_TURN))
                kids.append(tier_of(p, k + 1, GOATS_TURN))
            elif side == BOTH:  # sliding phase: stay, or capture
                kids.append(t)
                kids.append(tier_of(p, k + 1, GOATS_TURN))
            word = {GOATS_TURN: "goats", TIGERS_TURN: "tigers", BOTH: "both"}[side]
            out.append(Tier(f"placed={p} captured={k} {word}", int(self.tier_offsets[t]),
                            int(self.tier_offsets[t + 1]), tuple(kids)))
        return out

    # -- positions ------------------------------------------------------------------
    def decode(self, h: int) -> tuple[list[str], str, int, int]:
        """(cells, side to move 'g'/'t', goats in hand, goats captured) of hash h."""
        if not 0 <= h < self.hash_size:
            raise PositionError(f"baghchal hash {h} is out of range 0..{self.hash_size - 1}")
        board = np.empty(self.cells, dtype=np.int8)
        turn, p, k = _decode(self.ctx, h, board)
        return [CHARS[x] for x in board], SIDES[turn], self.ngoats - int(p), int(k)

    def to_string(self, h: int) -> str:
        cells, side, hand, captured = self.decode(h)
        return f"{board_to_rows(cells, self.size)} {side} {hand} {captured}"

    def from_string(self, s: str) -> int:
        text = s.strip()
        parts = text.split()
        if len(parts) != 4:
            raise PositionError(
                f"baghchal position '{s}' should be 'BOARD SIDE IN_HAND CAPTURED', "
                f"e.g. '{self.to_string(self.start)}'")
        board_text, side, hand_text, cap_text = parts
        cells = parse_board(board_text, [self.size] * self.size, CHARS, self.name)
        if side not in SIDES:
            raise PositionError(
                f"baghchal position '{s}': side to move must be 'g' or 't', not '{side}'")
        try:
            hand, captured = int(hand_text), int(cap_text)
        except ValueError:
            raise PositionError(
                f"baghchal position '{s}': goats in hand and captured must be integers"
            ) from None
        G, C, T = self.ngoats, self.ncaptures, self.ntigers
        if cells.count("T") != T:
            raise PositionError(
                f"baghchal position '{s}' cannot occur: it needs {T} tigers, "
                f"not {cells.count('T')}")
        if not 0 <= hand <= G:
            raise PositionError(
                f"baghchal position '{s}': goats in hand must be 0..{G}, not {hand}")
        if not 0 <= captured <= C:
            raise PositionError(
                f"baghchal position '{s}' cannot occur: goats captured must be 0..{C} "
                f"(the game ends at {C}), not {captured}")
        p = G - hand
        goats = cells.count("G")
        if goats != p - captured:
            raise PositionError(
                f"baghchal position '{s}' cannot occur: {p} goats placed and {captured} "
                f"captured leave {p - captured} on the board, not {goats}")
        turn = SIDES.index(side)
        if turn == TIGERS_TURN and captured == C:
            raise PositionError(
                f"baghchal position '{s}' cannot occur: the game ended with the "
                f"{C}th capture, so the goats are to move")
        if turn == TIGERS_TURN and p < G and captured >= p:
            raise PositionError(
                f"baghchal position '{s}' cannot occur: with tigers to move in the "
                f"placement phase, tigers have moved {p - 1} times and cannot have "
                f"captured {captured}")
        board = np.array([CHARS.index(c) for c in cells], dtype=np.int8)
        return int(_encode(self.ctx, board, turn, p, captured))

    def point_name(self, i: int) -> str:
        r, c = divmod(i, self.size)
        return f"{chr(ord('a') + c)}{self.size - r}"

    def move_name(self, h: int, code: int) -> str:
        n = self.cells
        if code < n:
            return self.point_name(code)
        a, b = divmod(code - n, n)
        (ra, ca), (rb, cb) = divmod(a, self.size), divmod(b, self.size)
        sep = "x" if max(abs(ra - rb), abs(ca - cb)) == 2 else "-"
        return f"{self.point_name(a)}{sep}{self.point_name(b)}"

    def analysis_extras(self, solved) -> dict:
        word, rem = solved.lookup(self.start)
        outcome = {"win": f"the goats win in {rem} moves",
                   "lose": f"the tigers win in {rem} moves",
                   "draw": "neither side can force a win (draw)"}.get(word, word)
        return {"outcome": outcome,
                "notes": [f"goats move first; with perfect play {outcome}"]}
