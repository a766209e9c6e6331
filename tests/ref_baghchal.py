"""Independent plain-Python rules of Bagh-Chal (tigers and goats), for the tests only.

Shares no code with ``games/``, ``solver/`` or ``hashing/``. Positions are the strings of
``games/baghchal.py``: rows top first joined by '/', ``T`` tiger, ``G`` goat, ``-`` empty,
then the side to move ``g``/``t``, the goats still in hand, the goats captured, e.g.
``T--/---/--- g 3 0``.

Rules (written from the rule text, not from the module):

* an n x n grid of points; lines join orthogonal neighbours everywhere, and diagonal
  neighbours only from a point whose (row + column) is even (the standard board's
  diagonals; such a point's diagonal neighbours are even too);
* tigers start on corners: top-left, bottom-right, top-right, bottom-left, in that order
  (the first ``tigers`` of them); goats start in hand; goats move first;
* goats: while any goat is in hand, place one on an empty point; afterwards slide one goat
  along a line to an adjacent empty point;
* tigers: slide along a line to an adjacent empty point, or jump along a line over an
  adjacent goat to the empty point right behind it, capturing the goat;
* goats to move with ``captures`` goats captured: goats lose (tigers won);
* a side to move with no legal move loses (tigers trapped: goats won; goats blocked in
  the sliding phase: goats lost).
"""

from __future__ import annotations

LOSE = 1


class BaghChal:
    puzzle = False

    def __init__(self, size: int, tigers: int, goats: int, captures: int):
        self.n = size
        self.tigers = tigers
        self.goats = goats
        self.captures = captures

    # -- helpers ----------------------------------------------------------------------
    def start(self) -> str:
        n = self.n
        grid = [["-"] * n for _ in range(n)]
        for r, c in [(0, 0), (n - 1, n - 1), (0, n - 1), (n - 1, 0)][: self.tigers]:
            grid[r][c] = "T"
        return self._fmt(grid, "g", self.goats, 0)

    @staticmethod
    def _fmt(grid, side, hand, captured) -> str:
        return "/".join("".join(row) for row in grid) + f" {side} {hand} {captured}"

    @staticmethod
    def _parse(s: str):
        board, side, hand, captured = s.split(" ")
        return [list(row) for row in board.split("/")], side, int(hand), int(captured)

    def _on(self, r: int, c: int) -> bool:
        return 0 <= r < self.n and 0 <= c < self.n

    def _steps(self, r: int, c: int):
        """Unit steps (dr, dc) along the lines through point (r, c)."""
        steps = [(-1, 0), (1, 0), (0, -1), (0, 1)]
        if (r + c) % 2 == 0:
            steps += [(-1, -1), (-1, 1), (1, -1), (1, 1)]
        return [(dr, dc) for dr, dc in steps if self._on(r + dr, c + dc)]

    def _next_positions(self, s: str) -> list[str]:
        grid, side, hand, captured = self._parse(s)
        n = self.n
        out = []
        if side == "g":
            if hand > 0:
                for r in range(n):
                    for c in range(n):
                        if grid[r][c] == "-":
                            g = [row[:] for row in grid]
                            g[r][c] = "G"
                            out.append(self._fmt(g, "t", hand - 1, captured))
            else:
                for r in range(n):
                    for c in range(n):
                        if grid[r][c] != "G":
                            continue
                        for dr, dc in self._steps(r, c):
                            if grid[r + dr][c + dc] == "-":
                                g = [row[:] for row in grid]
                                g[r][c] = "-"
                                g[r + dr][c + dc] = "G"
                                out.append(self._fmt(g, "t", 0, captured))
            return out
        for r in range(n):
            for c in range(n):
                if grid[r][c] != "T":
                    continue
                for dr, dc in self._steps(r, c):
                    a = grid[r + dr][c + dc]
                    if a == "-":
                        g = [row[:] for row in grid]
                        g[r][c] = "-"
                        g[r + dr][c + dc] = "T"
                        out.append(self._fmt(g, "g", hand, captured))
                    elif a == "G":
                        r2, c2 = r + 2 * dr, c + 2 * dc
                        if self._on(r2, c2) and grid[r2][c2] == "-":
                            g = [row[:] for row in grid]
                            g[r][c] = "-"
                            g[r + dr][c + dc] = "-"
                            g[r2][c2] = "T"
                            out.append(self._fmt(g, "g", hand, captured + 1))
        return out

    # -- the reference game interface -----------------------------------------------------
    def primitive(self, s: str) -> int:
        _, side, _, captured = self._parse(s)
        if side == "g" and captured >= self.captures:
            return LOSE
        if not self._next_positions(s):
            return LOSE
        return 0

    def children(self, s: str) -> list[str]:
        return self._next_positions(s)
