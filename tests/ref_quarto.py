"""Plain-Python reference rules of Quarto for the tests (no code shared with games/).

Board `size` x `size`, 2**attributes pieces (bit i of a piece's number = attribute i).
Position string: rows top first joined by '/', '-' for an empty cell or the piece as a hex
digit, then a space and the piece in hand ('-' for none). The first move gives a piece;
each later move places the piece in hand and gives one of the unused pieces, except when
the placement ends the game. The game is over when some row, column or main diagonal is
filled with pieces that agree on some attribute (the player to move has lost: the opponent
just completed it), or when no piece can be placed any more (board full or every piece
used) without such a line (tie).
"""

from __future__ import annotations

LOSE, TIE = 1, 3
DIGITS = "0123456789abcdef"


class Quarto:
    puzzle = False

    def __init__(self, size: int = 3, attributes: int = 3, start: str | None = None):
        self.size = size
        self.attributes = attributes
        self.pieces = 2 ** attributes
        self._start = start or "/".join(["-" * size] * size) + " -"
        n = size
        self.lines = [[(r, c) for c in range(n)] for r in range(n)]
        self.lines += [[(r, c) for r in range(n)] for c in range(n)]
        self.lines.append([(i, i) for i in range(n)])
        self.lines.append([(i, n - 1 - i) for i in range(n)])

    def start(self) -> str:
        return self._start

    def parse(self, s: str) -> tuple[list[list[str]], str]:
        board, hand = s.split(" ")
        return [list(row) for row in board.split("/")], hand

    @staticmethod
    def show(rows: list[list[str]], hand: str) -> str:
        return "/".join("".join(r) for r in rows) + " " + hand

    def shares_attribute(self, pieces: list[int]) -> bool:
        for bit in range(self.attributes):
            if len({(p >> bit) & 1 for p in pieces}) == 1:
                return True
        return False

    def has_line(self, rows: list[list[str]]) -> bool:
        for line in self.lines:
            chars = [rows[r][c] for r, c in line]
            if "-" in chars:
                continue
            if self.shares_attribute([DIGITS.index(ch) for ch in chars]):
                return True
        return False

    def placed(self, rows: list[list[str]]) -> list[str]:
        return [ch for row in rows for ch in row if ch != "-"]

    def primitive(self, s: str) -> int:
        rows, _hand = self.parse(s)
        if self.has_line(rows):
            return LOSE
        if len(self.placed(rows)) == min(self.pieces, self.size * self.size):
            return TIE
        return 0

    def children(self, s: str) -> list[str]:
        rows, hand = self.parse(s)
        used = set(self.placed(rows))
        if hand == "-":  # only at the start
            return [self.show(rows, DIGITS[p]) for p in range(self.pieces)]
        out = []
        for r in range(self.size):
            for c in range(self.size):
                if rows[r][c] != "-":
                    continue
                new = [row[:] for row in rows]
                new[r][c] = hand
                left = [DIGITS[p] for p in range(self.pieces)
                        if DIGITS[p] not in used and DIGITS[p] != hand]
                if self.has_line(new) or not left or len(used) + 1 == self.size ** 2:
                    out.append(self.show(new, "-"))
                else:
                    out.extend(self.show(new, g) for g in left)
        return out
