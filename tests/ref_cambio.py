"""Plain-Python reference rules of Cambio (Quixo-style cube pushing), for the tests only.

Independent of games/ and solver/: positions are strings `rows/joined/by/slash side`,
cells X, O, '.' (neutral), side 'x' or 'o'. Interface of tests/reference.py.
"""

from __future__ import annotations

LOSE, TIE, WIN = 1, 3, 4


class Cambio:
    puzzle = False

    def __init__(self, n: int = 3):
        self.n = n

    def start(self) -> str:
        return "/".join(["." * self.n] * self.n) + " x"

    def _parse(self, s):
        rows, side = s.split()
        return [list(r) for r in rows.split("/")], side

    def _lines(self, g):
        n = self.n
        out = [g[r] for r in range(n)]
        out += [[g[r][c] for r in range(n)] for c in range(n)]
        out.append([g[i][i] for i in range(n)])
        out.append([g[i][n - 1 - i] for i in range(n)])
        return out

    def _has(self, g, sym):
        return any(all(x == sym for x in line) for line in self._lines(g))

    def primitive(self, s: str) -> int:
        g, side = self._parse(s)
        me = side.upper()
        opp = "O" if me == "X" else "X"
        if self._has(g, me):
            return WIN  # the opponent's push made my line (maybe theirs too): they lose
        if self._has(g, opp):
            return LOSE
        if not self._pushes(g, me):
            return LOSE
        return 0

    def _pushes(self, g, me):
        """Every (row, col, end) a push can use: own or neutral border cube, other end."""
        n = self.n
        out = []
        for r in range(n):
            for c in range(n):
                if r not in (0, n - 1) and c not in (0, n - 1):
                    continue
                if g[r][c] not in (".", me):
                    continue
                for end in ("left", "right", "top", "bottom"):
                    target = {"left": (r, 0), "right": (r, n - 1),
                              "top": (0, c), "bottom": (n - 1, c)}[end]
                    if target != (r, c):
                        out.append((r, c, end))
        return out

    def push(self, s: str, r: int, c: int, end: str) -> str:
        """The board after taking cube (r, c) and pushing it in at `end` (no checks)."""
        g, side = self._parse(s)
        me = side.upper()
        n = self.n
        if end in ("left", "right"):
            line = g[r][:]
            del line[c]
            line = [me] + line if end == "left" else line + [me]
            g[r] = line
        else:
            line = [g[i][c] for i in range(n)]
            del line[r]
            line = [me] + line if end == "top" else line + [me]
            for i in range(n):
                g[i][c] = line[i]
        return "/".join("".join(row) for row in g) + " " + ("o" if side == "x" else "x")

    def children(self, s: str) -> list[str]:
        g, side = self._parse(s)
        return [self.push(s, r, c, e) for r, c, e in self._pushes(g, side.upper())]
