"""Canonical Nine Men's Morris movement-phase boards per piece-count pair, three ways.

Usage: python benchmarks/morris_counts.py [--men 9] [--pairs 3-3,4-3,...] [--brute SLOTS]
                                         [--gasser] [--reached ROOT]

For every (W, B) pair with 3..men pieces each, White to move, all men placed (the
movement stage: one hash block of games/morris.py per pair and side to move; the side to
move does not change the board count), it prints

* boards: every arrangement, C(24, W) * C(24 - W, B);
* orbits: the boards up to the board's 16 symmetries by Burnside's lemma (the average
  number of boards each symmetry fixes, from its cycles); independent of the game's code;
* canonical: boards that are the least of their images, counted white set by white set
  with the game's symmetry table: a white set that is not the least of its images has no
  canonical board (keys order by the white mask first), one with no symmetry fixing it
  has all its black completions canonical, and only the few others check black sets;
* brute: `canonical(h) == h` over every hash of the pair's block (the game's own
  `canonical`, as the solvers call it), for blocks of at most SLOTS hashes (default
  60,000,000: a few minutes in all on one core; the whole of Nine has 1.4e11 slots).

With --reached ROOT it counts instead, from the database of the whole game solved with
`--symmetry` under ROOT (gsolve's --db), the canonical movement positions the opening
reaches, per ordered pair (men of the side to move - the opponent's) and side to move,
beside the boards of the pair up to symmetry.

Then the totals, against the published one: Gasser (1996) counts 7,673,759,269 states in
the 28 mid- and endgame databases after removing symmetric and some unreachable positions.
See docs/morris.md for the sources and the comparison.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from numba import njit

from games import get_game
from games.morris import board_symmetries, canonical, symmetry_table

GASSER_STATES = 7_673_759_269  # Gasser 1996, section 4.1 (MSRI Publications 29, p. 104)
GASSER_INDICES = 9_074_932_579  # the range of his hash function (p. 105)


def burnside(where: np.ndarray, w: int, b: int) -> int:
    """Boards with w white and b black pieces up to the symmetries `where` (point maps):
    the average over the symmetries of the boards each fixes, a board fixed by a
    permutation being one colour per cycle."""
    total = 0
    for perm in where:
        seen, cycles = set(), []
        for p in range(len(perm)):
            if p in seen:
                continue
            n, q = 0, p
            while q not in seen:
                seen.add(q)
                q = int(perm[q])
                n += 1
            cycles.append(n)
        ways = {(0, 0): 1}  # (white, black) points so far -> colourings of the cycles
        for n in cycles:
            nxt: dict[tuple[int, int], int] = {}
            for (x, y), c in ways.items():
                for dx, dy in ((0, 0), (n, 0), (0, n)):
                    if x + dx <= w and y + dy <= b:
                        nxt[(x + dx, y + dy)] = nxt.get((x + dx, y + dy), 0) + c
            ways = nxt
        total += ways.get((w, b), 0)
    assert total % len(where) == 0
    return total // len(where)


@njit(cache=True)
def _image(tab, s, m):
    at = s * 768
    return tab[at + (m & 255)] | tab[at + 256 + ((m >> 8) & 255)] | tab[at + 512 + (m >> 16)]


@njit(cache=True)
def _next_subset(v):
    """The next integer with as many set bits (Gosper's hack)."""
    t = v | (v - 1)
    return (t + 1) | (((~t & -~t) - 1) >> (_ctz(v) + 1))


@njit(cache=True)
def _ctz(v):
    n = 0
    while (v >> n) & 1 == 0:
        n += 1
    return n


@njit(cache=True)
def _spread(bits, free, n):
    """The low bits of `bits` placed on the set bits of `free` (n points)."""
    out = np.int64(0)
    j = 0
    for i in range(n):
        if (free >> i) & 1:
            if (bits >> j) & 1:
                out |= np.int64(1) << i
            j += 1
    return out


@njit(cache=True)
def _stabilizer(tab, nsym, x, fixers):
    """-1 when a symmetry maps mask x below itself; else how many non-identity symmetries
    fix x, written to fixers."""
    k = 0
    for s in range(1, nsym):
        img = _image(tab, s, x)
        if img < x:
            return -1
        if img == x:
            fixers[k] = s
            k += 1
    return k


@njit(cache=True)
def count_canonical(tab, n, w, b, binom):
    """Boards (w white, b black on n points) that are the least of their images, the
    key being the white mask above the black one (games/morris.py's `_least_image`)."""
    nsym = tab.shape[0] // 768
    fixers = np.empty(nsym, np.int64)
    total = np.int64(0)
    full = (np.int64(1) << n) - 1
    x = (np.int64(1) << w) - 1
    while x <= full:
        k = _stabilizer(tab, nsym, x, fixers)
        least = k >= 0
        if least:
            if k == 0:
                total += binom[n - w, b]
            else:
                free = full & ~x
                y = (np.int64(1) << b) - 1
                last = np.int64(1) << (n - w)
                while y < last:
                    ym = _spread(y, free, n)
                    ok = True
                    for j in range(k):
                        if _image(tab, fixers[j], ym) < ym:
                            ok = False
                            break
                    total += ok
                    y = _next_subset(y) if b > 0 else last
        if w == 0:
            break
        x = _next_subset(x)
    return total


def ring_orders(men: int) -> np.ndarray:
    """The permutations that keep Nine's lines but not its adjacency: the board's 16
    symmetries and any order of the three rings (48). They are symmetries of the 3-3
    positions, where both sides fly (Gasser: 'all rings are interchangeable')."""
    from games.morris import board_geometry

    pts = board_geometry(men)[0]
    index = {p: i for i, p in enumerate(pts)}
    c = 3
    swap = []  # inner <-> middle ring, same direction
    for x, y in pts:
        u, v = x - c, y - c
        d = max(abs(u), abs(v))
        e = {1: 2, 2: 1}.get(d, d)
        swap.append(index[(c + u // d * e, c + v // d * e)])
    group = {tuple(int(q) for q in row) for row in board_symmetries(men)}
    group.add(tuple(swap))
    while True:  # close under composition
        more = {tuple(a[i] for i in b) for a in group for b in group} - group
        if not more:
            return np.array(sorted(group), np.int64)
        group |= more


def need_table(mills: list[list[int]]) -> np.ndarray:
    """need[T] for every set T of lines (bit i: mills[i]): the fewest moves that can have
    closed them all, a move closing at most two, and two only through the point they
    share (the moved piece): |T| minus a largest matching of T's lines that share a
    point. Each such move took an opponent piece."""
    m = len(mills)
    share = [[i != j and bool(set(mills[i]) & set(mills[j])) for j in range(m)]
             for i in range(m)]
    need = np.zeros(1 << m, np.int8)

    def matching(lines: list[int]) -> int:
        if not lines:
            return 0
        first, rest = lines[0], lines[1:]
        best = matching(rest)  # the first line unmatched, or matched to a later one
        for j in rest:
            if share[first][j]:
                best = max(best, 1 + matching([x for x in rest if x != j]))
        return best

    for t in range(1 << m):
        lines = [i for i in range(m) if t >> i & 1]
        points = {p for i in lines for p in mills[i]}
        # more than nine points: no side holds them all (never looked up)
        need[t] = len(lines) - matching(lines) if len(points) <= 9 else 127
    return need


@njit(cache=True)
def _need(mask, mill_masks, need):
    t = 0
    for i in range(mill_masks.shape[0]):
        if mask & mill_masks[i] == mill_masks[i]:
            t |= 1 << i
    return need[t]


@njit(cache=True)
def count_reachable(tab, n, a, b, lim_a, lim_b, b_free, mill_masks, need, binom):
    """`count_canonical` of the boards whose first side (a pieces) has lines that need at
    most lim_a closing moves and whose second side (b pieces) at most lim_b: each
    closing took one of the other side's pieces, so a side's limit is the pieces the
    other has lost. The key orders the first side's mask first. b_free: no set of b
    points needs more than lim_b (then a first side that no symmetry fixes has every
    completion counted at once)."""
    nsym = tab.shape[0] // 768
    fixers = np.empty(nsym, np.int64)
    total = np.int64(0)
    full = (np.int64(1) << n) - 1
    x = (np.int64(1) << a) - 1
    last = np.int64(1) << (n - a)
    while x <= full:
        k = _stabilizer(tab, nsym, x, fixers)
        least = k >= 0
        if least and _need(x, mill_masks, need) <= lim_a and k == 0 and b_free:
            total += binom[n - a, b]
        elif least and _need(x, mill_masks, need) <= lim_a:
            free = full & ~x
            y = (np.int64(1) << b) - 1
            while y < last:
                ym = _spread(y, free, n)
                ok = _need(ym, mill_masks, need) <= lim_b
                j = 0
                while ok and j < k:
                    ok = _image(tab, fixers[j], ym) >= ym
                    j += 1
                total += ok
                y = _next_subset(y)
        x = _next_subset(x)
    return total


@njit(cache=True)
def most_need(n, k, mill_masks, need):
    """The largest `need` over the sets of k points."""
    best = 0
    x = (np.int64(1) << k) - 1
    while x < (np.int64(1) << n):
        best = max(best, _need(x, mill_masks, need))
        x = _next_subset(x)
    return best


@njit(cache=True)
def count_brute(ctx, start, stop, scratch):
    """Hashes h in [start, stop) with canonical(h) == h."""
    c = 0
    for h in range(start, stop):
        c += canonical(ctx, h, scratch) == h
    return c


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--men", type=int, default=9, choices=(6, 9))
    ap.add_argument("--pairs", default="", help="W-B pairs, e.g. 3-3,4-3 (default: all)")
    ap.add_argument("--brute", type=int, default=60_000_000,
                    help="brute-force blocks of at most this many hashes (0: none)")
    ap.add_argument("--gasser", action="store_true",
                    help="also count without the boards Gasser calls unreachable (Nine)")
    ap.add_argument("--reached", metavar="ROOT",
                    help="count the movement positions reached in the database under ROOT")
    a = ap.parse_args()
    men = a.men
    if a.reached:
        return reached(men, a.reached)
    g = get_game("morris", f"men={men}")
    n = g.npoints
    where = board_symmetries(men)
    tab = symmetry_table(where)
    binom = np.array([[math.comb(i, j) for j in range(n + 1)] for i in range(n + 1)],
                     np.int64)
    if a.pairs:
        pairs = [tuple(int(v) for v in p.split("-")) for p in a.pairs.split(",")]
    else:
        pairs = [(w, b) for w in range(3, men + 1) for b in range(3, men + 1)]
    stage = g.move_stage
    blocks = {(st, turn, w, bb): k for k, (st, turn, _c, w, bb) in enumerate(g.blocks)}
    scratch = np.zeros(g.scratch_size, np.int8)
    count_canonical(tab, n, 3, 3, binom)  # compile
    count_brute(g.ctx, 0, 1, scratch)
    print(f"Morris men={men}: movement-stage boards per (W, B), White to move, "
          f"{len(where)} symmetries")
    print(f"{'W-B':>5} {'boards':>15} {'orbits':>13} {'canonical':>13} {'s':>6} "
          f"{'brute':>13} {'s':>6}")
    totals = [0, 0, 0]
    for w, b in pairs:
        boards = math.comb(n, w) * math.comb(n - w, b)
        orbits = burnside(where, w, b)
        t = time.perf_counter()
        canon = int(count_canonical(tab, n, w, b, binom))
        tc = time.perf_counter() - t
        k = blocks[(stage, 0, w, b)]
        start, stop = int(g.bstart[k]), int(g.bstart[k + 1])
        assert stop - start == boards
        brute, tb = "", ""
        if stop - start <= a.brute:
            t = time.perf_counter()
            got = int(count_brute(g.ctx, start, stop, scratch))
            tb = f"{time.perf_counter() - t:6.1f}"
            brute = f"{got:13,}"
            assert got == canon, (w, b, got, canon)
        assert canon == orbits, (w, b, canon, orbits)
        totals[0] += boards
        totals[1] += orbits
        totals[2] += canon
        print(f"{w}-{b:<3} {boards:15,} {orbits:13,} {canon:13,} {tc:6.1f} {brute:>13} {tb:>6}",
              flush=True)
    print(f"{'all':5} {totals[0]:15,} {totals[1]:13,} {totals[2]:13,}")
    if men == 9 and len(pairs) == 49:
        print(f"Gasser 1996: {GASSER_STATES:,} states (28 databases, symmetric and some "
              f"unreachable positions removed) in {GASSER_INDICES:,} hash indices; "
              f"ours - Gasser = {totals[1] - GASSER_STATES:,}")
    if a.gasser:
        gasser_rule(g, tab, pairs, {(w, b): burnside(where, w, b) for w, b in pairs}, binom)


def reached(men: int, root: str) -> None:
    """Canonical movement positions stored (reached from the start) in the solved
    database of morris men=`men` under `root`, per block (side to move, W, B)."""
    from solver.runtime.parallel import run_each
    from solver.use.api import open as open_solved

    db = open_solved("morris", f"men={men}", root).db
    if not db.symmetric:
        raise SystemExit(f"{db.path}: solved without --symmetry (this counts canonical "
                         "positions)")
    g = db.game  # numbered by hash: block k is hashes [bstart[k], bstart[k + 1])
    istart = [db.index.rank(int(h)) for h in g.bstart]  # ... and those canonical indices
    cs = db.chunk_size
    moving = [(k, turn, w, b) for k, (st, turn, _c, w, b) in enumerate(g.blocks)
              if st == g.move_stage and w >= 3 and b >= 3]

    def count(k: int) -> int:
        lo, hi = int(istart[k]), int(istart[k + 1])
        got = 0
        for c in range(lo // cs, -(-hi // cs)):
            value = db.read_chunk(c)[0]
            a, b = max(lo, c * cs) - c * cs, min(hi, (c + 1) * cs) - c * cs
            got += int(np.count_nonzero(value[a:b]))
        return got

    t = time.perf_counter()
    got = dict(zip([(turn, w, b) for _k, turn, w, b in moving],
                   run_each(count, [(k,) for k, *_ in moving]), strict=True))
    tab = symmetry_table(board_symmetries(men))
    binom = np.array([[math.comb(i, j) for j in range(g.npoints + 1)]
                      for i in range(g.npoints + 1)], np.int64)
    print(f"Morris men={men}, {db.path}: canonical movement positions reached, per "
          f"ordered pair (side to move - opponent), in {time.perf_counter() - t:.0f} s")
    print(f"{'pair':>5} {'boards':>13} {'White to move':>15} {'Black to move':>15}")
    totals = [0, 0, 0]
    for m in range(3, men + 1):
        for o in range(3, men + 1):
            boards = int(count_canonical(tab, g.npoints, m, o, binom))
            white, black = got[(0, m, o)], got[(1, o, m)]
            for i, x in enumerate((boards, white, black)):
                totals[i] += x
            print(f"{m}-{o:<3} {boards:13,} {white:15,} {black:15,}")
    print(f"{'all':5} {totals[0]:13,} {totals[1]:15,} {totals[2]:15,}; both sides to move "
          f"{totals[1] + totals[2]:,}")
    if men == 9:
        print(f"Gasser 1996: {GASSER_STATES:,} states (each board once, either side to "
              "move, by his rule of unreachable ones)")


def gasser_rule(g, tab, pairs, orbits, binom) -> None:
    """Orbits of the boards left when, as Gasser describes (1996, p. 104: 'if one player
    has a closed mill, her opponent cannot have all nine stones on the board. Similar
    considerations can be made if two or three closed mills are on the board'), a side's
    closed mills need no more closing moves than the other side has lost pieces
    (`need_table`); per ordered pair, then per Gasser database (unordered pair)."""
    n, men = g.npoints, g.men
    mill_masks = np.array([sum(1 << p for p in m) for m in g.mills], np.int64)
    need = need_table(g.mills)
    most = {k: int(most_need(n, k, mill_masks, need)) for k in range(3, men + 1)}
    print(f"most closing moves a side's lines need, by its pieces: {most}")
    got = {}
    print(f"{'W-B':>5} {'orbits':>13} {'reachable':>13} {'removed':>13} {'s':>6}")
    for w, b in pairs:
        lim_w, lim_b = men - b, men - w  # closings by White took Black's lost pieces
        binds_w, binds_b = most[w] > lim_w, most[b] > lim_b
        t = time.perf_counter()
        if not (binds_w or binds_b):
            got[(w, b)] = orbits[(w, b)]
        elif (b, w) in got:  # the colours swapped: as many orbits
            got[(w, b)] = got[(b, w)]
        else:  # the binding side first, so that a free second side counts at once
            first, second, lim1, lim2 = (w, b, lim_w, lim_b) if binds_w else (b, w, lim_b, lim_w)
            got[(w, b)] = int(count_reachable(tab, n, first, second, lim1, lim2,
                                              most[second] <= lim2, mill_masks, need, binom))
        print(f"{w}-{b:<3} {orbits[(w, b)]:13,} {got[(w, b)]:13,} "
              f"{orbits[(w, b)] - got[(w, b)]:13,} {time.perf_counter() - t:6.1f}", flush=True)
    total = sum(got.values())
    print(f"{'all':5} {sum(orbits.values()):13,} {total:13,} "
          f"{sum(orbits.values()) - total:13,}")
    if men == 9 and len(pairs) == 49:
        print(f"Gasser 1996: {GASSER_STATES:,}; reachable by this rule - Gasser = "
              f"{total - GASSER_STATES:,}")
        rings = ring_orders(men)
        flying = burnside(rings, 3, 3)
        print(f"3-3 with the {len(rings)} permutations that keep the lines (both sides fly, "
              f"any order of the rings): {flying:,} (16 symmetries: {got[(3, 3)]:,}); "
              f"total {total - got[(3, 3)] + flying:,}, "
              f"- Gasser = {total - got[(3, 3)] + flying - GASSER_STATES:,}")
        got[(3, 3)] = flying
        print("Gasser's databases (a-b: a against b, either to move):")
        for hi in range(3, men + 1):
            for lo in range(3, hi + 1):
                both = got[(hi, lo)] + (got[(lo, hi)] if lo != hi else 0)
                print(f"  {hi}-{lo}: {both:,}")


if __name__ == "__main__":
    main()
