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
games/quixo.py's (moves, un-moves, the 8 symmetries of the square) and the class is a
`Quixo` (board, hash, strings, move names); only the cell and end letters, the lax
position parsing (any board) and the tiers are Cambio's own. Quixo's `parents_in_tier`
is not taken: it is for Quixo's (X, O) tiers, not these.
"""

from __future__ import annotations

from games import register
from games.base import Tier, Variant
from games.quixo import (  # noqa: F401  the rules are Quixo's
    Quixo,
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

# ctx: games.quixo's (generic hash, pushing.push_table, common.mask_symmetries)


@register
class Cambio(Quixo):
    name = "cambio"
    title = "Cambio"
    variants = {
        "size": Variant(3, 3, 4, "board side n; n in a row wins (4: defined, 86M hashes)"),
    }
    chars = "XO."
    ends = "LRTB"
    cell_words = "X, O or . for neutral"

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

    def check_reachable(self, s: str, cells: str, turn: int) -> None:
        """Any board may be queried (see the module docstring)."""
