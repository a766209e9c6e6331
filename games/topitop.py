"""Topitop: build sandcastles on a 3x3 beach and crown them with your buckets.

Pieces: `castles` large sandcastles (L) and `castles` small sandcastles (S), shared by both
players, and `castles` buckets per player: blue (B) and red (R). The full game is
castles=2; the default castles=1 is a small variant that solves in a second.

Rules implemented (exactly):

* Blue moves first; players alternate; no passing, no repetition rule (loopy, draws real).
* A turn is either
  - a placement: put one piece from the reserve (a large or small sandcastle, or one of
    your own buckets) on an EMPTY square; or
  - a move: take the top 1, 2 or 3 pieces of a square (one piece, or a part of the stack
    from its top, or the whole stack), provided the topmost piece is a sandcastle or your
    own bucket, and put them, keeping their order, on one of the 8 adjacent squares.
* Stacking: a small sandcastle may rest on a large one; a bucket may rest on a small or a
  large sandcastle; nothing rests on a bucket; a large sandcastle rests only on the
  ground. A moved part must fit by its bottom piece on the target's top piece (or the
  target is empty). So the possible square contents are
  -, L, S, B, R, LS, SB, SR, LB, LR, LSB, LSR (bottom to top).
* A castle is a square holding L, S and a bucket (LSB or LSR). A player wins when every
  one of their `castles` buckets tops a castle; the player to move then has lost (LOSE).
  (Only the owner's move can complete or break one of their castles.)
* A legal move always exists (at least one square is empty, and at most 4 buckets exist,
  so some own bucket can always move), so no other primitive is needed.

Position string: three rows top first joined by '/', each row three cells joined by ',',
a cell being '-' or its pieces bottom to top; then a space and the side to move, 'b' or
'r'. Start: `-,-,-/-,-,-/-,-,- b`. Example: `LSB,-,S/-,L,-/R,-,B r`.

Move names: a placement is the piece letter then the square (1..9, reading order), e.g.
`L5`; a move is `from-to` for the top piece, `from-to/2` or `from-to/3` when lifting 2 or 3
pieces, e.g. `1-5/2`.

Hash: dense mixed-radix ranking of the 9 cells (12 contents each) restricted to boards
using at most `castles` of each piece kind (a count table over the pieces still unused
gives the place values), times 2 for the side to move: hash = 2 * rank + turn.
Sizes: castles=1: 18,200; castles=2: 6,022,136.
"""

from __future__ import annotations

import numpy as np

from games import register
from games.base import LOSE, WIN, Game, PositionError, Variant
from hashing.jit import njit

# cell contents, bottom to top; index = cell type
TYPES = ("-", "L", "S", "B", "R", "LS", "SB", "SR", "LB", "LR", "LSB", "LSR")
PIECES = "LSBR"
NT = len(TYPES)


