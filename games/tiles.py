"""Tiles: the rotate-the-wires logic puzzle (a loopy one-player puzzle).

Rules: a `width` x `height` grid of wire tiles. Each tile has connectors on some of its four
sides: an end (1 connector), a straight (2 opposite), a corner (2 adjacent) or a tee (3);
there are no crosses and no blank tiles. One tile is the source. A move turns one tile a
quarter turn clockwise. A straight looks the same after two quarter turns, so it has 2
rotation states and a quarter turn flips between them; the other tiles have 4. The puzzle
is solved (a goal: WIN, remoteness 0, no further moves) when every connector meets a
connector of the neighbouring tile (no loose end, none pointing off the board) and every
tile is connected to the source through such joins (lit). Remoteness = fewest quarter
turns to a goal. Every position can be turned into every other, so every reachable
position is a WIN; its remoteness is the smallest, over the goals, of the clockwise turns
that each tile needs, (goal - now) mod its number of states, summed over the tiles.

Instances (variant `seed`): a random spanning tree of the grid graph gives the tiles'
connectors, so each instance has a solution. Exactly: rng = random.Random(seed); the edge
list is every horizontal edge (r,c)-(r,c+1) in reading order, then every vertical edge
(r,c)-(r+1,c) in reading order; rng.shuffle(edges); Kruskal keeps each edge that joins two
components; if some cell gets 4 connectors (a cross) the shuffle-and-Kruskal is repeated
with the same rng. Then source = rng.randrange(width*height), then each cell is turned
rng.randrange(4) quarter turns clockwise from the tree, in reading order, and the turns are
drawn again while the result is already solved.

Position string: rows top first joined by '/', one hex digit per tile giving the sides its
connectors are on, N=1, E=2, S=4, W=8 (so 1 2 4 8 ends, 5 A straights, 3 6 C 9 corners,
7 B E D tees), then ' @row,col' (1-based) naming the source, e.g. the default start
`662/197/4A6 @3,2`. Upper or lower case is accepted; the ' @row,col' part may be left out,
but if given it must name this instance's source. A string whose tiles are not turns of
this instance's tiles is refused. Moves are named `r<row>c<col>` (1-based): turn that tile
clockwise.

Hash: mixed radix over the tiles' rotation states, tile 0 (top left) least significant:
h = sum_i r_i * prod_{j<i} p_j, where p_i is 2 for a straight and 4 otherwise and r_i counts
the clockwise quarter turns from the tile's canonical orientation (the one with the
smallest N/E/S/W bit mask). The radices are 2 and 4, so each digit is a 1- or 2-bit field
of h. Size prod p_i; every hash is a position. The rules read a position into four bit sets
of cells (the tiles with a connector on the north, east, south, west side): loose ends and
the flood fill from the source are a few shifts and masks.

`gsolve analyze tiles` also prints a shortest solution from the start (the tiles to turn,
in order), the boards drawn with box-drawing characters, and how many solved positions
(goals) and consistent non-solutions (every connector joined, but a closed loop keeps some
tiles dark) the instance has, found by a depth-first generate-and-test over the tiles.
"""

from __future__ import annotations

import random

import numpy as np

from games import register
from games.base import WIN, Game, PositionError, Variant, VariantError
from hashing.jit import njit

MAX_HASH = 1 << 30  # 2 GiB of records at 2 bytes a position; larger instances are refused

N_, E_, S_, W_ = 1, 2, 4, 8
DR = (-1, 0, 1, 0)  # direction d: 0 N, 1 E, 2 S, 3 W; its bit is 1 << d
DC = (0, 1, 0, -1)
HEX = "0123456789ABCDEF"
# box-drawing picture of each connector mask (for the analysis notes)
BOX = {1: "╵", 2: "╶", 4: "╷", 8: "╴", 5: "│", 10: "─", 3: "└", 6: "┌", 12: "┐",
       9: "┘", 7: "├", 14: "┬", 13: "┤", 11: "┴", 15: "┼", 0: " "}


def rot_cw(m: int) -> int:
    """The connector mask after a clockwise quarter turn (N->E->S->W->N)."""
    return ((m << 1) | (m >> 3)) & 15


