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

from games.base import LOSE, WIN
from games.common import min_image
from hashing.generic import rank_masks
from hashing.jit import njit

X, O, BLANK = 0, 1, 2

# push_table layout: header slots, then MOVE_SLOTS per move (cell by cell, ends in order).
# Line masks: ROW0 the first cell of every row, COL0 of every column (the top row), and
# the two diagonals.
N, NMOVES, BORDER, ROW0, COL0, DIAG1, DIAG2 = range(7)
HEADER = 7
CODE, CELL, KEEP, SRC, USRC, LS, RS, END = range(8)  # CELL and END are bits
MOVE_SLOTS = 8


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
    head = [n, len(moves), border, sum(1 << (r * n) for r in range(n)), (1 << n) - 1,
            sum(1 << (i * n + i) for i in range(n)),
            sum(1 << (i * n + n - 1 - i) for i in range(n))]
    return np.array(head + [x for m in moves for x in m], dtype=np.int64)


@njit(cache=True, nogil=True, inline="always")
def has_line(pt, a):
    """Whether mask a fills a row, a column or a diagonal: a row's first cell survives
    n-1 shifts of one, a column's top cell n-1 shifts of n (branch-free). With n a
    constant for each board size, LLVM unrolls the shifts (Quixo 4x4's parents: 10%)."""
    n = pt[N]
    if n == 4:
        return _has_line_of(pt, a, 4)
    if n == 5:
        return _has_line_of(pt, a, 5)
    if n == 3:
        return _has_line_of(pt, a, 3)
    return _has_line_of(pt, a, n)


@njit(cache=True, nogil=True, inline="always")
def _has_line_of(pt, a, n):
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
def _legal(pt, theirs, moves):
    """The indices of the pushes open to the mover (the taken cube is not `theirs`) into
    moves[:k], branch-free; returns k. The child loops then run without a branch: a
    skipped move is a coin toss, and its mispredictions cost Quixo 4x4 a third of its
    children's time."""
    k = 0
    for j in range(pt[NMOVES]):
        moves[k] = j
        k += (theirs & pt[HEADER + j * MOVE_SLOTS + CELL]) == 0
    return k


@njit(cache=True, nogil=True, inline="always")
def board_word(nn, x, o, turn):
    """The board (X's cells x, O's o, `turn` to move; nn cells) as one word: turn, then x,
    then o, nn bits each, for a game that numbers such boards in one loop after the moves.
    (Takes no array: an inlined function that does costs reference counts at each call.)"""
    return (turn << (2 * nn)) | (x << nn) | o


@njit(cache=True, nogil=True, inline="always")
def push_children(hctx, pt, me, mine, theirs, out, moves, sym, canon):
    """Every push of `me` (cells `mine`; the opponent's `theirs`), ranked with the other
    side to move; `canon`: each child's canonical image under the symmetries `sym`
    (games.common.min_image), ranked (1) or as its `board_word` (2)."""
    k = _legal(pt, theirs, moves)
    nn = pt[N] * pt[N]
    for i in range(k):
        b = HEADER + moves[i] * MOVE_SLOTS
        keep = pt[b + KEEP]
        src = pt[b + SRC]
        ls = pt[b + LS]
        rs = pt[b + RS]
        a = (mine & keep) | (((mine & src) << ls) >> rs) | pt[b + END]
        t = (theirs & keep) | (((theirs & src) << ls) >> rs)
        x = a if me == X else t
        o = t if me == X else a
        if canon:
            x, o = min_image(sym, x, o)
        if canon == 2:
            out[i] = board_word(nn, x, o, 1 - me)
        else:
            out[i] = rank_masks(hctx, x, o, 1 - me)
        moves[i] = pt[b + CODE]
    return k


@njit(cache=True, nogil=True, inline="always")
def push_parents(hctx, pt, me, mine, theirs, out, sym, canon, same_counts):
    """Every distinct non-primitive position whose pushes lead to this one (`me` to move,
    cells `mine`; the last mover's `theirs`): the last mover's cube at an end of a line
    goes back to a border cell of that line, which held it or a blank (`same_counts`:
    only it, the parents with this position's counts). `canon`: their canonical images
    (games.common.min_image), repeats left to solver/kernels/symmetry.py's wrapper, ranked
    (1) or as `board_word`s (2)."""
    k = 0
    nn = pt[N] * pt[N]
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
            x = a if me == X else t
            o = t if me == X else a
            if canon:
                x, o = min_image(sym, x, o)
            p = board_word(nn, x, o, 1 - me) if canon == 2 else rank_masks(hctx, x, o, 1 - me)
            dup = False
            for q in range(0 if canon else k):  # canonical: the caller drops repeats
                if out[q] == p:
                    dup = True
                    break
            if not dup:
                out[k] = p
                k += 1
    return k
