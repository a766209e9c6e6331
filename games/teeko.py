"""Teeko (John Scarne), GamesmanOne's rules, on an n x n board with p pieces a side.

Rules (GamesmanOne src/games/teeko/teeko.c; standard game: `size=5,pieces=4`):

* Drop phase: X first, the players drop their p pieces one at a time on empty squares.
  Move phase: a move slides one of your pieces to an adjacent empty square (8 directions).
  No passing, no repetition rule: loopy, draws are real.
* A pattern wins at once: p pieces of one side in a row (horizontal, vertical, diagonal),
  or (p = 4) on the corners of a 2x2 square; `advanced=1` (GamesmanOne's "Advanced"
  winning rule) adds the corners of every larger square (3x3, 4x4, 5x5 on 5x5: 14 more).
  As GamesmanOne: a position with a pattern is a LOSE for the player to move (only the
  last mover can have made one).

Differences from GamesmanOne: it has only the 5x5 board with 4 pieces; `size` (3..5) and
`pieces` (3..4, at most `size`) generalise it, for small test games. A player with no move
loses (never happens with these sizes; a safeguard of the game contract). GamesmanOne
solves every position of each tier with fewer than two patterns; gsolve solves the
positions reachable from the start, so counts compare on that set only. Symmetry: the 8
symmetries of the square (`canonical`, `orbit`): they map lines, squares and adjacency to
their own kind.

Position string: rows top first joined by '/', cells `X`, `O`, `-`, then a space and the
side to move `x`/`o` (it follows from the counts while dropping, and must agree).
Start (5x5): `-----/-----/-----/-----/----- x`. Moves (GamesmanOne's, with '-' for its
space): a drop `7` (square 1..n*n, reading order), a step `7-13`.

Hash: two generic hashes back to back: the drop phase (one combination per number of
pieces dropped, the side following from it), then the move phase (p of each, turn bit).
Tiers: GamesmanOne's, one per number dropped, then the move phase (its own child).
Un-moves: lift the last mover's piece (dropping), or step it back (moving; the first
moving-phase position also comes from the last drop).
"""

from __future__ import annotations

import numpy as np

from games import register
from games.base import LOSE, Game, PositionError, Tier, Variant, VariantError, forms
from games.common import line_table, mask_symmetries, orbit_masks, rank_image
from hashing import HashContext
from hashing.generic import combo_of, popcount, unrank_masks
from hashing.jit import njit

X, O, BLANK = 0, 1, 2
CHARS = "XO-"

# ctx = (drop hash, move hash, pattern masks, table T, common.mask_symmetries). The jitted
# rules work on bitboards (bit i: cell i in reading order), one mask per side; each comes
# plain and `_canonical` (solver/kernels/symmetry.py). T's slots:
N, P, DROP_SIZE, FULL = range(4)
ADJ = 4  # T[ADJ + i]: the cells next to cell i (8 directions)
# T[ADJ + n*n + i] .. T[ADJ + n*n + i + 1]: where in T the masks of the patterns through
# cell i are


def _table(n: int, p: int, drop_size: int, pats: list[int]) -> np.ndarray:
    """T: [n, p, drop hash size, all cells, adjacency masks (n*n), then for the patterns
    through each cell a CSR index (n*n + 1 positions in T) and the masks]."""
    nn = n * n
    adj = [sum(1 << (rr * n + cc) for rr in range(r - 1, r + 2) for cc in range(c - 1, c + 2)
               if 0 <= rr < n and 0 <= cc < n and (rr, cc) != (r, c))
           for r in range(n) for c in range(n)]
    through = [[m for m in pats if m >> i & 1] for i in range(nn)]
    base = ADJ + nn + nn + 1
    starts = [base]
    for lst in through:
        starts.append(starts[-1] + len(lst))
    return np.array([n, p, drop_size, (1 << nn) - 1] + adj + starts
                    + [m for lst in through for m in lst], dtype=np.int64)


