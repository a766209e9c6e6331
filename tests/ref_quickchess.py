"""Reference rules of quick chess endings, plain Python, for the tests only.

Independent of games/ and solver/: positions are the strings of the game ('ROWS SIDE',
rows top first, `KQRBNP` white, `kqrbnp` black, `-` empty), squares are (file, rank)
pairs with rank 1 at the bottom, and the rules are written out from the chess rules as
gsolve states them: pawns step one forward, capture one diagonally forward and promote on
the far rank to Q, R, B or N; no castling, no double step; a move may not leave the own
king attacked; kings are never captured. The side to move with no legal move loses when in
check (mate) and ties otherwise (stalemate); the kings alone, or with a single bishop or
knight besides, tie at once. The start puts the named pieces on their home squares (R a,
B b, K c, Q d, N e of the back rank; pawns on the next rank, White's from file a
rightwards and Black's from the last file leftwards), White to move.
"""

from __future__ import annotations

LOSE, TIE = 1, 3

ROOK_DIRS = [(1, 0), (-1, 0), (0, 1), (0, -1)]
BISHOP_DIRS = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
KNIGHT_JUMPS = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]


class QuickChess:
    puzzle = False

    def __init__(self, pieces: str, files: int = 5, ranks: int = 6):
        self.pieces, self.files, self.ranks = pieces, files, ranks

    # -- positions as dicts {(file, rank): letter} -----------------------------------------
    def parse(self, s: str):
        rows, side = s.split()
        board = {}
        for i, row in enumerate(rows.split("/")):
            rank = self.ranks - i
            for f, ch in enumerate(row):
                if ch != "-":
                    board[(f, rank)] = ch
        return board, side

    def show(self, board, side) -> str:
        rows = []
        for rank in range(self.ranks, 0, -1):
            rows.append("".join(board.get((f, rank), "-") for f in range(self.files)))
        return "/".join(rows) + " " + side

    def start(self) -> str:
        home = {"R": 0, "B": 1, "K": 2, "Q": 3, "N": 4}
        board = {}
        for white in (True, False):
            back, front = (1, 2) if white else (self.ranks, self.ranks - 1)
            mine = [ch for ch in self.pieces if ch.isupper() == white]
            pawn_file, step = (0, 1) if white else (self.files - 1, -1)
            for ch in mine:
                if ch.upper() == "P":
                    board[(pawn_file, front)] = ch
                    pawn_file += step
                else:
                    board[(home[ch.upper()], back)] = ch
        return self.show(board, "w")

    # -- rules ----------------------------------------------------------------------------------
    def on_board(self, f, r):
        return 0 <= f < self.files and 1 <= r <= self.ranks

    @staticmethod
    def white(ch):
        return ch.isupper()

    def attacks(self, board, sq, white) -> bool:
        """Whether the side `white` attacks square sq."""
        f, r = sq
        for (pf, pr), ch in board.items():
            if ch.isupper() != white:
                continue
            kind = ch.upper()
            df, dr = f - pf, r - pr
            if kind == "K" and max(abs(df), abs(dr)) == 1:
                return True
            if kind == "N" and (abs(df), abs(dr)) in ((1, 2), (2, 1)):
                return True
            if kind == "P" and abs(df) == 1 and dr == (1 if white else -1):
                return True
            if kind in "QRB" and (df, dr) != (0, 0):
                straight = df == 0 or dr == 0
                diagonal = abs(df) == abs(dr)
                if (kind == "R" and not straight) or (kind == "B" and not diagonal) or \
                        (kind == "Q" and not (straight or diagonal)):
                    continue
                sf = (df > 0) - (df < 0)
                sr = (dr > 0) - (dr < 0)
                x, y = pf + sf, pr + sr
                clear = True
                while (x, y) != (f, r):
                    if (x, y) in board:
                        clear = False
                        break
                    x, y = x + sf, y + sr
                if clear:
                    return True
        return False

    def in_check(self, board, white) -> bool:
        king = "K" if white else "k"
        sq = next(s for s, ch in board.items() if ch == king)
        return self.attacks(board, sq, not white)

    def pseudo_moves(self, board, white):
        """(from, to, promotion letter or None) for every move ignoring own-king safety."""
        out = []
        for (f, r), ch in list(board.items()):
            if ch.isupper() != white:
                continue
            kind = ch.upper()

            def target_ok(sq):
                other = board.get(sq)
                return other is None or (other.isupper() != white and other.upper() != "K")

            if kind in "KN":
                steps = KNIGHT_JUMPS if kind == "N" else ROOK_DIRS + BISHOP_DIRS
                for df, dr in steps:
                    sq = (f + df, r + dr)
                    if self.on_board(*sq) and target_ok(sq):
                        out.append(((f, r), sq, None))
            elif kind in "QRB":
                dirs = {"Q": ROOK_DIRS + BISHOP_DIRS, "R": ROOK_DIRS, "B": BISHOP_DIRS}[kind]
                for df, dr in dirs:
                    x, y = f + df, r + dr
                    while self.on_board(x, y):
                        if target_ok((x, y)):
                            out.append(((f, r), (x, y), None))
                        if (x, y) in board:
                            break
                        x, y = x + df, y + dr
            else:
                dr = 1 if white else -1
                last = self.ranks if white else 1
                for df in (-1, 0, 1):
                    sq = (f + df, r + dr)
                    if not self.on_board(*sq):
                        continue
                    other = board.get(sq)
                    if df == 0:
                        ok = other is None
                    else:
                        ok = other is not None and other.isupper() != white \
                            and other.upper() != "K"
                    if ok:
                        if sq[1] == last:
                            for p in "QRBN":
                                out.append(((f, r), sq, p if white else p.lower()))
                        else:
                            out.append(((f, r), sq, None))
        return out

    def legal(self, s: str):
        """(resulting board, side) of every legal move."""
        board, side = self.parse(s)
        white = side == "w"
        out = []
        for frm, to, promo in self.pseudo_moves(board, white):
            nb = dict(board)
            piece = nb.pop(frm)
            nb[to] = promo or piece
            if not self.in_check(nb, white):
                out.append(nb)
        return out, "b" if white else "w"

    def primitive(self, s: str) -> int:
        board, side = self.parse(s)
        others = sorted(ch.upper() for ch in board.values() if ch.upper() != "K")
        if others in ([], ["B"], ["N"]):
            return TIE
        boards, _ = self.legal(s)
        if boards:
            return 0
        return LOSE if self.in_check(board, side == "w") else TIE

    def children(self, s: str) -> list[str]:
        boards, side = self.legal(s)
        return [self.show(b, side) for b in boards]