def period(m: int) -> int:
    """Distinct orientations of a tile: 2 for a straight, 4 for ends, corners and tees."""
    return 2 if rot_cw(rot_cw(m)) == m else 4


def kind(m: int) -> str:
    n = bin(m).count("1")
    if n == 1:
        return "end"
    if n == 3:
        return "tee"
    if n == 2:
        return "straight" if m in (5, 10) else "corner"
    return "cross" if n == 4 else "blank"


def rotations(m: int) -> list[int]:
    """The masks of a tile by rotation state: canonical (smallest) first, then clockwise."""
    base = min(_turn(m, k) for k in range(4))
    return [_turn(base, k) for k in range(period(m))]


def _turn(m: int, k: int) -> int:
    for _ in range(k % 4):
        m = rot_cw(m)
    return m


def _neighbours(width: int, height: int) -> list[list[int]]:
    out = []
    for r in range(height):
        for c in range(width):
            row = []
            for d in range(4):
                rr, cc = r + DR[d], c + DC[d]
                row.append(rr * width + cc if 0 <= rr < height and 0 <= cc < width else -1)
            out.append(row)
    return out


def is_goal(masks: list[int], width: int, height: int, source: int) -> bool:
    """Plain-Python goal test (used while generating; the solver uses `primitive`)."""
    nb = _neighbours(width, height)
    for i, m in enumerate(masks):
        for d in range(4):
            if m >> d & 1:
                j = nb[i][d]
                if j < 0 or not masks[j] >> ((d + 2) % 4) & 1:
                    return False
    seen = {source}
    todo = [source]
    while todo:
        i = todo.pop()
        for d in range(4):
            j = nb[i][d]
            if masks[i] >> d & 1 and j not in seen:
                seen.add(j)
                todo.append(j)
    return len(seen) == len(masks)


def _find(comp: list[int], x: int) -> int:
    """Union-find root of x (with path halving)."""
    while comp[x] != x:
        comp[x] = comp[comp[x]]
        x = comp[x]
    return x


def generate(width: int, height: int, seed: int) -> tuple[list[int], int, list[int]]:
    """(the tree's connector masks, the source cell, the start's masks) of an instance."""
    n = width * height
    rng = random.Random(seed)
    edges = [(r * width + c, r * width + c + 1, 1)
             for r in range(height) for c in range(width - 1)]
    edges += [(r * width + c, (r + 1) * width + c, 2)
              for r in range(height - 1) for c in range(width)]
    for _ in range(10_000):
        rng.shuffle(edges)
        comp = list(range(n))
        masks = [0] * n
        for a, b, d in edges:  # d: direction from a to b (E or S)
            ra, rb = _find(comp, a), _find(comp, b)
            if ra != rb:
                comp[ra] = rb
                masks[a] |= 1 << d
                masks[b] |= 1 << ((d + 2) % 4)
        if all(m != 15 for m in masks):
            break
    else:  # pragma: no cover - a grid always has a cross-free tree
        raise VariantError(f"tiles: no spanning tree without a cross for seed {seed}")
    source = rng.randrange(n)
    while True:
        start = [_turn(m, rng.randrange(4)) for m in masks]
        if not is_goal(start, width, height, source):
            return masks, source, start


# -- numba rules -------------------------------------------------------------------------


# ctx = (params, bits, sides):
#   params: [width, height, tiles, source, first column, last column, top row, bottom row]
#           (the last four as bit sets of cells, cell i = bit i, reading order);
#   bits[i] = (shift, states - 1): tile i's rotation state is (h >> shift) & (states - 1);
#   sides[i, r, d] = bit i when tile i in state r has a connector on side d (0 N .. 3 W).
# A position is read into four bit sets of cells, one per side: N, E, S, W.


@njit(cache=True, nogil=True, inline="always")
def _boards(ctx, h):
    params, bits, sides = ctx
    n = params[2]
    bn = 0
    be = 0
    bs = 0
    bw = 0
    for i in range(n):
        r = (h >> bits[i, 0]) & bits[i, 1]
        bn |= sides[i, r, 0]
        be |= sides[i, r, 1]
        bs |= sides[i, r, 2]
        bw |= sides[i, r, 3]
    return bn, be, bs, bw


