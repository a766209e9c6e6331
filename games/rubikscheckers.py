"""Rubik's checkers: checkers with two-sided pieces (king / man), all starting as kings.

Rules as implemented (our exact reading of the notes):
* Played on the dark squares of a `width` x `height` board; the bottom-left square (a1)
  is dark, so a square is dark when (column + rank counted from the bottom) is even.
* White fills the dark squares of the bottom `rows` rows, black those of the top `rows`
  rows; every piece starts as a king. White moves first; players alternate, no passing.
* A king steps one square diagonally in any of the four directions onto an empty square,
  or jumps diagonally over an adjacent enemy piece onto the empty square just beyond it.
  A jumped king is not removed: it is turned over and becomes a man. A jumped man is
  removed. Jumps are optional (no forced capture) and single (a move is one jump, never
  a multi-jump).
* A man only steps one square diagonally backward (toward its own home row: down for
  white, up for black) onto an empty square, and never jumps.
* A man that reaches its own home row (white: the bottom row, black: the top row) is
  turned back into a king at once. (A piece on an edge row cannot be jumped, so a man
  never stands on its own home row in play.)
* A player with no legal move (no pieces is one case) loses. Kings can move back and
  forth, so the game is loopy and draws are real.

Position string: rows top first joined by '/', every square written: `.` a light square,
`-` an empty dark square, `W` / `w` a white king / man, `B` / `b` a black king / man, then
a space and the side to move `w` or `b`. Start 4x4: `.B.B/-.-./.-.-/W.W. w`.

Moves are named from square and to square (file letter, rank number from the bottom)
joined by `-` for a step and `x` for a jump: `a1-b2`, `b2xd4`.

Hash: the generic hash over the dark squares only (top row first, left to right) with 5
types (W king, W man, B king, B man, empty), white pieces 0..(white's start count), black
pieces 0..(black's start count), and a turn bit (0 = white to move). The combinations
are ordered by (white pieces + black pieces, white pieces, black pieces) so that every
(white pieces, black pieces) count pair is a contiguous block: one tier. Demotions and
promotions keep the counts (each tier lists itself among its children); removing a
jumped man leads to the tier with one piece fewer of that colour.

`parents` (un-moves) is exact: king steps, a man's step onto its home row (the king
there was a man), man steps, and king jumps (the jumped square held a king that is now a
man, or a man that is now gone), so retrograde is the default method.
"""

from __future__ import annotations

import numpy as np

from games import register
from games.base import LOSE, Game, PositionError, Tier, Variant, VariantError, parse_board
from hashing import HashContext
from hashing.generic import rank, unrank
from hashing.jit import njit

WK, WM, BK, BM, EMPTY = 0, 1, 2, 3, 4
CHARS = "WwBb-"
# directions (row delta, column delta), rows counted from the top
DIRS = ((-1, -1), (-1, 1), (1, -1), (1, 1))


@njit(cache=True, nogil=True)
def _scan(ctx, board, turn, out, moves, count_only):
    """Enumerate the mover's moves; write children when count_only is False.
    Returns the number of moves (or 1 as soon as one exists when count_only)."""
    hctx, dims, step, jump, rowof = ctx
    ncells = dims[0]
    home = dims[1] if turn == 0 else 0  # the mover's home row (top-first index)
    back = 2 if turn == 0 else 0  # first of the two backward direction indices
    king = WK if turn == 0 else BK
    man = WM if turn == 0 else BM
    eking = BK if turn == 0 else WK
    eman = BM if turn == 0 else WM
    nxt = 1 - turn
    n = 0
    for src in range(ncells):
        p = board[src]
        if p == king:
            for d in range(4):
                dst = step[src, d]
                if dst < 0:
                    continue
                q = board[dst]
                if q == EMPTY:
                    if count_only:
                        return 1
                    board[src] = EMPTY
                    board[dst] = king
                    out[n] = rank(hctx, board, nxt)
                    moves[n] = src * ncells + dst
                    n += 1
                    board[dst] = EMPTY
                    board[src] = king
                elif q == eking or q == eman:
                    land = jump[src, d]
                    if land < 0 or board[land] != EMPTY:
                        continue
                    if count_only:
                        return 1
                    board[src] = EMPTY
                    board[land] = king
                    board[dst] = eman if q == eking else EMPTY
                    out[n] = rank(hctx, board, nxt)
                    moves[n] = src * ncells + land
                    n += 1
                    board[dst] = q
                    board[land] = EMPTY
                    board[src] = king
        elif p == man:
            for d in range(back, back + 2):
                dst = step[src, d]
                if dst < 0 or board[dst] != EMPTY:
                    continue
                if count_only:
                    return 1
                board[src] = EMPTY
                board[dst] = king if rowof[dst] == home else man
                out[n] = rank(hctx, board, nxt)
                moves[n] = src * ncells + dst
                n += 1
                board[dst] = EMPTY
                board[src] = man
    return n


