"""Quixo-style cube pushing on an n x n board, shared by cambio and quixo.

A cell holds X=0, O=1 or BLANK=2 (the piece types of their generic hash, whose turn bit
0/1 is the side X/O, so a side's number is also its piece). A push takes a border cube
that is blank or the mover's, turns it to the mover's, and inserts it at one end of its
row or column (not the end it stands on); the cubes in between slide one step towards the
hole. Ends: 0 left end of the row, 1 right end, 2 top of the column, 3 bottom. A move code
is cell * 4 + end, cells in reading order; moves come cell by cell, ends in that order.
"""

from __future__ import annotations

from numba import njit

from games.base import LOSE, WIN
from games.common import has_line
from hashing.generic import rank

X, O, BLANK = 0, 1, 2


@njit(cache=True, nogil=True, inline="always")
def _can_enter(n, r, c, d):
    """Whether the cube at (r, c) is on the border and may be inserted at end d."""
    if not (r == 0 or r == n - 1 or c == 0 or c == n - 1):
        return False
    if d == 0:
        return c != 0
    if d == 1:
        return c != n - 1
    if d == 2:
        return r != 0
    return r != n - 1


@njit(cache=True, nogil=True)
def push(board, work, n, i, d, piece):
    """work = board after cell i's cube, turned to `piece`, goes in at end d."""
    r = i // n
    c = i % n
    for j in range(n * n):
        work[j] = board[j]
    if d == 0:  # cells left of c slide right
        for cc in range(c, 0, -1):
            work[r * n + cc] = board[r * n + cc - 1]
        work[r * n] = piece
    elif d == 1:  # cells right of c slide left
        for cc in range(c, n - 1):
            work[r * n + cc] = board[r * n + cc + 1]
        work[r * n + n - 1] = piece
    elif d == 2:  # cells above r slide down
        for rr in range(r, 0, -1):
            work[rr * n + c] = board[(rr - 1) * n + c]
        work[c] = piece
    else:  # cells below r slide up
        for rr in range(r, n - 1):
            work[rr * n + c] = board[(rr + 1) * n + c]
        work[(n - 1) * n + c] = piece


@njit(cache=True, nogil=True)
def unpush(board, work, n, i, d, was):
    """work = the board before push(., ., n, i, d, .) made `board`; cell i held `was`."""
    r = i // n
    c = i % n
    for j in range(n * n):
        work[j] = board[j]
    if d == 0:
        for cc in range(0, c):
            work[r * n + cc] = board[r * n + cc + 1]
    elif d == 1:
        for cc in range(n - 1, c, -1):
            work[r * n + cc] = board[r * n + cc - 1]
    elif d == 2:
        for rr in range(0, r):
            work[rr * n + c] = board[(rr + 1) * n + c]
    else:
        for rr in range(n - 1, r, -1):
            work[rr * n + c] = board[(rr - 1) * n + c]
    work[i] = was


@njit(cache=True, nogil=True, inline="always")
def _end_cell(n, i, d):
    r = i // n
    c = i % n
    if d == 0:
        return r * n
    if d == 1:
        return r * n + n - 1
    if d == 2:
        return c
    return (n - 1) * n + c


@njit(cache=True, nogil=True)
def can_push(board, n, piece):
    for i in range(n * n):
        r = i // n
        c = i % n
        if (r == 0 or r == n - 1 or c == 0 or c == n - 1) and (
                board[i] == BLANK or board[i] == piece):
            return True
    return False


@njit(cache=True, nogil=True)
def push_primitive(board, lines, n, me):
    """For the player to move: WIN with a line of their own (the pusher made it, maybe
    with one of theirs: a double line loses for the pusher), else LOSE facing one, else
    LOSE without a push (only possible facing a line: a safeguard)."""
    if has_line(board, lines, me):
        return WIN
    if has_line(board, lines, 1 - me):
        return LOSE
    if not can_push(board, n, me):
        return LOSE
    return 0


@njit(cache=True, nogil=True)
def _any_line(board, lines):
    """Whether either side fills a line (has_line for X and for O, in one pass)."""
    for i in range(lines.shape[0]):
        p = board[lines[i, 0]]
        if p == BLANK:
            continue
        full = True
        for j in range(1, lines.shape[1]):
            if board[lines[i, j]] != p:
                full = False
                break
        if full:
            return True
    return False


@njit(cache=True, nogil=True)
def push_children(hctx, n, board, work, me, out, moves):
    """Every push of `me` on `board`, ranked with the other side to move."""
    k = 0
    for i in range(n * n):
        if board[i] != BLANK and board[i] != me:
            continue
        for d in range(4):
            if not _can_enter(n, i // n, i % n, d):
                continue
            push(board, work, n, i, d, me)
            out[k] = rank(hctx, work, 1 - me)
            moves[k] = i * 4 + d
            k += 1
    return k


@njit(cache=True, nogil=True)
def push_parents(hctx, lines, n, board, work, me, out):
    """Every distinct non-primitive position whose pushes lead to `board` (`me` to move):
    the pusher's cube at an end of a line goes back to a border cell of that line, which
    held it or a blank."""
    prev = 1 - me
    k = 0
    for i in range(n * n):
        for d in range(4):
            if not _can_enter(n, i // n, i % n, d) or board[_end_cell(n, i, d)] != prev:
                continue
            for w in range(2):
                unpush(board, work, n, i, d, prev if w == 0 else BLANK)
                if _any_line(work, lines):
                    continue
                p = rank(hctx, work, prev)
                dup = False
                for j in range(k):
                    if out[j] == p:
                        dup = True
                        break
                if not dup:
                    out[k] = p
                    k += 1
    return k