@njit(cache=True, nogil=True, inline="always")
def _bad_joins(params, bn, be, bs, bw):
    """(horizontal, vertical, border) bit sets of the bad joins: bit i of the first when
    tiles i and i+1 disagree (one has a connector toward the other, the other none), of
    the second when tiles i and i+width disagree, of the third when tile i points off
    the board."""
    w = params[0]
    first, last, top, bottom = params[4], params[5], params[6], params[7]
    horizontal = (be ^ (bw >> 1)) & ~last
    vertical = (bs ^ (bn >> w)) & ~bottom
    border = (be & last) | (bw & first) | (bn & top) | (bs & bottom)
    return horizontal, vertical, border


@njit(cache=True, nogil=True)
def primitive(ctx, h, scratch):
    params = ctx[0]
    bn, be, bs, bw = _boards(ctx, h)
    horizontal, vertical, border = _bad_joins(params, bn, be, bs, bw)
    if horizontal | vertical | border:
        return 0  # a loose end
    # every connector meets one: light the joined tiles from the source
    w = params[0]
    lit = np.int64(1) << params[3]
    while True:
        more = lit | ((lit & be) << 1) | ((lit & bw) >> 1) | ((lit & bs) << w) | (
            (lit & bn) >> w)
        if more == lit:
            break
        lit = more
    if lit == (np.int64(1) << params[2]) - 1:
        return WIN
    return 0


@njit(cache=True, nogil=True)
def children(ctx, h, out, moves, scratch):
    """Turn each tile a quarter turn clockwise (move code = the tile's index): its state
    goes up by one, wrapping to 0."""
    params, bits, _sides = ctx
    n = params[2]
    for i in range(n):
        s = bits[i, 0]
        top = bits[i, 1]
        r = (h >> s) & top
        out[i] = h + (np.int64(1) << s) if r < top else h - (r << s)
        moves[i] = i
    return n


@njit(cache=True, nogil=True)
def parents(ctx, h, out, scratch):
    """Turn each tile a quarter turn counter-clockwise, leaving out goals (a goal has no
    moves, so it is nobody's parent). Each tile gives a different parent. Turning tile i
    changes only the joins around i, so the parent can be a goal only when every bad join
    of h touches tile i; only then is it tested."""
    params, bits, _sides = ctx
    n = params[2]
    w = params[0]
    bn, be, bs, bw = _boards(ctx, h)
    horizontal, vertical, border = _bad_joins(params, bn, be, bs, bw)
    cnt = 0
    for i in range(n):
        s = bits[i, 0]
        top = bits[i, 1]
        r = (h >> s) & top
        q = h - (np.int64(1) << s) if r > 0 else h + (top << s)
        me = np.int64(1) << i
        if (horizontal & ~(me | (me >> 1))) == 0 and (vertical & ~(me | (me >> w))) == 0 \
                and (border & ~me) == 0 and primitive(ctx, q, scratch) != 0:
            continue  # q is a goal
        out[cnt] = q
        cnt += 1
    return cnt


# -- the game class ---------------------------------------------------------------------


