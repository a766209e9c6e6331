"""Chess moves on a small board (for quickchess): attacks, legal moves and legal un-moves.

A board is an int8 array of width x height squares, square = row * width + col with row 0
the top rank (the position string's first row). Piece codes: EMPTY 0, white K Q R B N P =
1..6, black = 7..12 (white + 6). White pawns move up (towards row 0), black pawns down;
both stand only on rows 1..height-2 (a pawn reaching the far row promotes). There is no
castling, no double step and so no en passant. A king is never captured: positions where
the side not to move is in check are illegal, and no legal move produces one.

The geometry tuple `geo` (built once by :func:`geometry`) holds, per square, the squares
along each of the 8 directions (0-3 orthogonal, 4-7 diagonal), the knight and king
targets (-1 padded), params = (width, height, squares), and line[a, b], the direction
from a to b when they share a line (else -1).

Move codes: (from * squares + to) * 5 + promo, promo 0 for none or 1..4 for Q R B N.
Un-move codes (the move that led to a position, seen from after it): the piece of the side
that just moved stands on `d`, came from `s`; `x` is the kind (Q..P = 2..6, 0 none) of the
opponent's piece it captured on d; `u` = 1 when it was a pawn that promoted on d:
((d * squares + s) * 7 + x) * 2 + u.
"""

from __future__ import annotations

import numpy as np

from hashing.jit import njit

EMPTY, KING, QUEEN, ROOK, BISHOP, KNIGHT, PAWN = range(7)
BLACK = 6  # black piece code = white code + BLACK
PROMOS = (QUEEN, ROOK, BISHOP, KNIGHT)  # promo 1..4
DIRS = ((-1, 0), (0, 1), (1, 0), (0, -1), (-1, 1), (1, 1), (1, -1), (-1, -1))
KNIGHT_STEPS = ((-2, -1), (-2, 1), (-1, 2), (1, 2), (2, 1), (2, -1), (1, -2), (-1, -2))


def geometry(width: int, height: int) -> tuple:
    n = width * height
    rays = np.full((n, 8, max(width, height)), -1, np.int64)
    ray_len = np.zeros((n, 8), np.int64)
    knight = np.full((n, 8), -1, np.int64)
    king = np.full((n, 8), -1, np.int64)
    for s in range(n):
        r, c = divmod(s, width)
        kn = 0
        for d, (dr, dc) in enumerate(DIRS):
            rr, cc = r + dr, c + dc
            if 0 <= rr < height and 0 <= cc < width:
                king[s, d] = rr * width + cc
            while 0 <= rr < height and 0 <= cc < width:
                rays[s, d, ray_len[s, d]] = rr * width + cc
                ray_len[s, d] += 1
                rr, cc = rr + dr, cc + dc
        for dr, dc in KNIGHT_STEPS:
            rr, cc = r + dr, c + dc
            if 0 <= rr < height and 0 <= cc < width:
                knight[s, kn] = rr * width + cc
                kn += 1
        king[s] = np.sort(king[s])[::-1]  # targets first, -1 padding last
    line = np.full((n, n), -1, np.int64)  # line[a, b]: the direction from a to b, if any
    for s in range(n):
        for d in range(8):
            line[s, rays[s, d, :ray_len[s, d]]] = d
    return rays, ray_len, knight, king, np.array([width, height, n], np.int64), line


def max_moves(geo) -> tuple[int, int]:
    """(most legal moves of a side with a king and two other pieces, most un-moves)."""
    ray_len = geo[1]
    slider = int(ray_len.sum(axis=1).max())
    piece = max(slider, 3 * len(PROMOS))  # a queen, or a pawn's promotions
    moves = 8 + 2 * piece
    unmoves = (8 + 2 * (slider + 3)) * 6  # each un-move with or without one of 5 kinds back
    return moves, unmoves


@njit(cache=True, nogil=True)
def attacked(geo, board, sq, by):
    """Whether side `by` (0 white, 1 black) attacks square sq."""
    rays, ray_len, knight, king, params, line = geo
    off = by * BLACK
    for j in range(8):
        s = knight[sq, j]
        if s >= 0 and board[s] == KNIGHT + off:
            return True
        s = king[sq, j]
        if s >= 0 and board[s] == KING + off:
            return True
    for d in range(8):
        line = ROOK if d < 4 else BISHOP
        for k in range(ray_len[sq, d]):
            p = board[rays[sq, d, k]]
            if p != EMPTY:
                if p == QUEEN + off or p == line + off:
                    return True
                break
    w = params[0]
    r = sq // w + (1 if by == 0 else -1)  # where a pawn attacking sq stands
    if 0 <= r < params[1]:
        c = sq % w
        if c > 0 and board[r * w + c - 1] == PAWN + off:
            return True
        if c + 1 < w and board[r * w + c + 1] == PAWN + off:
            return True
    return False


