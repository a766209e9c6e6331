"""Plain-Python reference rules of Teeko as GamesmanOne implements them, for the tests only.

Independent of games/ and solver/. Positions: rows top first joined by '/', cells X, O,
'-', then a space and the side to move 'x'/'o'. Interface of tests/reference.py; `moves(s)`
also names each move (drop `7`, step `7-13`, squares 1.. in reading order).

A pattern always takes all p pieces of a side, so it is tested on a side's piece set:
p squares in a straight row of neighbours (any of the 4 directions), or, with 4 pieces, the
corners of an axis-aligned square of side 1 (advanced: any side).
"""

from __future__ import annotations

LOSE = 1


class Teeko:
    puzzle = False

    def __init__(self, n: int = 5, p: int = 4, advanced: bool = False):
        self.n, self.p, self.advanced = n, p, advanced

    def start(self) -> str:
        return "/".join(["-" * self.n] * self.n) + " x"

    def _cells(self, s):
        rows, side = s.split(" ")
        return list("".join(rows.split("/"))), side.upper()

    def _show(self, cells, side):
        n = self.n
        return "/".join("".join(cells[r * n:(r + 1) * n]) for r in range(n)) + " " + side

    def pattern(self, cells, sym) -> bool:
        pts = sorted(divmod(i, self.n) for i, ch in enumerate(cells) if ch == sym)
        if len(pts) != self.p:
            return False
        (r0, c0), (r1, c1) = pts[0], pts[1]
        step = (r1 - r0, c1 - c0)
        if step in ((0, 1), (1, 0), (1, 1), (1, -1)) and all(
                pts[i] == (r0 + i * step[0], c0 + i * step[1]) for i in range(self.p)):
            return True
        if self.p == 4:
            side = c1 - c0
            square = [(r0, c0), (r0, c0 + side), (r0 + side, c0), (r0 + side, c0 + side)]
            if r1 == r0 and side >= 1 and pts == square and (side == 1 or self.advanced):
                return True
        return False

    def primitive(self, s: str) -> int:
        cells, me = self._cells(s)
        if self.pattern(cells, "X") or self.pattern(cells, "O"):
            return LOSE
        if not self.moves(s):
            return LOSE
        return 0

    def moves(self, s: str) -> list[tuple[str, str]]:
        cells, me = self._cells(s)
        n = self.n
        nxt = "o" if me == "X" else "x"
        out = []
        if sum(ch != "-" for ch in cells) < 2 * self.p:
            for i, ch in enumerate(cells):
                if ch == "-":
                    kid = cells[:]
                    kid[i] = me
                    out.append((str(i + 1), self._show(kid, nxt)))
            return out
        for i, ch in enumerate(cells):
            if ch != me:
                continue
            r, c = divmod(i, n)
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    rr, cc = r + dr, c + dc
                    if (dr or dc) and 0 <= rr < n and 0 <= cc < n and cells[rr * n + cc] == "-":
                        kid = cells[:]
                        kid[i], kid[rr * n + cc] = "-", me
                        out.append((f"{i + 1}-{rr * n + cc + 1}", self._show(kid, nxt)))
        return out

    def children(self, s: str) -> list[str]:
        return [c for _, c in self.moves(s)]
