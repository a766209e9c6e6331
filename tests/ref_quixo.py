"""Plain-Python reference rules of Quixo as GamesmanOne implements them, for the tests only.

Independent of games/ and solver/. Positions: rows top first joined by '/', cells X, O,
'-' (blank), then a space and the side to move 'x'/'o'. Interface of tests/reference.py;
`moves(s)` also names each move (cell 1.., then the end L/R/U/D it goes in at).
"""

from __future__ import annotations

LOSE, WIN = 1, 4


class Quixo:
    puzzle = False

    def __init__(self, n: int = 3):
        self.n = n

    def start(self) -> str:
        return "/".join(["-" * self.n] * self.n) + " x"

    def _grid(self, s):
        rows, side = s.split(" ")
        return [list(r) for r in rows.split("/")], side.upper()

    def _wins(self, g, sym):
        n = self.n
        rows = any(all(g[r][c] == sym for c in range(n)) for r in range(n))
        cols = any(all(g[r][c] == sym for r in range(n)) for c in range(n))
        diag = all(g[i][i] == sym for i in range(n))
        anti = all(g[i][n - 1 - i] == sym for i in range(n))
        return rows or cols or diag or anti

    def primitive(self, s: str) -> int:
        g, me = self._grid(s)
        if self._wins(g, me):
            return WIN
        if self._wins(g, "O" if me == "X" else "X"):
            return LOSE
        return 0

    def moves(self, s: str) -> list[tuple[str, str]]:
        g, me = self._grid(s)
        n = self.n
        nxt = "o" if me == "X" else "x"
        out = []
        for r in range(n):
            for c in range(n):
                if not (r in (0, n - 1) or c in (0, n - 1)) or g[r][c] not in ("-", me):
                    continue
                for end in "LRUD":
                    if (end == "L" and c == 0) or (end == "R" and c == n - 1) or (
                            end == "U" and r == 0) or (end == "D" and r == n - 1):
                        continue
                    h = [row[:] for row in g]
                    if end in "LR":
                        line = g[r][:c] + g[r][c + 1:]
                        h[r] = [me] + line if end == "L" else line + [me]
                    else:
                        col = [g[i][c] for i in range(n) if i != r]
                        col = [me] + col if end == "U" else col + [me]
                        for i in range(n):
                            h[i][c] = col[i]
                    child = "/".join("".join(row) for row in h) + " " + nxt
                    out.append((f"{r * n + c + 1}{end}", child))
        return out

    def children(self, s: str) -> list[str]:
        return [c for _, c in self.moves(s)]