@njit(cache=True, nogil=True)
def king_square(board, side):
    for s in range(board.shape[0]):
        if board[s] == KING + side * BLACK:
            return s
    return -1


@njit(cache=True, nogil=True, inline="always")
def _takeable(p, me):
    """An opponent piece other than the king (kings are never captured)."""
    return p != EMPTY and (p > BLACK) != (me == 1) and p != KING + (1 - me) * BLACK


@njit(cache=True, nogil=True)
def _add(geo, board, me, ksq, check, frm, to, promo, mv, n, first_only):
    """Append the move if it leaves me's king safe (tested only when `check`: a move of
    another piece cannot expose an unchecked king unless it leaves a line through the
    king); returns the new count."""
    if not check:
        if not first_only:
            mv[n] = (frm * board.shape[0] + to) * 5 + promo
        return n + 1
    moved = board[frm]
    cap = board[to]
    board[to] = moved if promo == 0 else PROMOS[promo - 1] + me * BLACK
    board[frm] = EMPTY
    bad = attacked(geo, board, to if moved == KING + me * BLACK else ksq, 1 - me)
    board[frm] = moved
    board[to] = cap
    if bad:
        return n
    if not first_only:
        mv[n] = (frm * board.shape[0] + to) * 5 + promo
    return n + 1


@njit(cache=True, nogil=True)
def legal_moves(geo, board, me, mv, first_only):
    """Write the codes of me's legal moves into mv; returns how many (with first_only:
    stops at the first one, writes nothing, returns 0 or 1)."""
    rays, ray_len, knight, king, params, line = geo
    w = params[0]
    hgt = params[1]
    off = me * BLACK
    ksq = king_square(board, me)
    in_check = attacked(geo, board, ksq, 1 - me)
    n = 0
    for frm in range(board.shape[0]):
        p = board[frm]
        if p == EMPTY or (p > BLACK) != (me == 1):
            continue
        kind = p - off
        check = kind == KING or in_check or line[ksq, frm] >= 0
        if kind == KING or kind == KNIGHT:
            table = king if kind == KING else knight
            for j in range(8):
                to = table[frm, j]
                if to < 0:
                    break
                if board[to] == EMPTY or _takeable(board[to], me):
                    n = _add(geo, board, me, ksq, check, frm, to, 0, mv, n, first_only)
        elif kind == PAWN:
            r = frm // w + (-1 if me == 0 else 1)
            last = r == 0 or r == hgt - 1
            c = frm % w
            for dc in range(-1, 2):
                if not 0 <= c + dc < w:
                    continue
                to = r * w + c + dc
                if (dc == 0 and board[to] == EMPTY) or (dc != 0 and _takeable(board[to], me)):
                    if last:
                        for promo in range(1, 5):
                            n = _add(geo, board, me, ksq, check, frm, to, promo, mv, n, first_only)
                    else:
                        n = _add(geo, board, me, ksq, check, frm, to, 0, mv, n, first_only)
        else:
            d0 = 4 if kind == BISHOP else 0
            d1 = 4 if kind == ROOK else 8
            for d in range(d0, d1):
                for k in range(ray_len[frm, d]):
                    to = rays[frm, d, k]
                    q = board[to]
                    if q == EMPTY or _takeable(q, me):
                        n = _add(geo, board, me, ksq, check, frm, to, 0, mv, n, first_only)
                    if q != EMPTY:
                        break
        if first_only and n > 0:
            return 1
    return n


