"""Plain-Python reference rules of Rubik's checkers (independent of games/ and solver/).

Positions are the same strings as the game's: rows top first joined by '/', '.' light
square, '-' empty dark square, 'W'/'w' white king/man, 'B'/'b' black king/man, then a space
and 'w' or 'b'. White's home row is the bottom row, black's the top row; a1 is dark.
"""

LOSE = 1


class RubiksCheckers:
    puzzle = False

    def __init__(self, width=4, height=4, rows=1):
        self.w, self.h, self.rows = width, height, rows

    def dark(self, r, c):
        return 0 <= r < self.h and 0 <= c < self.w and (c + self.h - 1 - r) % 2 == 0

    def start(self):
        grid = []
        for r in range(self.h):
            row = ""
            for c in range(self.w):
                if not self.dark(r, c):
                    row += "."
                elif r < self.rows:
                    row += "B"
                elif r >= self.h - self.rows:
                    row += "W"
                else:
                    row += "-"
            grid.append(row)
        return "/".join(grid) + " w"

    def primitive(self, s):
        return 0 if self.children(s) else LOSE

    def children(self, s):
        board, side = s.split(" ")
        g = [list(row) for row in board.split("/")]
        white = side == "w"
        king, man = ("W", "w") if white else ("B", "b")
        enemy_king, enemy_man = ("B", "b") if white else ("W", "w")
        home = self.h - 1 if white else 0
        back = 1 if white else -1  # white men move down the string (toward the bottom)
        nxt = "b" if white else "w"
        out = []

        def emit(grid):
            out.append("/".join("".join(row) for row in grid) + " " + nxt)

        for r in range(self.h):
            for c in range(self.w):
                p = g[r][c]
                if p == king:
                    for dr in (-1, 1):
                        for dc in (-1, 1):
                            r1, c1 = r + dr, c + dc
                            if not self.dark(r1, c1):
                                continue
                            if g[r1][c1] == "-":
                                n = [row[:] for row in g]
                                n[r][c], n[r1][c1] = "-", king
                                emit(n)
                            elif g[r1][c1] in (enemy_king, enemy_man):
                                r2, c2 = r + 2 * dr, c + 2 * dc
                                if self.dark(r2, c2) and g[r2][c2] == "-":
                                    n = [row[:] for row in g]
                                    n[r][c], n[r2][c2] = "-", king
                                    n[r1][c1] = enemy_man if g[r1][c1] == enemy_king else "-"
                                    emit(n)
                elif p == man:
                    for dc in (-1, 1):
                        r1, c1 = r + back, c + dc
                        if self.dark(r1, c1) and g[r1][c1] == "-":
                            n = [row[:] for row in g]
                            n[r][c] = "-"
                            n[r1][c1] = king if r1 == home else man
                            emit(n)
        return out