@register
class Tiles(Game):
    name = "tiles"
    title = "Tiles (rotate the wires until every tile is lit)"
    puzzle = True
    loopy = True
    variants = {
        "width": Variant(3, 1, 6, "columns of tiles"),
        "height": Variant(3, 1, 6, "rows of tiles"),
        "seed": Variant(1, 0, 2**31 - 1, "instance number (random tree and scramble)"),
    }

    def __init__(self, **variant):
        super().__init__(**variant)
        w, h, seed = self.variant["width"], self.variant["height"], self.variant["seed"]
        n = w * h
        if n < 2:
            raise VariantError("tiles needs at least 2 tiles (width * height >= 2)")
        self.width, self.height, self.ntiles = w, h, n
        tree, source, start = self.instance()
        self.tree, self.source = tree, source
        self.rots = [rotations(m) for m in tree]  # per tile: masks by rotation state
        self.periods = [len(r) for r in self.rots]
        size = 1
        weights = []
        for p in self.periods:  # 2 or 4: each tile's digit is a 1- or 2-bit field
            weights.append(size)
            size *= p
        if size > MAX_HASH:
            raise VariantError(
                f"tiles width={w},height={h},seed={seed} has {size:,} positions: too many to "
                f"solve (at most {MAX_HASH:,}); try a smaller grid or another seed")
        self.weights = weights
        sides = np.zeros((n, 4, 4), np.int64)
        for i, rs in enumerate(self.rots):
            for r, m in enumerate(rs):
                for d in range(4):
                    sides[i, r, d] = (m >> d & 1) << i
        cells = [(i // w, i % w) for i in range(n)]
        first = sum(1 << i for i, (_, c) in enumerate(cells) if c == 0)
        last = sum(1 << i for i, (_, c) in enumerate(cells) if c == w - 1)
        top = sum(1 << i for i, (r, _) in enumerate(cells) if r == 0)
        bottom = sum(1 << i for i, (r, _) in enumerate(cells) if r == h - 1)
        bits = np.array([[x.bit_length() - 1, p - 1] for x, p in zip(weights, self.periods,
                                                                       strict=True)], np.int64)
        self.ctx = (np.array([w, h, n, source, first, last, top, bottom], np.int64), bits,
                    sides)
        self.hash_size = size
        self.start = self.hash_masks(start)
        self.max_children = n
        self.scratch_size = 1  # unused
        # each tile needs at most p - 1 clockwise turns to reach its place in any goal
        self.max_remoteness = sum(p - 1 for p in self.periods)

    def instance(self) -> tuple[list[int], int, list[int]]:
        """(connector masks of the solved tree, source cell, start masks), cells in reading
        order; a subclass may return a hand-made board of the same width and height."""
        v = self.variant
        return generate(v["width"], v["height"], v["seed"])

    # -- positions ------------------------------------------------------------------
    def masks_of(self, h: int) -> list[int]:
        out = []
        for rs in self.rots:
            h, r = divmod(h, len(rs))
            out.append(rs[r])
        return out

    def hash_masks(self, masks: list[int]) -> int:
        return sum(self.rots[i].index(m) * self.weights[i] for i, m in enumerate(masks))

    def cell_name(self, i: int) -> str:
        r, c = divmod(i, self.width)
        return f"r{r + 1}c{c + 1}"

    def to_string(self, h: int) -> str:
        chars = [HEX[m] for m in self.masks_of(h)]
        w = self.width
        rows = "/".join("".join(chars[i:i + w]) for i in range(0, len(chars), w))
        r, c = divmod(self.source, w)
        return f"{rows} @{r + 1},{c + 1}"

    def from_string(self, s: str) -> int:
        text = s.strip()
        board, at, mark = text.partition("@")
        board = board.strip()
        w, hgt = self.width, self.height
        if at:
            sr, sc = divmod(self.source, w)
            parts = mark.split(",")
            try:
                r, c = (int(x) for x in parts)
            except ValueError:
                raise PositionError(
                    f"tiles position '{s}': the source mark should read '@row,col', e.g. "
                    f"'@{sr + 1},{sc + 1}'") from None
            if (r - 1, c - 1) != (sr, sc):
                raise PositionError(
                    f"tiles position '{s}': this instance's source is at @{sr + 1},{sc + 1}, "
                    f"not @{r},{c}")
        rows = board.split("/")
        if len(rows) != hgt:
            raise PositionError(
                f"tiles position '{s}' should have {hgt} rows joined by '/'")
        masks = []
        for k, row in enumerate(rows):
            if len(row) != w:
                raise PositionError(
                    f"tiles position '{s}': row {k + 1} should have {w} tiles")
            for ch in row:
                if ch.upper() not in HEX:
                    raise PositionError(
                        f"tiles position '{s}': '{ch}' is not a tile (a hex digit of its "
                        "connectors, N=1 E=2 S=4 W=8)")
                masks.append(int(ch, 16))
        for i, m in enumerate(masks):
            if m not in self.rots[i]:
                want = " ".join(HEX[x] for x in self.rots[i])
                raise PositionError(
                    f"tiles position '{s}': tile {self.cell_name(i)} is '{HEX[m]}', but this "
                    f"instance has a {kind(self.tree[i])} there (one of {want})")
        return self.hash_masks(masks)

    def move_name(self, h: int, code: int) -> str:
        return self.cell_name(int(code))

    def picture(self, h: int) -> list[str]:
        """The board drawn with box-drawing characters, the source in brackets."""
        masks = self.masks_of(h)
        lines = []
        for r in range(self.height):
            cells = []
            for c in range(self.width):
                i = r * self.width + c
                ch = BOX[masks[i]]
                cells.append(f"[{ch}]" if i == self.source else f" {ch} ")
            lines.append("".join(cells))
        return lines

    # -- analysis ---------------------------------------------------------------------
    def solutions(self) -> list[int]:
        """Hashes of every goal (see `consistent_boards`)."""
        return self.consistent_boards()[0]

    def consistent_boards(self) -> tuple[list[int], list[int]]:
        """(goals, consistent non-solutions): every board where each connector meets the
        neighbour's, split by whether the source lights every tile (the others hold a
        closed loop of wire that the source does not reach). A depth-first
        generate-and-test over the tiles in reading order: each tile tries its
        orientations that agree with its placed north and west neighbours and with the
        board's edge."""
        w, hgt, n = self.width, self.height, self.ntiles
        placed = [0] * n
        found: list[int] = []
        loops: list[int] = []

        def fits(i, m):
            r, c = divmod(i, w)
            if (r == 0 and m & N_) or (r == hgt - 1 and m & S_):
                return False
            if (c == 0 and m & W_) or (c == w - 1 and m & E_):
                return False
            if r > 0 and bool(m & N_) != bool(placed[i - w] & S_):
                return False
            if c > 0 and bool(m & W_) != bool(placed[i - 1] & E_):
                return False
            return True

        def place(i):
            if i == n:
                lit = is_goal(placed, w, hgt, self.source)
                (found if lit else loops).append(self.hash_masks(placed))
                return
            for m in self.rots[i]:
                if fits(i, m):
                    placed[i] = m
                    place(i + 1)
            placed[i] = 0

        place(0)
        return sorted(found), sorted(loops)

    def turns(self, h: int, goal: int) -> int:
        """Clockwise quarter turns from h to goal (each tile turned on its own)."""
        total = 0
        for p in self.periods:
            h, a = divmod(h, p)
            goal, b = divmod(goal, p)
            total += (b - a) % p
        return total

    def shortest_solution(self, solved) -> list[tuple[str, str]]:
        """(move, position after) along the first best move at each step from the start."""
        pos = self.to_string(self.start)
        _, rem = solved.lookup(self.start)
        line = []
        while True:
            best = solved.best_moves(pos)
            if not best:
                break
            if len(line) >= (rem or 0):
                raise RuntimeError(f"tiles: best line from the start is longer than {rem}")
            line.append((best[0].move, best[0].position))
            pos = best[0].position
        return line

    def analysis_extras(self, solved) -> dict:
        line = self.shortest_solution(solved)
        moves = [m for m, _ in line]
        per_tile: dict[str, int] = {}
        for m in moves:
            per_tile[m] = per_tile.get(m, 0) + 1
        goals, traps = self.consistent_boards()
        kinds: dict[str, int] = {}
        for m in self.tree:
            kinds[kind(m)] = kinds.get(kind(m), 0) + 1
        end = self.from_string(line[-1][1]) if line else self.start
        notes = [
            "",
            "tiles: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
            + f"; source at {self.cell_name(self.source)}",
            f"solved positions: {len(goals)}; consistent non-solutions (every connector "
            f"joined, but a closed loop leaves tiles dark): {len(traps)}",
            f"shortest solution from the start ({len(moves)} quarter turns, the first best "
            "move at each step):",
            "  " + (" ".join(moves) if moves else "(already solved)"),
            "  turns per tile: " + (", ".join(f"{t} x{k}" for t, k in sorted(per_tile.items()))
                                    or "none"),
            f"  {'start':<{3 * self.width}}   solved",
        ]
        for a, b in zip(self.picture(self.start), self.picture(end), strict=True):
            notes.append(f"  {a}   {b}")
        notes.append(f"  solved position: {self.to_string(end)}")
        return {
            "shortest_solution": {"moves": moves, "positions": [p for _, p in line],
                                  "turns_per_tile": per_tile},
            "solutions": [self.to_string(g) for g in goals],
            "consistent_non_solutions": [self.to_string(t) for t in traps],
            "tile_kinds": kinds,
            "notes": notes,
        }