@njit(cache=True, nogil=True)
def primitive(ctx, h, scratch):
    turn = unrank(ctx[0], h, scratch)
    out = ctx[1][:0]  # count_only writes nothing: no array to allocate
    if _scan(ctx, scratch, turn, out, out, True) == 0:
        return LOSE
    return 0


@njit(cache=True, nogil=True)
def children(ctx, h, out, moves, scratch):
    """Move code: from_cell * ncells + to_cell (dark-square indices, top row first)."""
    turn = unrank(ctx[0], h, scratch)
    return _scan(ctx, scratch, turn, out, moves, False)


@njit(cache=True, nogil=True)
def parents(ctx, h, out, scratch):
    """Un-moves of the side that just moved: every position with h among its children."""
    hctx, dims, step, jump, rowof = ctx
    ncells = dims[0]
    turn = unrank(hctx, h, scratch)
    m = 1 - turn  # the side that made the last move, to move in the parent
    board = scratch
    home = dims[1] if m == 0 else 0
    fwd = 0 if m == 0 else 2  # directions from a man's square back to where it came from
    king = WK if m == 0 else BK
    man = WM if m == 0 else BM
    eking = BK if m == 0 else WK
    eman = BM if m == 0 else WM
    n = 0
    for dst in range(ncells):
        p = board[dst]
        if p == king:
            for d in range(4):
                src = step[dst, d]
                if src < 0 or board[src] != EMPTY:
                    continue
                board[dst] = EMPTY
                board[src] = king  # a king's step
                r = rank(hctx, board, m)
                if r >= 0:
                    out[n] = r
                    n += 1
                if rowof[dst] == home and d >= fwd and d < fwd + 2:
                    board[src] = man  # a man's step onto its home row, promoted
                    r = rank(hctx, board, m)
                    if r >= 0:
                        out[n] = r
                        n += 1
                board[src] = EMPTY
                board[dst] = king
            for d in range(4):
                mid = step[dst, d]
                src = jump[dst, d]
                if src < 0 or board[src] != EMPTY:
                    continue
                q = board[mid]
                if q == eman:
                    before = eking  # a king jumped there was demoted
                elif q == EMPTY:
                    before = eman  # a man jumped there was removed
                else:
                    continue
                board[dst] = EMPTY
                board[src] = king
                board[mid] = before
                r = rank(hctx, board, m)
                if r >= 0:
                    out[n] = r
                    n += 1
                board[mid] = q
                board[src] = EMPTY
                board[dst] = king
        elif p == man and rowof[dst] != home:
            for d in range(fwd, fwd + 2):
                src = step[dst, d]
                if src < 0 or board[src] != EMPTY:
                    continue
                board[dst] = EMPTY
                board[src] = man
                r = rank(hctx, board, m)
                if r >= 0:
                    out[n] = r
                    n += 1
                board[src] = EMPTY
                board[dst] = man
    return n