def _tables(c: int):
    index = {t: i for i, t in enumerate(TYPES)}
    use = np.zeros((NT, 4), dtype=np.int64)
    for i, t in enumerate(TYPES):
        for ch in t.strip("-"):
            use[i, PIECES.index(ch)] += 1
    # lifting the top k pieces of a cell: what stays, what is lifted
    lift = np.full((NT, 4), -1, dtype=np.int64)
    stay = np.full((NT, 4), -1, dtype=np.int64)
    height = np.zeros(NT, dtype=np.int64)
    top = np.full(NT, -1, dtype=np.int64)
    for i, t in enumerate(TYPES):
        s = t.strip("-")
        height[i] = len(s)
        if s:
            top[i] = PIECES.index(s[-1])
        for k in range(1, len(s) + 1):
            lift[i, k] = index[s[len(s) - k:]]
            stay[i, k] = index[s[:len(s) - k] or "-"]
    # combine[dst, lifted]: contents after putting the lifted part on dst, -1 if illegal
    below = {"L": "", "S": "L", "B": "LS", "R": "LS"}  # tops each bottom piece may rest on
    combine = np.full((NT, NT), -1, dtype=np.int64)
    for d, dt in enumerate(TYPES):
        ds = dt.strip("-")
        for m, mt in enumerate(TYPES):
            ms = mt.strip("-")
            if not ms:
                continue
            if not ds or ds[-1] in below[ms[0]]:
                combine[d, m] = index[ds + ms]
    # count[i, l, s, b, r]: boards of cells i..8 using at most (l, s, b, r) pieces
    count = np.zeros((10, c + 1, c + 1, c + 1, c + 1), dtype=np.int64)
    count[9] = 1
    for i in range(8, -1, -1):
        for rem in np.ndindex(c + 1, c + 1, c + 1, c + 1):
            tot = 0
            for t in range(NT):
                left = tuple(rem[j] - use[t, j] for j in range(4))
                if min(left) >= 0:
                    tot += count[(i + 1, *left)]
            count[(i, *rem)] = tot
    adj = np.full((9, 9), -1, dtype=np.int64)
    for sq in range(9):
        r, col = divmod(sq, 3)
        n = 0
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                if (dr or dc) and 0 <= r + dr < 3 and 0 <= col + dc < 3:
                    adj[sq, n] = (r + dr) * 3 + col + dc
                    n += 1
    meta = np.array([c], dtype=np.int64)
    return (meta, use, lift, stay, height, top, combine, count, adj)


@njit(cache=True, nogil=True)
def _rank(ctx, board):
    meta, use, _lift, _stay, _height, _top, _combine, count, _adj = ctx
    c = meta[0]
    rl = c
    rs = c
    rb = c
    rr = c
    r = np.int64(0)
    for i in range(9):
        t = board[i]
        for u in range(t):
            a = rl - use[u, 0]
            b = rs - use[u, 1]
            x = rb - use[u, 2]
            y = rr - use[u, 3]
            if a >= 0 and b >= 0 and x >= 0 and y >= 0:
                r += count[i + 1, a, b, x, y]
        rl -= use[t, 0]
        rs -= use[t, 1]
        rb -= use[t, 2]
        rr -= use[t, 3]
    return r


@njit(cache=True, nogil=True)
def _unrank(ctx, r, board):
    meta, use, _lift, _stay, _height, _top, _combine, count, _adj = ctx
    c = meta[0]
    rl = c
    rs = c
    rb = c
    rr = c
    for i in range(9):
        for t in range(12):
            a = rl - use[t, 0]
            b = rs - use[t, 1]
            x = rb - use[t, 2]
            y = rr - use[t, 3]
            if a >= 0 and b >= 0 and x >= 0 and y >= 0:
                n = count[i + 1, a, b, x, y]
                if r < n:
                    board[i] = t
                    rl = a
                    rs = b
                    rb = x
                    rr = y
                    break
                r -= n


@njit(cache=True, nogil=True)
def primitive(ctx, h, scratch):
    c = ctx[0][0]
    turn = h & 1
    _unrank(ctx, h >> 1, scratch)
    blue = 0
    red = 0
    for i in range(9):
        if scratch[i] == 10:
            blue += 1
        elif scratch[i] == 11:
            red += 1
    mine = red if turn else blue
    theirs = blue if turn else red
    if theirs == c:
        return LOSE
    if mine == c:
        return WIN
    return 0