@njit(cache=True, nogil=True)
def make_move(board, code, me):
    """Play a move code on board; returns the captured piece code (to undo it)."""
    n = board.shape[0]
    promo = code % 5
    to = (code // 5) % n
    frm = code // 5 // n
    cap = board[to]
    board[to] = board[frm] if promo == 0 else PROMOS[promo - 1] + me * BLACK
    board[frm] = EMPTY
    return cap


@njit(cache=True, nogil=True)
def unmake_move(board, code, me, cap):
    n = board.shape[0]
    to = (code // 5) % n
    frm = code // 5 // n
    board[frm] = board[to] if code % 5 == 0 else PAWN + me * BLACK
    board[to] = cap


@njit(cache=True, nogil=True)
def _pawn_row(r, hgt):
    return 1 <= r <= hgt - 2


@njit(cache=True, nogil=True)
def _unadd(geo, board, prev, ksq, d, s, x, u, out, n):
    """Append the un-move if its parent is legal: the side to move there (prev) leaves the
    other side's king (on ksq) out of check, and an un-captured pawn stands on a pawn
    row."""
    params = geo[4]
    w = params[0]
    me = 1 - prev
    if x == PAWN and not _pawn_row(d // w, params[1]):
        return n
    piece = board[d]
    board[s] = PAWN + prev * BLACK if u else piece
    board[d] = EMPTY if x == 0 else x + me * BLACK
    ok = not attacked(geo, board, ksq, prev)
    board[d] = piece
    board[s] = EMPTY
    if ok:
        out[n] = ((d * board.shape[0] + s) * 7 + x) * 2 + u
        n += 1
    return n


@njit(cache=True, nogil=True)
def _unadd_kinds(geo, board, prev, ksq, kinds, d, s, u, must_capture, out, n):
    """The un-move d <- s without a capture (unless it must capture) and with each kind
    in the bit mask `kinds` of the opponent's pieces put back on d."""
    if not must_capture:
        n = _unadd(geo, board, prev, ksq, d, s, 0, u, out, n)
    for x in range(QUEEN, PAWN + 1):
        if kinds >> x & 1:
            n = _unadd(geo, board, prev, ksq, d, s, x, u, out, n)
    return n


@njit(cache=True, nogil=True)
def legal_unmoves(geo, board, prev, kinds, out):
    """Codes of every un-move of side `prev` (the side that just moved) whose parent is a
    legal position, un-capturing only the kinds in the bit mask `kinds` (bit x for kind
    x); tier membership is the caller's to check. Returns how many."""
    rays, ray_len, knight, king, params, line = geo
    w = params[0]
    hgt = params[1]
    off = prev * BLACK
    back = 1 if prev == 0 else -1  # a white pawn came from the row below
    ksq = king_square(board, 1 - prev)
    n = 0
    for d in range(board.shape[0]):
        p = board[d]
        if p == EMPTY or (p > BLACK) != (prev == 1):
            continue
        kind = p - off
        r = d // w
        c = d % w
        if kind == PAWN or (kind != KING and r == (0 if prev == 0 else hgt - 1)):
            u = 0 if kind == PAWN else 1  # a pawn step, or the promotion to this piece
            rs = r + back
            if _pawn_row(rs, hgt):
                for dc in range(-1, 2):
                    if 0 <= c + dc < w and board[rs * w + c + dc] == EMPTY:
                        s = rs * w + c + dc
                        if dc == 0:
                            n = _unadd(geo, board, prev, ksq, d, s, 0, u, out, n)
                        else:  # pawns capture diagonally: something was taken on d
                            n = _unadd_kinds(geo, board, prev, ksq, kinds, d, s, u, True,
                                             out, n)
            if kind == PAWN:
                continue
        if kind == KING or kind == KNIGHT:
            table = king if kind == KING else knight
            for j in range(8):
                s = table[d, j]
                if s < 0:
                    break
                if board[s] == EMPTY:
                    n = _unadd_kinds(geo, board, prev, ksq, kinds, d, s, 0, False, out, n)
        else:
            d0 = 4 if kind == BISHOP else 0
            d1 = 4 if kind == ROOK else 8
            for dd in range(d0, d1):
                for k in range(ray_len[d, dd]):
                    s = rays[d, dd, k]
                    if board[s] != EMPTY:
                        break
                    n = _unadd_kinds(geo, board, prev, ksq, kinds, d, s, 0, False, out, n)
    return n


@njit(cache=True, nogil=True)
def make_unmove(board, code, prev):
    """Turn board into the parent of an un-move code; returns the piece that stood on d
    (give it to :func:`unmake_unmove` to undo)."""
    n = board.shape[0]
    u = code % 2
    x = (code // 2) % 7
    s = (code // 14) % n
    d = code // 14 // n
    piece = board[d]
    board[s] = PAWN + prev * BLACK if u else piece
    board[d] = EMPTY if x == 0 else x + (1 - prev) * BLACK
    return piece


@njit(cache=True, nogil=True)
def unmake_unmove(board, code, piece):
    n = board.shape[0]
    s = (code // 14) % n
    d = code // 14 // n
    board[d] = piece
    board[s] = EMPTY
