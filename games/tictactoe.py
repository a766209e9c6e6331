"""Tic-tac-toe on the 3x3 board.

Position string: rows top first joined by '/', cells `X`, `O`, `-`; X moves first and the
side to move follows from the counts. Moves are named by cell, 1..9 in reading order.
The player to move loses when the opponent has three in a row; a full board without a
line is a tie.

Hash: generic hash over the counts (x, o) with x == o or x == o + 1, no turn bit.
Symmetry: the 8 symmetries of the square (`canonical`, `orbit`).
"""

from __future__ import annotations

import numpy as np

from games import register
from games.base import LOSE, TIE, Game, PositionError, Tier, hash_tiers, parse_board
from games.common import (
    board_to_rows,
    has_line,
    line_table,
    square_symmetries,
    symmetric_images,
)
from hashing import HashContext
from hashing.generic import rank, unrank
from hashing.jit import njit

X, O, BLANK = 0, 1, 2
CHARS = "XO-"


@njit(cache=True, nogil=True)
def primitive(ctx, h, scratch):
    hctx, lines, _perms = ctx
    unrank(hctx, h, scratch)
    nx = 0
    no = 0
    for i in range(9):
        if scratch[i] == X:
            nx += 1
        elif scratch[i] == O:
            no += 1
    last = X if nx > no else O
    if has_line(scratch, lines, last):
        return LOSE
    if nx + no == 9:
        return TIE
    return 0


@njit(cache=True, nogil=True)
def children(ctx, h, out, moves, scratch):
    hctx, _lines, _perms = ctx
    unrank(hctx, h, scratch)
    nx = 0
    no = 0
    for i in range(9):
        if scratch[i] == X:
            nx += 1
        elif scratch[i] == O:
            no += 1
    piece = X if nx == no else O
    n = 0
    for i in range(9):
        if scratch[i] == BLANK:
            scratch[i] = piece
            out[n] = rank(hctx, scratch, 0)
            moves[n] = i
            scratch[i] = BLANK
            n += 1
    return n


@njit(cache=True, nogil=True)
def _symmetric(ctx, h, scratch, want_orbit):
    hctx, _lines, perms = ctx
    return symmetric_images(hctx, perms, h, scratch[:9], scratch[9:18], want_orbit)


@njit(cache=True, nogil=True)
def canonical(ctx, h, scratch):
    return _symmetric(ctx, h, scratch, False)


@njit(cache=True, nogil=True)
def orbit(ctx, h, scratch):
    return _symmetric(ctx, h, scratch, True)


@register
class TicTacToe(Game):
    name = "tictactoe"
    title = "Tic-tac-toe"

    def __init__(self, **variant):
        super().__init__(**variant)
        self.hash = HashContext(9, [(0, 5), (0, 4), (0, 9)],
                                predicate=lambda c: c[0] == c[1] or c[0] == c[1] + 1)
        self.ctx = (self.hash.nb, line_table(3, 3, 3), square_symmetries(3))
        self.hash_size = self.hash.size
        self.max_children = 9
        self.scratch_size = 18  # board and image (canonical)
        self.max_remoteness = 9
        self.start = self.hash.rank(np.full(9, BLANK, dtype=np.int8))

    def tiers(self) -> list[Tier]:
        """By pieces placed: each tier is one (x, o) count, its moves lead to the next."""

        def kids(c):
            x, o, blank = c
            return [(x + 1, o, blank - 1) if x == o else (x, o + 1, blank - 1)]

        return hash_tiers(self.hash, lambda c: f"{c[0] + c[1]} pieces", kids)

    def to_string(self, h: int) -> str:
        board, _ = self.hash.unrank(h)
        return board_to_rows([CHARS[p] for p in board], 3)

    def from_string(self, s: str) -> int:
        cells = parse_board(s.strip(), [3, 3, 3], CHARS, self.name)
        nx, no = cells.count("X"), cells.count("O")
        if nx not in (no, no + 1):
            raise PositionError(
                f"tictactoe position '{s}' cannot occur: X moves first, so X must have as "
                f"many pieces as O or one more (X={nx}, O={no})")
        return self.hash.rank(np.array([CHARS.index(c) for c in cells], dtype=np.int8))

    def move_name(self, h: int, code: int) -> str:
        return str(code + 1)
