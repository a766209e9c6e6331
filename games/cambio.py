"""Cambio: a cube-pushing n-in-a-row game on an n x n board (the Quixo family).

Every cell holds a cube showing X, O or a neutral face. Rules implemented (exactly):

* X moves first; players alternate; no passing, no repetition rule (loopy: cube patterns
  can repeat, so draws are real).
* A turn: take a cube from the outer ring (a border cell) that is neutral or shows your
  own symbol, turn it to your symbol, and push it back into the board at one end of the
  same row or the same column, but not at the spot it was taken from. The cubes between
  that end and the hole slide one step towards the hole. So a corner cube has 2 pushes, a
  non-corner border cube 3 (with duplicates: different moves may give the same board).
* A player with n of their symbol in a row, column or either diagonal wins. A push that
  makes a line for both players loses for the pusher (Quixo's rule). As a position rule,
  for the player to move: WIN if they have a line (made by the opponent's push, with or
  without a line of the opponent's), else LOSE if the opponent has one, else LOSE if no
  border cube is neutral or their own (this only happens together with an opponent's
  line, so it is a safeguard).
* Start: every cube neutral, X to move. The notes' 5x5 Cambio begins with a setup phase
  (each player places some of the other player's symbols, the corners neutral stars, the
  rest neutral); that phase is NOT implemented: a 5x5 board (3^25 boards) is far beyond
  solving, and on the solvable 3x3 and 4x4 boards the all-neutral Quixo-style start is the
  natural one (the setup has no fixed form to copy). Any board can still be queried.

Variant: `size` n = 3 (default, solves in seconds) or 4 (defined: 86 million hashes).

Position string: rows top first joined by '/', cells `X`, `O`, `.` (neutral), then a space
and the side to move, `x` or `o`. Start (3x3): `.../.../... x`. Example: `X.O/.X./O.. o`.

Move names: the cell taken (1..n*n, reading order) and the end it is pushed in at: `L`/`R`
(left/right end of its row) or `T`/`B` (top/bottom end of its column), e.g. `1R` takes the
top-left cube and pushes it in at the right end of the top row, sliding that row left.

Hash: generic hash (hashing.HashContext) over the counts of (X, O, neutral) on n*n cells,
no restriction, with a turn bit: 2 * 3^(n*n) positions (3x3: 39,366; 4x4: 86,093,442).
Tiers: by the number of neutral cubes (a move keeps it or lowers it by one), fewest placed
symbols first; each tier lists itself and the tier with one neutral cube fewer.

These rules are Quixo's with the same board numbering, so the jitted functions are
games/quixo.py's (moves, un-moves, the 8 symmetries of the square); only the names and
the tiers are Cambio's own.
"""

from __future__ import annotations

import numpy as np

from games.base import Game, PositionError, Tier, Variant
from games.common import mask_symmetries
from games.pushing import BLANK as NEUTRAL
from games.pushing import push_table
from games.quixo import (  # noqa: F401  the rules are Quixo's
    canonical,
    children,
    children_canonical,
    expand,
    expand_canonical,
    orbit,
    parents,
    parents_canonical,
    primitive,
)
from hashing import HashContext

CHARS = "XO."
SIDES = "LRTB"

# ctx: games.quixo's (generic hash, pushing.push_table, common.mask_symmetries)


class Cambio(Game):
    name = "cambio"
    title = "Cambio"
    loopy = True
    variants = {
        "size": Variant(3, 3, 4, "board side n; n in a row wins (4: defined, 86M hashes)"),
    }

    def __init__(self, **variant):
        super().__init__(**variant)
        self.n = n = self.variant["size"]
        nn = n * n
        self.hash = HashContext(nn, [(0, nn)] * 3, turn=True)
        self.ctx = (self.hash.nb, push_table(n), mask_symmetries(n))
        self.hash_size = self.hash.size
        self.max_children = 4 * nn
        self.max_parents = 2 * self.max_children
        self.scratch_size = 0
        self.max_remoteness = 4095
        self.start = self.hash.rank(np.full(nn, NEUTRAL, dtype=np.int8), 0)

    def tiers(self) -> list[Tier]:
        """One tier per neutral-cube count (a run of combos), fewest symbols first."""
        runs: list[list[int]] = []  # [neutral, start, stop]
        for i, c in enumerate(self.hash.combos):
            lo, hi = int(self.hash.offsets[i]), int(self.hash.offsets[i + 1])
            if runs and runs[-1][0] == c[2]:
                runs[-1][2] = hi
            else:
                runs.append([c[2], lo, hi])
        out = []
        for t, (neutral, lo, hi) in enumerate(runs):
            kids = (t, t + 1) if t + 1 < len(runs) else (t,)
            out.append(Tier(f"{neutral} neutral", lo, hi, kids))
        return out

    def to_string(self, h: int) -> str:
        if not 0 <= h < self.hash_size:
            raise PositionError(f"cambio hash {h} out of range")
        board, turn = self.hash.unrank(h)
        n = self.n
        rows = "/".join("".join(CHARS[p] for p in board[r * n:(r + 1) * n])
                        for r in range(n))
        return f"{rows} {'xo'[turn]}"

    def from_string(self, s: str) -> int:
        n = self.n
        parts = s.split()
        if len(parts) != 2 or parts[1] not in ("x", "o"):
            raise PositionError(
                f"cambio position '{s}' should be {n} rows joined by '/', then a space and "
                f"'x' or 'o' (the side to move), e.g. '{'/'.join(['.' * n] * n)} x'")
        rows = parts[0].split("/")
        if len(rows) != n or any(len(r) != n for r in rows):
            raise PositionError(
                f"cambio position '{s}' should have {n} rows of {n} cells (size={n})")
        cells = "".join(rows)
        bad = [ch for ch in cells if ch not in CHARS]
        if bad:
            raise PositionError(
                f"cambio position '{s}': '{bad[0]}' is not a cell (X, O or . for neutral)")
        board = np.array([CHARS.index(ch) for ch in cells], dtype=np.int8)
        return self.hash.rank(board, 1 if parts[1] == "o" else 0)

    def move_name(self, h: int, code: int) -> str:
        return f"{code // 4 + 1}{SIDES[code % 4]}"