@njit(cache=True, nogil=True)
def children(ctx, h, out, moves, scratch):
    meta, use, lift, stay, height, top, combine, _count, adj = ctx
    c = meta[0]
    turn = h & 1
    nxt = 1 - turn
    _unrank(ctx, h >> 1, scratch)
    own = 2 + turn  # own bucket piece index (B=2, R=3)
    used0 = 0
    used1 = 0
    usedo = 0
    for i in range(9):
        t = scratch[i]
        used0 += use[t, 0]
        used1 += use[t, 1]
        usedo += use[t, own]
    n = 0
    # placements: piece p from the reserve onto an empty square
    for p in range(4):
        if p == 0:
            if used0 >= c:
                continue
        elif p == 1:
            if used1 >= c:
                continue
        elif p == own:
            if usedo >= c:
                continue
        else:
            continue
        for sq in range(9):
            if scratch[sq] == 0:
                scratch[sq] = p + 1  # types 1..4 are the single pieces L, S, B, R
                out[n] = (_rank(ctx, scratch) << 1) | nxt
                moves[n] = p * 9 + sq
                n += 1
                scratch[sq] = 0
    # moves: lift the top k pieces of src onto an adjacent square
    for src in range(9):
        t = scratch[src]
        if t == 0:
            continue
        tp = top[t]
        if tp != 0 and tp != 1 and tp != own:
            continue
        for k in range(1, height[t] + 1):
            m = lift[t, k]
            s = stay[t, k]
            for j in range(8):
                dst = adj[src, j]
                if dst < 0:
                    break
                d = scratch[dst]
                nt = combine[d, m]
                if nt < 0:
                    continue
                scratch[src] = s
                scratch[dst] = nt
                out[n] = (_rank(ctx, scratch) << 1) | nxt
                moves[n] = 36 + (src * 9 + dst) * 3 + (k - 1)
                n += 1
                scratch[src] = t
                scratch[dst] = d
    return n


@register
class Topitop(Game):
    name = "topitop"
    title = "Topitop"
    loopy = True
    variants = {
        "castles": Variant(1, 1, 2, "large sandcastles = small sandcastles = buckets per "
                                    "player = castles needed to win (2: the full game)"),
    }

    def __init__(self, **variant):
        super().__init__(**variant)
        self.castles = c = self.variant["castles"]
        self.ctx = _tables(c)
        self.hash_size = int(self.ctx[7][0, c, c, c, c]) * 2
        self.max_children = 3 * 9 + 9 * 3 * 8
        self.scratch_size = 9
        self.max_remoteness = 4095
        self.start = self.from_string("-,-,-/-,-,-/-,-,- b")

    def to_string(self, h: int) -> str:
        if not 0 <= h < self.hash_size:
            raise PositionError(f"topitop hash {h} out of range")
        board = np.zeros(9, dtype=np.int8)
        _unrank(self.ctx, h >> 1, board)
        cells = [TYPES[t] for t in board]
        rows = "/".join(",".join(cells[r * 3:r * 3 + 3]) for r in range(3))
        return f"{rows} {'br'[h & 1]}"

    def from_string(self, s: str) -> int:
        parts = s.split()
        if len(parts) != 2 or parts[1] not in ("b", "r"):
            raise PositionError(
                f"topitop position '{s}' should be 3 rows joined by '/' then a space and "
                f"'b' or 'r' (the side to move), e.g. '-,-,-/-,L,-/-,-,- r'")
        rows = parts[0].split("/")
        if len(rows) != 3 or any(len(r.split(",")) != 3 for r in rows):
            raise PositionError(
                f"topitop position '{s}' should have 3 rows of 3 cells joined by ','")
        cells = [x for r in rows for x in r.split(",")]
        board = []
        for x in cells:
            if x not in TYPES:
                raise PositionError(
                    f"topitop position '{s}': '{x}' is not a cell (one of "
                    f"{' '.join(TYPES)}, pieces bottom to top)")
            board.append(TYPES.index(x))
        c = self.castles
        for p in PIECES:
            n = sum(x.count(p) for x in cells)
            if n > c:
                raise PositionError(
                    f"topitop position '{s}' has {n} pieces '{p}' but castles={c} allows "
                    f"at most {c}")
        b = np.array(board, dtype=np.int8)
        return int(_rank(self.ctx, b)) * 2 + (parts[1] == "r")

    def move_name(self, h: int, code: int) -> str:
        if code < 36:
            return f"{PIECES[code // 9]}{code % 9 + 1}"
        code -= 36
        k = code % 3 + 1
        src, dst = divmod(code // 3, 9)
        return f"{src + 1}-{dst + 1}" + (f"/{k}" if k > 1 else "")
