"""Plain-Python reference rules of Topitop (independent of games/; see games/topitop.py
for the rules in words). Positions: 'c,c,c/c,c,c/c,c,c t', a cell '-' or its pieces bottom
to top (L large, S small sandcastle, B blue, R red bucket), t the side to move 'b'/'r'."""

from __future__ import annotations

LOSE, TIE, WIN = 1, 3, 4

# which top piece each bottom piece may be put on ('' = the ground)
RESTS_ON = {"L": {""}, "S": {"", "L"}, "B": {"", "L", "S"}, "R": {"", "L", "S"}}


def neighbours(sq):
    r, c = divmod(sq, 3)
    out = []
    for rr in range(r - 1, r + 2):
        for cc in range(c - 1, c + 2):
            if (rr, cc) != (r, c) and 0 <= rr < 3 and 0 <= cc < 3:
                out.append(rr * 3 + cc)
    return out


class Topitop:
    puzzle = False

    def __init__(self, castles=1):
        self.n = castles

    def start(self):
        return "-,-,-/-,-,-/-,-,- b"

    @staticmethod
    def parse(s):
        board, turn = s.split(" ")
        cells = [("" if x == "-" else x) for row in board.split("/") for x in row.split(",")]
        return cells, turn

    @staticmethod
    def show(cells, turn):
        xs = [x or "-" for x in cells]
        return "/".join(",".join(xs[i:i + 3]) for i in (0, 3, 6)) + " " + turn

    def primitive(self, s):
        cells, turn = self.parse(s)
        me = "B" if turn == "b" else "R"
        other = "R" if me == "B" else "B"
        if sum(x == "LS" + other for x in cells) == self.n:
            return LOSE
        if sum(x == "LS" + me for x in cells) == self.n:
            return WIN
        return 0

    def children(self, s):
        cells, turn = self.parse(s)
        me = "B" if turn == "b" else "R"
        nxt = "r" if turn == "b" else "b"
        out = []
        onboard = "".join(cells)
        for p in ("L", "S", me):
            if onboard.count(p) < self.n:
                for sq in range(9):
                    if cells[sq] == "":
                        new = list(cells)
                        new[sq] = p
                        out.append(self.show(new, nxt))
        for src in range(9):
            stack = cells[src]
            if not stack or stack[-1] not in ("L", "S", me):
                continue
            for k in range(1, len(stack) + 1):
                part, rest = stack[-k:], stack[:-k]
                for dst in neighbours(src):
                    target = cells[dst]
                    if (target[-1:] if target else "") not in RESTS_ON[part[0]]:
                        continue
                    new = list(cells)
                    new[src] = rest
                    new[dst] = target + part
                    out.append(self.show(new, nxt))
        return out