@njit(cache=True, nogil=True, inline="always")
def _masks(ctx, h):
    """(side to move, pieces dropped (2p: all), X mask, O mask) of hash h."""
    t = ctx[3]
    if h < t[DROP_SIZE]:
        _turn, xm, om = unrank_masks(ctx[0], h)
        dropped = popcount(xm) + popcount(om)
        turn = dropped % 2
    else:
        turn, xm, om = unrank_masks(ctx[1], h - t[DROP_SIZE])
        dropped = 2 * t[P]
    return turn, dropped, xm, om


@njit(cache=True, nogil=True, inline="always")
def _hash_of(ctx, dropped):
    """(generic hash, its first hash) of the positions with `dropped` pieces down. Chosen
    once per call, outside the loops: a branch between the two contexts inside a loop
    costs reference counts on their arrays at every position ranked."""
    t = ctx[3]
    move = dropped >= 2 * t[P]
    return (ctx[1] if move else ctx[0]), (t[DROP_SIZE] if move else 0)


@njit(cache=True, nogil=True)
def has_pattern(pats, a):
    """Whether mask a fills a pattern (a call, not inlined: LLVM compiles a loop beside
    this early exit much worse)."""
    for j in range(pats.shape[0]):
        if (a & pats[j]) == pats[j]:
            return True
    return False


@njit(cache=True, nogil=True)
def _pattern_through(t, a, cell):
    """Whether mask a fills a pattern through `cell`."""
    at = ADJ + t[N] * t[N] + cell
    for j in range(t[at], t[at + 1]):
        if (a & t[j]) == t[j]:
            return True
    return False


@njit(cache=True, nogil=True, inline="always")
def _lowest(b):
    """Index of b's lowest set bit (b != 0)."""
    return popcount((b & -b) - 1)


@njit(cache=True, nogil=True)
def primitive(ctx, h, scratch):
    pats, t = ctx[2], ctx[3]
    if h < t[DROP_SIZE] and combo_of(ctx[0], h) < 2 * t[P] - 1:
        return 0  # no side has p pieces yet
    me, dropped, xm, om = _masks(ctx, h)
    if has_pattern(pats, xm) or has_pattern(pats, om):
        return LOSE
    if dropped == 2 * t[P]:
        mine = om if me else xm
        empty = t[FULL] & ~(xm | om)
        while mine:
            i = _lowest(mine)
            mine &= mine - 1
            if t[ADJ + i] & empty:
                return 0
        return LOSE
    return 0


@njit(cache=True, nogil=True, inline="always")
def _moves(ctx, me, dropped, xm, om, out, moves, canon):
    t, sym = ctx[3], ctx[4]
    nn = t[N] * t[N]
    empty = t[FULL] & ~(xm | om)
    mine = om if me else xm
    theirs = xm if me else om
    k = 0
    if dropped < 2 * t[P]:
        hc, off = _hash_of(ctx, dropped + 1)
        turn = 1 - me if dropped + 1 == 2 * t[P] else 0  # the drop hash has no turn bit
        b = empty
        while b:
            i = _lowest(b)
            b &= b - 1
            a = mine | (np.int64(1) << i)
            out[k] = off + rank_image(hc, sym, canon, xm if me else a, a if me else om,
                                      turn)
            moves[k] = i
            k += 1
    else:
        hc = ctx[1]
        off = t[DROP_SIZE]
        src = mine
        while src:
            i = _lowest(src)
            src &= src - 1
            rest = mine & ~(np.int64(1) << i)
            b = t[ADJ + i] & empty
            while b:
                d = _lowest(b)
                b &= b - 1
                a = rest | (np.int64(1) << d)
                out[k] = off + rank_image(hc, sym, canon, theirs if me else a,
                                          a if me else theirs, 1 - me)
                moves[k] = nn + i * nn + d
                k += 1
    return k


