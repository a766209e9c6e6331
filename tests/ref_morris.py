"""Reference rules of Three, Six and Nine Men's Morris, plain Python, for the tests only.

Independent of games/ and solver/: the boards are typed in by hand from the published
diagrams (point names in algebraic notation), and the rules are written out directly.

Position: 'ROWS SIDE WHITE_HAND BLACK_HAND', rows top (highest rank) first, points of a row
left to right (file a first), `W`/`B`/`-`; SIDE `w` or `b`.

Rules (as chosen for gsolve): White first; placement while the mover holds pieces, then
sliding along a line to an adjacent empty point. Three: three in a row wins (the mover
loses if the opponent has a line), no capture, no flying. Six/Nine: the moved piece
completing a line removes one opponent piece that is in no line, or any if all are in
lines; Nine only: a player with exactly 3 pieces and nothing in hand flies to any empty
point. The mover loses with fewer than 3 pieces (board + hand) or, after placement, with no
move.
"""

from __future__ import annotations

LOSE = 1

THREE_ROWS = ["a3 b3 c3", "a2 b2 c2", "a1 b1 c1"]
THREE_MILLS = ["a3 b3 c3", "a2 b2 c2", "a1 b1 c1", "a3 a2 a1", "b3 b2 b1", "c3 c2 c1"]
THREE_LINKS: list[str] = []

SIX_ROWS = ["a5 c5 e5", "b4 c4 d4", "a3 b3 d3 e3", "b2 c2 d2", "a1 c1 e1"]
SIX_MILLS = ["a5 c5 e5", "b4 c4 d4", "b2 c2 d2", "a1 c1 e1",
             "a5 a3 a1", "b4 b3 b2", "d4 d3 d2", "e5 e3 e1"]
SIX_LINKS = ["c5 c4", "a3 b3", "d3 e3", "c2 c1"]

NINE_ROWS = ["a7 d7 g7", "b6 d6 f6", "c5 d5 e5", "a4 b4 c4 e4 f4 g4", "c3 d3 e3",
             "b2 d2 f2", "a1 d1 g1"]
NINE_MILLS = ["a7 d7 g7", "b6 d6 f6", "c5 d5 e5", "a4 b4 c4", "e4 f4 g4", "c3 d3 e3",
              "b2 d2 f2", "a1 d1 g1",
              "a7 a4 a1", "b6 b4 b2", "c5 c4 c3", "d7 d6 d5", "d3 d2 d1", "e5 e4 e3",
              "f6 f4 f2", "g7 g4 g1"]
NINE_LINKS: list[str] = []

BOARDS = {3: (THREE_ROWS, THREE_MILLS, THREE_LINKS), 6: (SIX_ROWS, SIX_MILLS, SIX_LINKS),
          9: (NINE_ROWS, NINE_MILLS, NINE_LINKS)}


class Morris:
    puzzle = False

    def __init__(self, men: int = 3):
        self.men = men
        rows, mills, links = BOARDS[men]
        self.rows = [r.split() for r in rows]
        self.points = [p for r in self.rows for p in r]
        self.mills = [m.split() for m in mills]
        self.nbrs: dict[str, set[str]] = {p: set() for p in self.points}
        for line in self.mills + [x.split() for x in links]:
            for a, b in zip(line, line[1:], strict=False):
                self.nbrs[a].add(b)
                self.nbrs[b].add(a)
        self.flying = men == 9
        self.capture = men != 3

    # -- strings -------------------------------------------------------------------------
    def start(self) -> str:
        return self.show({p: "-" for p in self.points}, "w", self.men, self.men)

    def parse(self, s: str):
        board_txt, side, hw, hb = s.split()
        cells = board_txt.replace("/", "")
        return dict(zip(self.points, cells, strict=True)), side, int(hw), int(hb)

    def show(self, board, side, hw, hb) -> str:
        rows = "/".join("".join(board[p] for p in r) for r in self.rows)
        return f"{rows} {side} {hw} {hb}"

    # -- rules ---------------------------------------------------------------------------
    def in_line(self, board, p, piece) -> bool:
        return any(p in m and all(board[q] == piece for q in m) for m in self.mills)

    def has_line(self, board, piece) -> bool:
        return any(all(board[q] == piece for q in m) for m in self.mills)

    def _moves(self, board, side, hw, hb):
        """(board after the piece went from src to dst) pairs for every legal move."""
        me = side.upper()
        hand = hw if side == "w" else hb
        out = []
        if hand > 0:
            for p in self.points:
                if board[p] == "-":
                    nb = dict(board)
                    nb[p] = me
                    out.append((nb, p))
            return out
        mine = [p for p in self.points if board[p] == me]
        for src in mine:
            if self.flying and len(mine) == 3:
                targets = [p for p in self.points if board[p] == "-"]
            else:
                targets = [p for p in self.nbrs[src] if board[p] == "-"]
            for dst in targets:
                nb = dict(board)
                nb[src] = "-"
                nb[dst] = me
                out.append((nb, dst))
        return out

    def primitive(self, s: str) -> int:
        board, side, hw, hb = self.parse(s)
        me = side.upper()
        them = "B" if me == "W" else "W"
        if not self.capture and self.has_line(board, them):
            return LOSE
        hand = hw if side == "w" else hb
        if sum(1 for p in self.points if board[p] == me) + hand < 3:
            return LOSE
        if not self._moves(board, side, hw, hb):
            return LOSE
        return 0

    def children(self, s: str) -> list[str]:
        board, side, hw, hb = self.parse(s)
        me = side.upper()
        them = "B" if me == "W" else "W"
        if side == "w":
            nhw, nhb, other = max(0, hw - 1), hb, "b"
        else:
            nhw, nhb, other = hw, max(0, hb - 1), "w"
        out = []
        for nb, dst in self._moves(board, side, hw, hb):
            if self.capture and self.in_line(nb, dst, me):
                theirs = [p for p in self.points if nb[p] == them]
                loose = [p for p in theirs if not self.in_line(nb, p, them)]
                victims = loose or theirs
                if victims:
                    for v in victims:
                        nb2 = dict(nb)
                        nb2[v] = "-"
                        out.append(self.show(nb2, other, nhw, nhb))
                    continue
            out.append(self.show(nb, other, nhw, nhb))
        return out
