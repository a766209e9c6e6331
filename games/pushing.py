"""Quixo-style cube pushing on an n x n board, shared by cambio and quixo.

A cell holds X=0, O=1 or BLANK=2 (the piece types of their generic hash, whose turn bit
0/1 is the side X/O, so a side's number is also its piece). A push takes a border cube
that is blank or the mover's, turns it to the mover's, and inserts it at one end of its
row or column (not the end it stands on); the cubes in between slide one step towards the
hole. Ends: 0 left end of the row, 1 right end, 2 top of the column, 3 bottom. A move code
is cell * 4 + end, cells in reading order; moves come cell by cell, ends in that order.

The kernels work on bitboards: one int64 mask per side (bit i: cell i in reading order).
A push only changes the segment from the end cell to the taken cell, so with masks
precomputed per variant (`push_table`) it is O(1): new = (b & keep) | step(b & src) |
end bit for the mover; an un-push steps the segment back the other way. Lines are mask
compares, and positions are ranked from the masks (`hashing.generic.rank_masks`).
Everything here inlines into the game's functions: a jitted call costs ~10 ns for every
array its arguments hold (reference counts), the generic hash's context alone holds six.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from games.base import LOSE, WIN
from games.common import board_images, mask_symmetries
from hashing.generic import rank_masks

X, O, BLANK = 0, 1, 2

# push_table layout: header slots, then MOVE_SLOTS per move (cell by cell, ends in order),
# then (at IMAGES) IMAGE_SLOTS per move and symmetry. Line masks: ROW0 the first cell of
# every row, COL0 of every column (the top row), and the two diagonals.
N, NMOVES, BORDER, ROW0, COL0, DIAG1, DIAG2, IMAGES = range(8)
HEADER = 8
CODE, CELL, KEEP, SRC, USRC, LS, RS, END = range(8)  # CELL and END are bits
MOVE_SLOTS = 8
# the image of a move under symmetry s, on a board word X << n*n | O (games.common):
# keep, src and usrc in both lanes, the shifts, the end and the taken cell's bits in X's
# lane and in O's
WKEEP, WSRC, WUSRC, WLS, WRS, WENDX, WENDO, WCELLX, WCELLO = range(9)
IMAGE_SLOTS = 9


def push_table(n: int) -> np.ndarray:
    """The masks of every push of an n x n board, and of its lines (n in a row).

    A push of cell i at end e changes the segment S from e to i: `src` = S less i steps
    one cell towards i (the mover's cube lands on e); an un-push steps `usrc` = S less e
    one cell towards e and puts the taken cube back on i. The step is a left shift by LS
    then a right shift by RS (one of them 0: +-1 along a row, +-n along a column)."""
    moves = []
    for i in range(n * n):
        r, c = divmod(i, n)
        if not (r in (0, n - 1) or c in (0, n - 1)):
            continue
        for d, ok in enumerate((c != 0, c != n - 1, r != 0, r != n - 1)):
            if not ok:
                continue
            if d < 2:
                end = r * n + (0 if d == 0 else n - 1)
                seg = range(min(end, i), max(end, i) + 1)
                step = 1
            else:
                end = (0 if d == 2 else n - 1) * n + c
                seg = range(min(end, i), max(end, i) + 1, n)
                step = n
            smask = sum(1 << j for j in seg)
            keep = ((1 << (n * n)) - 1) & ~smask
            src = smask & ~(1 << i)
            usrc = smask & ~(1 << end)
            ls, rs = (step, 0) if end < i else (0, step)  # push: towards i
            moves.append([i * 4 + d, 1 << i, keep, src, usrc, ls, rs, 1 << end])
    border = sum(1 << (r * n + c) for r in range(n) for c in range(n)
                 if r in (0, n - 1) or c in (0, n - 1))
    images = HEADER + len(moves) * MOVE_SLOTS
    head = [n, len(moves), border, sum(1 << (r * n) for r in range(n)), (1 << n) - 1,
            sum(1 << (i * n + i) for i in range(n)),
            sum(1 << (i * n + n - 1 - i) for i in range(n)), images]
    return np.array(head + [x for m in moves for x in m] + _image_moves(n, moves),
                    dtype=np.int64)


def _image_moves(n: int, moves: list[list[int]]) -> list[int]:
    """Per move and symmetry (in games.common.board_images' order), the masks of the move that
    the symmetry maps it to, to push or un-push on that image of the board: a symmetry
    maps the taken cell and the end cell to those of a move (`push_children_canonical`,
    `push_parents`)."""
    nn = n * n
    if 2 * nn > 63:
        return []
    sym = mask_symmetries(n)
    where = np.array([[int(w).bit_length() - 1 for w in board_images(sym, 0, 1 << i)]
                      for i in range(nn)])  # where[i, s]: the cell i goes to under s
    by_cells = {(m[CELL], m[END]): m for m in moves}
    both = (1 << nn) + 1
    out = []
    for m in moves:
        cell, end = m[CELL].bit_length() - 1, m[END].bit_length() - 1
        for s in range(8):
            im = by_cells[(1 << where[cell, s], 1 << where[end, s])]
            out += [im[KEEP] * both, im[SRC] * both, im[USRC] * both, im[LS], im[RS],
                    im[END] << nn, im[END], im[CELL] << nn, im[CELL]]
    return out


@njit(cache=True, nogil=True, inline="always")
def has_line(pt, a):
    """Whether mask a fills a row, a column or a diagonal: a row's first cell survives
    n-1 shifts of one, a column's top cell n-1 shifts of n (branch-free)."""
    n = pt[N]
    rows = a
    cols = a
    for k in range(1, n):
        rows &= a >> k
        cols &= a >> (k * n)
    d1 = pt[DIAG1]
    d2 = pt[DIAG2]
    return (((rows & pt[ROW0]) | (cols & pt[COL0])) != 0) | ((a & d1) == d1) | ((a & d2) == d2)


@njit(cache=True, nogil=True)
def push_primitive(pt, mine, theirs):
    """For the player to move (cells `mine`, the opponent's `theirs`): WIN with a line of
    their own (the pusher made it, maybe with one of theirs: a double line loses for the
    pusher), else LOSE facing one, else LOSE without a push (only possible facing a line:
    a safeguard), else 0. A call, not inlined: inlined, its early returns made LLVM
    compile the children loop beside it much worse."""
    if has_line(pt, mine):
        return WIN
    if has_line(pt, theirs):
        return LOSE
    if pt[BORDER] & ~theirs == 0:
        return LOSE
    return 0


@njit(cache=True, nogil=True, inline="always")
def push_children(hctx, pt, me, mine, theirs, out, moves):
    """Every push of `me` (cells `mine`; the opponent's `theirs`), ranked with the other
    side to move (`push_children_canonical`: their canonical images)."""
    k = 0
    for j in range(pt[NMOVES]):
        b = HEADER + j * MOVE_SLOTS
        if theirs & pt[b + CELL]:
            continue
        keep = pt[b + KEEP]
        src = pt[b + SRC]
        ls = pt[b + LS]
        rs = pt[b + RS]
        a = (mine & keep) | (((mine & src) << ls) >> rs) | pt[b + END]
        t = (theirs & keep) | (((theirs & src) << ls) >> rs)
        if me == X:  # two inlined ranks measured faster here than one of selected masks
            out[k] = rank_masks(hctx, a, t, 1)
        else:
            out[k] = rank_masks(hctx, t, a, 0)
        moves[k] = pt[b + CODE]
        k += 1
    return k


@njit(cache=True, nogil=True, inline="always")
def _push_word(pt, k, w, end):
    return (w & pt[k + WKEEP]) | (((w & pt[k + WSRC]) << pt[k + WLS]) >> pt[k + WRS]) | pt[k + end]


@njit(cache=True, nogil=True, inline="always")
def _unpush(pt, q, s, w, back, put):
    """Image s's un-push (`back`: the taken cube goes back) on the board's image w."""
    k = q + s * IMAGE_SLOTS
    return ((w & pt[k + WKEEP]) | (((w & pt[k + WUSRC]) << pt[k + WRS]) >> pt[k + WLS])
            | (pt[k + put] & -back))


@njit(cache=True, nogil=True, inline="always")
def push_children_canonical(hctx, pt, me, mine, theirs, out, moves, sym):
    """`push_children`, each child's canonical image (under the symmetries `sym`,
    games.common.mask_symmetries) from its images pushed from the board's images
    (a symmetry maps a push to a push, `_image_moves`): the board's 8 images are computed
    once, not once per child (Quixo 4x4: 1.22 -> 0.90 us a position)."""
    nn = pt[N] * pt[N]
    i0, i1, i2, i3, i4, i5, i6, i7 = board_images(sym, mine if me == X else theirs,
                                             theirs if me == X else mine)
    end = WENDX if me == X else WENDO
    low = (np.int64(1) << nn) - 1
    k = 0
    for j in range(pt[NMOVES]):
        b = HEADER + j * MOVE_SLOTS
        if theirs & pt[b + CELL]:
            continue
        q = pt[IMAGES] + j * 8 * IMAGE_SLOTS
        best = min(min(min(_push_word(pt, q, i0, end),
                           _push_word(pt, q + IMAGE_SLOTS, i1, end)),
                       min(_push_word(pt, q + 2 * IMAGE_SLOTS, i2, end),
                           _push_word(pt, q + 3 * IMAGE_SLOTS, i3, end))),
                   min(min(_push_word(pt, q + 4 * IMAGE_SLOTS, i4, end),
                           _push_word(pt, q + 5 * IMAGE_SLOTS, i5, end)),
                       min(_push_word(pt, q + 6 * IMAGE_SLOTS, i6, end),
                           _push_word(pt, q + 7 * IMAGE_SLOTS, i7, end))))
        out[k] = rank_masks(hctx, best >> nn, best & low, 1 - me)
        moves[k] = pt[b + CODE]
        k += 1
    return k


@njit(cache=True, nogil=True, inline="always")
def _images_if(canon, sym, a, b):
    """The 8 images of the board (a, b) (games.common.board_images) when `canon`: plain
    parents skip the call."""
    if canon:
        return board_images(sym, a, b)
    z = np.int64(0)
    return (z, z, z, z, z, z, z, z)


@njit(cache=True, nogil=True, inline="always")
def push_parents(hctx, pt, me, mine, theirs, out, sym, canon, same_counts):
    """Every distinct non-primitive position whose pushes lead to this one (`me` to move,
    cells `mine`; the last mover's `theirs`): the last mover's cube at an end of a line
    goes back to a border cell of that line, which held it or a blank (`same_counts`:
    only it, the parents with this position's counts). `canon`: their canonical images
    (each un-pushed from the board's images, as `push_children_canonical`), repeats left
    to solver/symmetry.py's wrapper."""
    nn = pt[N] * pt[N]
    low = (np.int64(1) << nn) - 1
    i0, i1, i2, i3, i4, i5, i6, i7 = _images_if(canon, sym, mine if me == X else theirs,
                                                theirs if me == X else mine)
    put = WCELLO if me == X else WCELLX  # the taken cube back, the last mover's
    k = 0
    for j in range(pt[NMOVES]):
        b = HEADER + j * MOVE_SLOTS
        if not theirs & pt[b + END]:
            continue
        keep = pt[b + KEEP]
        usrc = pt[b + USRC]
        ls = pt[b + LS]
        rs = pt[b + RS]
        a = (mine & keep) | (((mine & usrc) << rs) >> ls)
        if has_line(pt, a):  # primitive whatever cell i held
            continue
        t0 = (theirs & keep) | (((theirs & usrc) << rs) >> ls)
        for w in range(1 if same_counts else 2):
            t = t0 | pt[b + CELL] if w == 0 else t0
            if has_line(pt, t):
                continue
            if canon:
                q = pt[IMAGES] + j * 8 * IMAGE_SLOTS
                back = np.int64(w == 0)
                best = min(min(min(_unpush(pt, q, 0, i0, back, put),
                                   _unpush(pt, q, 1, i1, back, put)),
                               min(_unpush(pt, q, 2, i2, back, put),
                                   _unpush(pt, q, 3, i3, back, put))),
                           min(min(_unpush(pt, q, 4, i4, back, put),
                                   _unpush(pt, q, 5, i5, back, put)),
                               min(_unpush(pt, q, 6, i6, back, put),
                                   _unpush(pt, q, 7, i7, back, put))))
                p = rank_masks(hctx, best >> nn, best & low, 1 - me)
            else:
                p = rank_masks(hctx, a if me == X else t, t if me == X else a, 1 - me)
            dup = False
            for q in range(0 if canon else k):  # canonical: the caller drops repeats
                if out[q] == p:
                    dup = True
                    break
            if not dup:
                out[k] = p
                k += 1
    return k
