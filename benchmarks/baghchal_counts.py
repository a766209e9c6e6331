"""Canonical positions of Bagh-Chal's sliding phase: all goats placed, k < captures goats
captured, either side to move (one hash tier per k, games/baghchal.py), counted by a numba
loop over each tier's slots, one thread.

Usage: python benchmarks/baghchal_counts.py [--size 5] [--k K ...] [--slots N] [--direct]

The loop walks a tier's slots in hash order without unranking them: inside a side's block
the hash is the tiger mask's colex rank, then the goat mask's among the other points, and
masks of one size rank in numeric order, so it steps the tiger mask, and under it the goat
mask (packed to the points the tigers leave), each to the next number with as many bits.
A slot counts when no symmetry of the game's group gives a smaller (tigers, goats) pair:
exactly when the game's `canonical` maps it to itself. Every `--every`-th slot (default
1,000) is checked against the game itself: its unranked masks are the walk's, and
`canonical(h) == h` agrees. `--direct` calls `canonical` and `orbit` on every slot instead
(30 to 35 times slower on 5x5: 34.6 s against 1.0 s for the k = 2 tier, the same counts).

--slots N counts only the first N slots of each tier and prints the time the whole tier
would take at that speed (measure on a small tier before a full run). Two checks beside
each full count: the canonical positions' orbit sizes sum to the tier's slots (every slot
of a sliding tier is a position), and Burnside's lemma (the boards each symmetry of the
group fixes, averaged over the group, from the cycles of its permutation of the points;
times 2 for the side to move) gives the same count.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from games.baghchal import BOTH, P_GROUP, P_SWAPS, BaghChal, canonical, orbit, position_masks
from games.common import canonical_masks_in, mask_symmetry_cells, orbit_masks_in
from hashing.generic import pdep, popcount

# numba functions below: not cached, so that a cached copy never keeps a stale `canonical`


@njit(nogil=True)
def _direct(ctx, lo, hi, scratch):
    """(canonical slots in [lo, hi), the sum of their orbit sizes), by `canonical`."""
    n = 0
    images = 0
    for h in range(lo, hi):
        if canonical(ctx, h, scratch) == h:
            n += 1
            images += orbit(ctx, h, scratch)
    return n, images


@njit(nogil=True, inline="always")
def _next_mask(x):
    """The next larger number with as many set bits as x > 0 (Gosper)."""
    c = x & -x
    r = x + c
    return r | (((r ^ x) >> 2) >> popcount(c - 1))


@njit(nogil=True)
def _walk(ctx, first, tigers, goats, count, every, scratch):
    """(canonical slots, the sum of their orbit sizes, slots checked against the game; -1
    at the first that disagrees) among the `count` slots of a side's block from its first
    hash `first`, a block of `tigers` and `goats` on the board."""
    params = ctx[4]
    meta = ctx[0][0]
    swaps = params[P_SWAPS:]
    group = params[P_GROUP]
    full = (np.int64(1) << params[0]) - 1
    a = (np.int64(1) << tigers) - 1
    q = (np.int64(1) << goats) - 1
    n = 0
    images = 0
    checked = 0
    for i in range(count):
        b = pdep(meta, q, full & ~a)
        ca, cb = canonical_masks_in(swaps, group, a, b)
        canon = ca == a and cb == b
        if canon:
            n += 1
            images += orbit_masks_in(swaps, group, a, b)
        if i % every == 0:
            h = first + i
            _base, _coff, ha, hb = position_masks(ctx, h)
            if ha != a or hb != b or (canonical(ctx, h, scratch) == h) != canon:
                return n, images, -1
            checked += 1
        if q == 0 or q >= ((np.int64(1) << goats) - 1) << (params[0] - tigers - goats):
            q = (np.int64(1) << goats) - 1  # the last goat mask: the next tiger mask
            a = _next_mask(a)
        else:
            q = _next_mask(q)
    return n, images, checked


def burnside(game: BaghChal, goats: int) -> int:
    """Orbits of the boards with the game's tigers and `goats` goats under its symmetry
    group: the average over the group of the boards a symmetry fixes (the points of each
    of its cycles hold one kind: the coefficient of x^tigers y^goats in the product over
    its cycles of 1 + x^len + y^len)."""
    where = mask_symmetry_cells(game.size)
    group = [s for s in range(8) if game.symmetries >> s & 1]
    total = 0
    for s in group:
        seen, poly = set(), {(0, 0): 1}
        for i in range(game.cells):
            if i in seen:
                continue
            length, j = 0, i
            while j not in seen:
                seen.add(j)
                j = int(where[s, j])
                length += 1
            nxt: dict[tuple[int, int], int] = {}
            for (t, g), c in poly.items():
                for dt, dg in ((0, 0), (length, 0), (0, length)):
                    if t + dt <= game.ntigers and g + dg <= goats:
                        nxt[(t + dt, g + dg)] = nxt.get((t + dt, g + dg), 0) + c
            poly = nxt
        total += poly.get((game.ntigers, goats), 0)
    assert total % len(group) == 0
    return total // len(group)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=5)
    ap.add_argument("--k", type=int, nargs="*", help="captures of the tiers (default all)")
    ap.add_argument("--slots", type=int, help="count the first N slots of each tier only")
    ap.add_argument("--every", type=int, default=1000,
                    help="check every N-th slot against the game's unranking and canonical")
    ap.add_argument("--direct", action="store_true",
                    help="call the game's canonical on every slot (slow)")
    args = ap.parse_args()
    game = BaghChal(size=args.size)
    scratch = np.zeros(game.scratch_size, np.int8)
    tiers = game.tiers()
    _direct(game.ctx, tiers[0].start, tiers[0].start + 1, scratch)  # compile
    _walk(game.ctx, tiers[0].start, game.ntigers, 0, 1, 1, scratch)
    print(f"baghchal {game.variant_key}: {len(_group(game))} symmetries, sliding phase "
          f"(all {game.ngoats} goats placed, both sides to move), one thread")
    head = f"{'tier':<28} {'slots':>13} {'canonical':>13} {'burnside':>13} {'orbits':>6} {'s':>7}"
    print(head)
    totals = [0, 0]
    for t, (p, k, side) in zip(tiers, game.tier_keys, strict=True):
        if side != BOTH or (args.k is not None and k not in args.k):
            continue
        stop = t.stop if args.slots is None else min(t.stop, t.start + args.slots)
        n = images = 0
        clock = time.perf_counter()
        block = t.size // 2  # the goats' block, then the tigers': the same boards
        for first in (t.start, t.start + block):
            todo = min(block, stop - first)
            if todo <= 0:
                break
            if args.direct:
                a, b = _direct(game.ctx, first, first + todo, scratch)
            else:
                a, b, checked = _walk(game.ctx, first, game.ntigers, p - k, todo, args.every,
                                      scratch)
                if checked < 0:
                    raise SystemExit(f"{t.label}: the walk disagrees with the game near "
                                     f"slot {first + a}")
            n, images = n + a, images + b
        secs = time.perf_counter() - clock
        if stop < t.stop:
            est = secs / (stop - t.start) * t.size
            print(f"{t.label:<28} {stop - t.start:>13,} {n:>13,} {'':>13} {'':>6} {secs:>7.1f}"
                  f"  (whole tier {t.size:,} slots: about {est:,.0f} s)")
            continue
        want = 2 * burnside(game, p - k)
        ok = "ok" if images == t.size else "WRONG"
        print(f"{t.label:<28} {t.size:>13,} {n:>13,} {want:>13,} {ok:>6} {secs:>7.1f}"
              + ("" if want == n else "  BURNSIDE DIFFERS"))
        totals[0] += t.size
        totals[1] += n
    if args.slots is None:
        print(f"{'total':<28} {totals[0]:>13,} {totals[1]:>13,}")


def _group(game: BaghChal) -> list[int]:
    return [s for s in range(8) if game.symmetries >> s & 1]


if __name__ == "__main__":
    main()