@forms("children", "expand", canonical=True)
@njit(cache=True, nogil=True, inline="always")
def _children(ctx, h, out, moves, scratch, canon, expand):
    """`children`, or (expand) `primitive` then `children` from one unranking (the
    solvers' hot loop): minus the value of a primitive position, else its number of
    children."""
    pats, t = ctx[2], ctx[3]
    me, dropped, xm, om = _masks(ctx, h)
    # fewer than 2p - 1 down: no side has p pieces yet
    if expand and dropped >= 2 * t[P] - 1 and (has_pattern(pats, xm)
                                               or has_pattern(pats, om)):
        return -LOSE
    k = _moves(ctx, me, dropped, xm, om, out, moves, canon)
    if expand and k == 0 and dropped == 2 * t[P]:  # no step (the drop phase always drops)
        return -LOSE
    return k


@forms("parents", canonical=True)
@njit(cache=True, nogil=True, inline="always")
def _parents(ctx, h, out, scratch, canon):
    """Un-drops and un-steps of the last mover. A parent has no pattern of the side to
    move here unless h has one (then none is returned), nor one of the last mover after
    an un-drop (p - 1 pieces); after an un-step only through the square stepped back to."""
    pats, t, sym = ctx[2], ctx[3], ctx[4]
    p2 = 2 * t[P]
    me, dropped, xm, om = _masks(ctx, h)
    mine = om if me else xm
    if dropped >= p2 - 1 and has_pattern(pats, mine):
        return 0
    prev = 1 - me
    theirs = xm if me else om  # the last mover's
    empty = t[FULL] & ~(xm | om)
    hd, doff = _hash_of(ctx, dropped - 1)  # un-drops
    hm = ctx[1]  # un-steps
    moff = t[DROP_SIZE]
    k = 0
    src = theirs
    while src:
        i = _lowest(src)
        src &= src - 1
        rest = theirs & ~(np.int64(1) << i)
        # un-drop: while dropping, and into the last drop (O's) from the move phase
        if 0 < dropped < p2 or (dropped == p2 and prev == O):
            out[k] = doff + rank_image(hd, sym, canon, rest if prev == X else mine,
                                       mine if prev == X else rest, 0)
            k += 1
        if dropped == p2:  # un-step from an adjacent empty square
            b = t[ADJ + i] & empty
            while b:
                s = _lowest(b)
                b &= b - 1
                a = rest | (np.int64(1) << s)
                if not _pattern_through(t, a, s):
                    out[k] = moff + rank_image(hm, sym, canon, a if prev == X else mine,
                                               mine if prev == X else a, prev)
                    k += 1
    return k


@njit(cache=True, nogil=True)
def canonical(ctx, h, scratch):
    me, dropped, xm, om = _masks(ctx, h)
    hc, off = _hash_of(ctx, dropped)
    return off + rank_image(hc, ctx[4], True, xm, om, me if dropped == 2 * ctx[3][P] else 0)


@njit(cache=True, nogil=True)
def orbit(ctx, h, scratch):
    _me, _dropped, xm, om = _masks(ctx, h)
    return orbit_masks(ctx[4], xm, om)


def patterns(n: int, p: int, advanced: bool) -> np.ndarray:
    """Cells of every winning pattern: lines of p, and (p = 4) square corners."""
    pats = [list(line) for line in line_table(n, n, p)]
    if p == 4:
        for s in range(1, n if advanced else 2):
            for r in range(n - s):
                for c in range(n - s):
                    pats.append([r * n + c, r * n + c + s, (r + s) * n + c,
                                 (r + s) * n + c + s])
    return np.array(pats, dtype=np.int64)


