"""Hexapawn (Martin Gardner, 1962) on a width x height board.

Rules: white pawns (`W`) start on the bottom row, black pawns (`B`) on the top row; white
moves first. A pawn steps one square forward (white up, black down) onto an empty square,
or captures an opponent's pawn one square diagonally forward (no double step, no en
passant). A player wins by getting a pawn to the far row, or when the opponent cannot move
(having no pawns left is one case of that). So the player to move loses when the opponent
has a pawn on the opponent's far row, or when the player to move has no legal move.

Position string: rows top first joined by '/', cells `W`, `B`, `-`, then a space and the
side to move, `w` or `b`. Start 3x3: `BBB/---/WWW w`.

Moves are named like chess: file letter (`a` is the left column) and rank number (`1` is
the bottom row), from and to, joined by `-` for a step and `x` for a capture: white's
first moves on 3x3 are `a1-a2`, `b1-b2`, `c1-c2`; `b2xc3` is a capture.

Hash: the generic hash over (white count, black count), each 0..width, with a turn bit
(0 = white to move). Tiers: one per count combination; a step keeps the tier (so each tier
lists itself among its children: pawns only advance, the game never loops) and a capture
leads to the tier with one pawn fewer of the captured colour.
"""

from __future__ import annotations

import numpy as np

from games import register
from games.base import LOSE, Game, PositionError, Tier, Variant, parse_board
from hashing import HashContext
from hashing.generic import rank, unrank
from hashing.jit import njit

WHITE, BLACK, BLANK = 0, 1, 2
CHARS = "WB-"


@njit(cache=True, nogil=True)
def _has_move(board, width, height, turn):
    me = WHITE if turn == 0 else BLACK
    them = BLACK if turn == 0 else WHITE
    dr = -1 if turn == 0 else 1
    for r in range(height):
        nr = r + dr
        if nr < 0 or nr >= height:
            continue
        for c in range(width):
            if board[r * width + c] != me:
                continue
            if board[nr * width + c] == BLANK:
                return True
            if c > 0 and board[nr * width + c - 1] == them:
                return True
            if c + 1 < width and board[nr * width + c + 1] == them:
                return True
    return False


@njit(cache=True, nogil=True)
def primitive(ctx, h, scratch):
    hctx, dims = ctx
    width = dims[0]
    height = dims[1]
    turn = unrank(hctx, h, scratch)
    # the opponent (who just moved) reached its far row: white's is the top row
    if turn == 1:
        for c in range(width):
            if scratch[c] == WHITE:
                return LOSE
    else:
        last = (height - 1) * width
        for c in range(width):
            if scratch[last + c] == BLACK:
                return LOSE
    if not _has_move(scratch, width, height, turn):
        return LOSE
    return 0


@njit(cache=True, nogil=True)
def children(ctx, h, out, moves, scratch):
    """Move code: from_cell * ncells + to_cell (cells row-major, top row 0)."""
    hctx, dims = ctx
    width = dims[0]
    height = dims[1]
    ncells = width * height
    turn = unrank(hctx, h, scratch)
    me = WHITE if turn == 0 else BLACK
    them = BLACK if turn == 0 else WHITE
    dr = -1 if turn == 0 else 1
    nxt = 1 - turn
    n = 0
    for r in range(height):
        nr = r + dr
        if nr < 0 or nr >= height:
            continue
        for c in range(width):
            src = r * width + c
            if scratch[src] != me:
                continue
            for dc in range(-1, 2):
                nc = c + dc
                if nc < 0 or nc >= width:
                    continue
                dst = nr * width + nc
                target = scratch[dst]
                if dc == 0:
                    if target != BLANK:
                        continue
                elif target != them:
                    continue
                scratch[src] = BLANK
                scratch[dst] = me
                out[n] = rank(hctx, scratch, nxt)
                moves[n] = src * ncells + dst
                n += 1
                scratch[dst] = target
                scratch[src] = me
    return n


@register
class Hexapawn(Game):
    name = "hexapawn"
    title = "Hexapawn"
    variants = {
        "width": Variant(3, 1, 7, "columns (pawns per side)"),
        "height": Variant(3, 2, 7, "rows"),
    }

    def __init__(self, **variant):
        super().__init__(**variant)
        w, ht = self.variant["width"], self.variant["height"]
        self.width, self.height = w, ht
        ncells = w * ht
        self.ncells = ncells
        self.hash = HashContext(ncells, [(0, w), (0, w), (0, ncells)], turn=True)
        self.ctx = (self.hash.nb, np.array([w, ht], dtype=np.int64))
        self.hash_size = self.hash.size
        self.max_children = 3 * w
        self.scratch_size = ncells
        # every move advances a pawn one row, and a pawn advances at most height - 1 rows
        self.max_remoteness = 2 * w * (ht - 1)
        board = np.full(ncells, BLANK, dtype=np.int8)
        board[:w] = BLACK
        board[ncells - w:] = WHITE
        self.start = self.hash.rank(board, 0)

    # -- tiers -----------------------------------------------------------------------
    def tiers(self) -> list[Tier]:
        index = {c[:2]: i for i, c in enumerate(self.hash.combos)}
        out = []
        for i, (nw, nb, _) in enumerate(self.hash.combos):
            kids = [i]
            for key in ((nw - 1, nb), (nw, nb - 1)):  # black captures, white captures
                if key in index:
                    kids.append(index[key])
            out.append(Tier(f"{nw}W {nb}B", int(self.hash.offsets[i]),
                            int(self.hash.offsets[i + 1]), tuple(kids)))
        return out

    # -- positions -------------------------------------------------------------------
    def to_string(self, h: int) -> str:
        if not 0 <= h < self.hash_size:
            raise PositionError(f"hexapawn hash {h} is out of range 0..{self.hash_size - 1}")
        board, turn = self.hash.unrank(h)
        w = self.width
        rows = ["".join(CHARS[p] for p in board[i:i + w]) for i in range(0, self.ncells, w)]
        return "/".join(rows) + " " + "wb"[turn]

    def from_string(self, s: str) -> int:
        text = s.strip()
        board_text, sep, side = text.partition(" ")
        side = side.strip()
        if not sep or side not in ("w", "b"):
            raise PositionError(
                f"hexapawn position '{s}' should be a board, a space and the side to move "
                "('w' or 'b'), e.g. 'BBB/---/WWW w'")
        cells = parse_board(board_text, [self.width] * self.height, CHARS, self.name)
        for ch, who in (("W", "white"), ("B", "black")):
            if cells.count(ch) > self.width:
                raise PositionError(
                    f"hexapawn position '{s}' cannot occur: {who} has {cells.count(ch)} "
                    f"pawns, more than the {self.width} it starts with")
        board = np.array([CHARS.index(c) for c in cells], dtype=np.int8)
        return self.hash.rank(board, 0 if side == "w" else 1)

    def move_name(self, h: int, code: int) -> str:
        src, dst = divmod(code, self.ncells)
        return self._square(src) + ("x" if src % self.width != dst % self.width else "-") \
            + self._square(dst)

    def _square(self, cell: int) -> str:
        r, c = divmod(cell, self.width)
        return "abcdefg"[c] + str(self.height - r)

    def analysis_extras(self, solved) -> dict:
        info = solved.query()
        # hexapawn always ends with a winner: the start is a win or a loss for white
        winner = "white (first player)" if info.value == "win" else "black (second player)"
        best = [m.move for m in solved.best_moves()]
        notes = [f"{winner} wins with perfect play",
                 "best first moves: " + (", ".join(best) or "none")]
        return {"winner": winner, "best_first_moves": best, "notes": notes}
