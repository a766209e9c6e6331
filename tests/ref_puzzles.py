"""Plain-Python reference rules for puzzles that tests/reference.py lacks (tests only).

Shares no code with the `games`, `hashing` or `solver` packages. Same game-object protocol
as tests/reference.py: start(), primitive(s), children(s), puzzle.
"""

from __future__ import annotations

WIN, LOSE = 4, 1


class PegSolitaireEnglish:
    """The English 33-hole cross: a 7x7 square less its 2x2 corners. Position string: the
    holes of each of the 7 rows joined by '/' (3, 3, 7, 7, 7, 3, 3 holes; the short rows
    are columns 2..4), `X` peg, `-` hole. Jumps run along rows and columns."""

    puzzle = True
    ROWS = [(2, 3), (2, 3), (0, 7), (0, 7), (0, 7), (2, 3), (2, 3)]  # (first column, length)

    def __init__(self, hole: tuple[int, int] = (3, 3)):
        self.hole = tuple(hole)

    def _on_board(self, r: int, c: int) -> bool:
        return 0 <= r < 7 and 0 <= c < 7 and (2 <= r <= 4 or 2 <= c <= 4)

    def _grid(self, s: str) -> dict[tuple[int, int], str]:
        parts = s.split("/")
        grid = {}
        for r, (part, (first, length)) in enumerate(zip(parts, self.ROWS, strict=True)):
            assert len(part) == length
            for i, ch in enumerate(part):
                grid[(r, first + i)] = ch
        return grid

    def _string(self, grid: dict[tuple[int, int], str]) -> str:
        return "/".join("".join(grid[(r, first + i)] for i in range(length))
                        for r, (first, length) in enumerate(self.ROWS))

    def start(self) -> str:
        grid = {(r, c): "X" for r in range(7) for c in range(7) if self._on_board(r, c)}
        grid[self.hole] = "-"
        return self._string(grid)

    def children(self, s: str) -> list[str]:
        grid = self._grid(s)
        out = []
        for (r, c), ch in sorted(grid.items()):
            if ch != "X":
                continue
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                over, to = (r + dr, c + dc), (r + 2 * dr, c + 2 * dc)
                if grid.get(over) == "X" and grid.get(to) == "-":
                    g = dict(grid)
                    g[(r, c)] = g[over] = "-"
                    g[to] = "X"
                    out.append(self._string(g))
        return out

    def primitive(self, s: str) -> int:
        if s.count("X") == 1:
            return WIN
        return 0 if self.children(s) else LOSE