@register
class Teeko(Game):
    name = "teeko"
    title = "Teeko"
    loopy = True
    variants = {
        "size": Variant(4, 3, 5, "board side (5: the standard game, a draw: "
                                 "--method tiers --symmetry solves it in about a minute "
                                 "within 1 GiB)"),
        "pieces": Variant(4, 3, 4, "pieces a side; a pattern is a line of them (4: or a square)"),
        "advanced": Variant(0, 0, 1, "1: corners of any square win too (pieces=4)"),
    }

    def __init__(self, **variant):
        super().__init__(**variant)
        self.n, self.p = n, p = self.variant["size"], self.variant["pieces"]
        if p > n:
            raise VariantError(f"teeko variant pieces={p} needs size >= {p} (size={n})")
        if self.variant["advanced"] and p != 4:
            raise VariantError("teeko variant advanced=1 needs pieces=4")
        nn = n * n
        cells = [(0, nn)] * 3
        self.drop = HashContext(nn, cells, combos=[((t + 1) // 2, t // 2, nn - t)
                                                   for t in range(2 * p)])
        self.move = HashContext(nn, cells, combos=[(p, p, nn - 2 * p)], turn=True)
        pats = [sum(1 << int(c) for c in pat)
                for pat in patterns(n, p, bool(self.variant["advanced"]))]
        self.ctx = (self.drop.nb, self.move.nb, np.array(pats, dtype=np.int64),
                    _table(n, p, self.drop.size, pats), mask_symmetries(n))
        self.hash_size = self.drop.size + self.move.size
        self.max_children = max(nn, 8 * p)
        self.max_parents = 9 * p
        self.scratch_size = 0
        self.max_remoteness = 4095
        self.start = 0

    def tiers(self) -> list[Tier]:
        off, p2 = self.drop.offsets, 2 * self.p
        out = [Tier(f"{t} dropped", int(off[t]), int(off[t + 1]), (t + 1,)) for t in range(p2)]
        return out + [Tier("moving", self.drop.size, self.hash_size, (p2,))]

    def _split(self, h: int):
        if not 0 <= h < self.hash_size:
            raise PositionError(f"teeko hash {h} out of range")
        if h < self.drop.size:
            board, _ = self.drop.unrank(h)
            return board, int((board != BLANK).sum()) % 2
        return self.move.unrank(h - self.drop.size)

    def to_string(self, h: int) -> str:
        board, turn = self._split(h)
        n = self.n
        rows = "/".join("".join(CHARS[c] for c in board[r * n:(r + 1) * n]) for r in range(n))
        return f"{rows} {'xo'[turn]}"

    def from_string(self, s: str) -> int:
        n, p = self.n, self.p
        parts = s.split()
        if (len(parts) != 2 or parts[1] not in ("x", "o")
                or len(rows := parts[0].split("/")) != n or any(len(r) != n for r in rows)):
            raise PositionError(
                f"teeko position '{s}' should be {n} rows of {n} squares (X, O, -) joined by "
                f"'/', then a space and the side to move, e.g. '{'/'.join(['-' * n] * n)} x'")
        cells = "".join(rows)
        if bad := [ch for ch in cells if ch not in CHARS]:
            raise PositionError(f"teeko position '{s}': '{bad[0]}' is not X, O or -")
        board = np.array([CHARS.index(ch) for ch in cells], dtype=np.int8)
        turn = "xo".index(parts[1])
        nx, no = cells.count("X"), cells.count("O")
        if nx + no < 2 * p:
            if (nx, no) not in ((no, no), (no + 1, no)) or turn != nx - no:
                raise PositionError(
                    f"teeko position '{s}' cannot occur: X drops first, the sides alternate")
        elif (nx, no) != (p, p):
            raise PositionError(f"teeko position '{s}': each side has {p} pieces")
        side = sum(1 << i for i, ch in enumerate(cells) if ch == "XO"[turn])
        if any(side & m == m for m in self.ctx[2].tolist()):
            raise PositionError(
                f"teeko position '{s}' cannot occur: the side to move has a pattern")
        if nx + no < 2 * p:
            return self.drop.rank(board)
        return self.drop.size + self.move.rank(board, turn)

    def move_name(self, h: int, code: int) -> str:
        nn = self.n * self.n
        if code < nn:
            return str(code + 1)
        src, dst = divmod(code - nn, nn)
        return f"{src + 1}-{dst + 1}"