@register
class RubiksCheckers(Game):
    name = "rubikscheckers"
    title = "Rubik's checkers"
    puzzle = False
    loopy = True
    variants = {
        "width": Variant(4, 2, 8, "columns"),
        "height": Variant(4, 3, 8, "rows"),
        "rows": Variant(1, 1, 3, "rows of pieces per side (2 * rows < height)"),
    }

    def __init__(self, **variant):
        super().__init__(**variant)
        w, ht, nr = self.variant["width"], self.variant["height"], self.variant["rows"]
        if 2 * nr >= ht:
            raise VariantError(
                f"rubikscheckers: rows={nr} needs height > {2 * nr} (got height={ht})")
        self.width, self.height, self.rows = w, ht, nr
        # dark squares: (column + rank from the bottom) even; rows top first
        self.dark = [(r, c) for r in range(ht) for c in range(w) if (c + ht - 1 - r) % 2 == 0]
        self.index = {rc: i for i, rc in enumerate(self.dark)}
        ncells = len(self.dark)
        self.ncells = ncells
        step = np.full((ncells, 4), -1, dtype=np.int64)
        jump = np.full((ncells, 4), -1, dtype=np.int64)
        for i, (r, c) in enumerate(self.dark):
            for d, (dr, dc) in enumerate(DIRS):
                step[i, d] = self.index.get((r + dr, c + dc), -1)
                jump[i, d] = self.index.get((r + 2 * dr, c + 2 * dc), -1)
        rowof = np.array([r for r, _ in self.dark], dtype=np.int64)
        board = np.full(ncells, EMPTY, dtype=np.int8)
        for i, (r, _) in enumerate(self.dark):
            if r >= ht - nr:
                board[i] = WK
            elif r < nr:
                board[i] = BK
        self.nwhite = int((board == WK).sum())
        self.nblack = int((board == BK).sum())
        nw0, nb0 = self.nwhite, self.nblack
        combos = []
        for nw in range(nw0 + 1):
            for nb in range(nb0 + 1):
                for wk in range(nw + 1):
                    for bk in range(nb + 1):
                        combos.append((wk, nw - wk, bk, nb - bk, ncells - nw - nb))
        combos.sort(key=lambda c: (c[0] + c[1] + c[2] + c[3], c[0] + c[1], c[2] + c[3], c))
        self.hash = HashContext(ncells, [(0, ncells)] * 5, turn=True, combos=combos)
        self.ctx = (self.hash.nb, np.array([ncells, ht - 1], dtype=np.int64), step, jump,
                    rowof)
        self.hash_size = self.hash.size
        self.max_children = 4 * max(nw0, nb0)
        # per piece: 4 king steps, 2 promoting man steps, 4 jumps
        self.max_parents = 10 * max(nw0, nb0)
        self.scratch_size = ncells
        self.max_remoteness = 4095
        self.start = self.hash.rank(board, 0)

    # -- tiers -----------------------------------------------------------------------
    def tiers(self) -> list[Tier]:
        groups: dict[tuple[int, int], list[int]] = {}
        for i, c in enumerate(self.hash.combos):
            groups.setdefault((c[0] + c[1], c[2] + c[3]), []).append(i)
        keys = list(groups)
        pos = {k: i for i, k in enumerate(keys)}
        out = []
        for (nw, nb), idx in groups.items():
            assert idx == list(range(idx[0], idx[-1] + 1))
            kids = [pos[nw, nb]]
            for key in ((nw - 1, nb), (nw, nb - 1)):
                if key in pos:
                    kids.append(pos[key])
            out.append(Tier(f"{nw}W {nb}B", int(self.hash.offsets[idx[0]]),
                            int(self.hash.offsets[idx[-1] + 1]), tuple(kids)))
        return out

    # -- positions -------------------------------------------------------------------
    def to_string(self, h: int) -> str:
        if not 0 <= h < self.hash_size:
            raise PositionError(
                f"rubikscheckers hash {h} is out of range 0..{self.hash_size - 1}")
        board, turn = self.hash.unrank(h)
        grid = [["."] * self.width for _ in range(self.height)]
        for i, (r, c) in enumerate(self.dark):
            grid[r][c] = CHARS[board[i]]
        return "/".join("".join(row) for row in grid) + " " + "wb"[turn]

    def from_string(self, s: str) -> int:
        text = s.strip()
        board_text, sep, side = text.partition(" ")
        side = side.strip()
        if not sep or side not in ("w", "b"):
            raise PositionError(
                f"rubikscheckers position '{s}' should be a board, a space and the side to "
                f"move ('w' or 'b'), e.g. '{self.to_string(self.start)}'")
        cells = parse_board(board_text, [self.width] * self.height, CHARS + ".", self.name)
        board = np.full(self.ncells, EMPTY, dtype=np.int8)
        for k, ch in enumerate(cells):
            rc = divmod(k, self.width)
            if rc in self.index:
                if ch == ".":
                    raise PositionError(
                        f"rubikscheckers position '{s}': square {self._name(rc)} is dark "
                        "and should be '-' or a piece, not '.'")
                board[self.index[rc]] = CHARS.index(ch)
            elif ch != ".":
                raise PositionError(
                    f"rubikscheckers position '{s}': square {self._name(rc)} is light "
                    "and should be '.'")
        nw = int(((board == WK) | (board == WM)).sum())
        nb = int(((board == BK) | (board == BM)).sum())
        if nw > self.nwhite or nb > self.nblack:
            raise PositionError(
                f"rubikscheckers position '{s}' cannot occur: {nw} white and {nb} black "
                f"pieces, more than the {self.nwhite} and {self.nblack} the game starts with")
        return self.hash.rank(board, 0 if side == "w" else 1)

    def move_name(self, h: int, code: int) -> str:
        src, dst = divmod(code, self.ncells)
        (r0, c0), (r1, c1) = self.dark[src], self.dark[dst]
        sep = "x" if abs(r1 - r0) == 2 else "-"
        return self._name((r0, c0)) + sep + self._name((r1, c1))

    def _name(self, rc) -> str:
        r, c = rc
        return "abcdefgh"[c] + str(self.height - r)

    def analysis_extras(self, solved) -> dict:
        info = solved.query()
        who = {"win": "white (first player) wins", "lose": "black (second player) wins",
               "draw": "a draw with perfect play", "tie": "a tie"}[info.value]
        best = [m.move for m in solved.best_moves()]
        notes = [f"start: {who}", "best first moves: " + (", ".join(best) or "none")]
        return {"outcome": who, "best_first_moves": best, "notes": notes}
