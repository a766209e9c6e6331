"""Retrograde inside one loopy tier of a tier task (solver/engine/worker.py), for games with
un-moves: the same records as the in-tier sweeps (kernels/tiers.py), at one child
generation per position instead of one per position and sweep.

The tier is [lo, hi) of a window (kernels/tiers.py: own hash h at win[h + obase]); its
child tiers and in-tier primitives are decided before it starts. Arrays of the tier,
indexed by h - lo: `cnt` child counters, `evl` the level + 1 of the position's event
(0: none), `order` and `queue` relative hashes (the events sorted by level; the FIFO of
positions decided in the tier, level by level).

W/L: a position with a decided LOSE child (remoteness r) has a WIN event at r; one with a
decided TIE/DRAW/unknown child can never LOSE; any other counts its distinct undecided
in-tier children plus one token for its decided WIN children (event at the slowest of
them, r: the token goes at level r). Level L then decides L + 1: WIN events, counters
that reach zero, parents of LOSE positions of level L (WIN), counters of parents of WIN
positions of level L. So WIN is 1 + the fastest LOSE child, LOSE 1 + the slowest WIN
child when all children win, exactly the fixed point the sweeps reach.

TIE (puzzles: WIN) spreads the same way without counters: 1 + the fastest such child.
"""

import numpy as np
from numba import njit

from solver.kernels.records import LOSE, SHIFT, TIE, VALUE_MASK, VISITED, WIN
from solver.kernels.retrograde import add_distinct
from solver.kernels.tier_lean import settle
from solver.kernels.tiers import locate

game_parents_in_tier = None  # bound by codegen.py: game_parents where not defined
game_primitive = game_children = game_parents = None  # bound by codegen.py

ERROR = -(1 << 40)  # a child outside the window (sums of blocks stay negative)


@njit(cache=True, nogil=True)
def scan_children(ctx, win, gstart, gstop, woff, cnt, evl, a, b, lo, hi, obase, target,
                  never, max_children, scratch_size):
    """Events of the undecided positions of [a, b) (inside the tier [lo, hi)), from one
    generation of their children. W/L (target 0): counters and events as the module says;
    returns how many have a TIE child (0: the TIE phase has nothing to spread). Else evl =
    1 + the remoteness of the fastest decided `target` child (0: none); returns how many
    have one. ERROR when a child lies outside the window."""
    out = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    scratch = np.empty(scratch_size, np.int8)
    found = 0
    for h in range(a, b):
        i = h - lo
        if win[h + obase] != VISITED:
            evl[i] = 0
            continue
        n = game_children(ctx, h, out, moves, scratch)
        k = 0  # W/L: distinct undecided in-tier children, moved to out[:k]
        fastest_lose = -1
        slowest_win = -1
        fastest = -1  # of target
        blocked = False
        tie = False
        for j in range(n):
            c = out[j]
            w = locate(c, gstart, gstop, woff)  # branch-free, in the tier or not
            if w < 0:
                return ERROR
            r = np.int64(win[w])
            v = r & VALUE_MASK
            rem = r >> SHIFT
            # selects, not branches: which kind of child comes next is a coin toss
            if target != 0:
                fastest = rem if (v == target) & ((fastest < 0) | (rem < fastest)) else fastest
            elif (r == VISITED) & (c >= lo) & (c < hi):
                k = add_distinct(out, k, c)
            else:
                lose = v == LOSE
                fastest_lose = rem if lose & ((fastest_lose < 0) | (rem < fastest_lose)) \
                    else fastest_lose
                slowest_win = rem if (v == WIN) & (rem > slowest_win) else slowest_win
                other = (v != LOSE) & (v != WIN)
                blocked |= other
                tie |= other & (v == TIE)
        if target != 0:
            evl[i] = fastest + 1
            found += fastest >= 0
        elif fastest_lose >= 0:
            cnt[i] = never
            evl[i] = fastest_lose + 1
        elif blocked or (k == 0 and slowest_win < 0):  # no children: never decided
            cnt[i] = never
            evl[i] = 0
            found += tie
        elif slowest_win >= 0:
            cnt[i] = k + 1
            evl[i] = slowest_win + 1
        else:
            cnt[i] = k
            evl[i] = 0
    return found


@njit(cache=True, nogil=True)
def count_events(evl, win, base, hist, a, b):
    """Positions [a, b) of the tier with an event, by level, added into hist[level + 1];
    returns how many of them are reached and undecided (win[base + i]), the most a
    propagation can queue. With `place_events`, a counting sort whose passes run in blocks
    on the pool."""
    n_open = 0
    for i in range(a, b):
        e = np.int64(evl[i])
        if e > 0:
            hist[e] += 1
        n_open += win[base + i] == VISITED
    return n_open


@njit(cache=True, nogil=True)
def place_events(evl, fill, order, a, b):
    """The events of positions [a, b) into order[], at fill[level + 1] onwards: the
    block's place among the events of each level (see tier_worker._event_order)."""
    for i in range(a, b):
        e = np.int64(evl[i])
        if e > 0:
            order[fill[e]] = i
            fill[e] += 1
    return 0


# -- propagation: tier_worker._propagate drives the levels; per level `apply_events`, then
# the frontier in batches: `gather_parents` in blocks, `apply_parents` by parent ranges


@njit(cache=True, nogil=True, inline="always")
def _decide(win, cnt, queue, tail, i, lo, obase, target, never, lost, level):
    """`settle` position i, queued when that decides it; returns the tail (counting
    only, with an empty queue: the lean worker finds its frontier by scanning)."""
    if not settle(win, cnt, i, lo, obase, target, never, lost, level):
        return tail
    if queue.shape[0]:
        queue[tail] = i
    return tail + 1


@njit(cache=True, nogil=True)
def apply_events(win, cnt, order, a, b, out, level, lo, obase, target, never):
    """Decide the positions order[a:b] (events of `level`, each position once, so blocks
    of them may run side by side) and queue them into out[]; returns how many. A W/L
    event is a LOSE child when the counter is `never`, else the token of the position's
    decided WIN children."""
    n = 0
    for x in range(a, b):
        i = np.int64(order[x])
        if win[i + lo + obase] == VISITED:
            n = _decide(win, cnt, out, n, i, lo, obase, target, never,
                        target == 0 and cnt[i] == never, level)
    return n


@njit(cache=True, nogil=True)
def gather_parents(ctx, win, queue, buf, a, b, base, lo, hi, obase, max_parents,
                   scratch_size):
    """Parents inside the tier and undecided (now) of frontier entries queue[a:b], into
    buf[(x - base) * max_parents:], relative to lo, ended by -1 when fewer. Reads records
    only, so blocks run side by side. A game's `parents_in_tier` spares generating the
    parents in other tiers (Quixo: half of them)."""
    pbuf = np.empty(max_parents, np.int64)
    scratch = np.empty(scratch_size, np.int8)
    for x in range(a, b):
        m = game_parents_in_tier(ctx, np.int64(queue[x]) + lo, pbuf, scratch)
        at = (x - base) * max_parents
        k = 0
        for j in range(m):  # written always, kept when open: no branch on a coin toss
            q = pbuf[j]
            buf[at + k] = q - lo
            k += (q >= lo) & (q < hi) and win[q + obase] == VISITED
        if k < max_parents:
            buf[at + k] = -1
    return 0


@njit(cache=True, nogil=True)
def apply_parents(win, cnt, queue, buf, a, b, out, level, lo, obase, target, never,
                  max_parents, plo, phi):
    """Apply the gathered parents i (relative) with plo <= i < phi of frontier entries
    queue[a:b], in order, queuing the positions they decide into out[]; returns how many.
    Which parent hears first within a level changes no record (a position with a LOSE
    child never counts down to LOSE), so threads may take disjoint parent ranges."""
    n = 0
    for x in range(a, b):
        lost = win[np.int64(queue[x]) + lo + obase] & VALUE_MASK == LOSE
        at = (x - a) * max_parents
        for j in range(max_parents):
            i = buf[at + j]
            if i < 0:
                break
            if (i >= plo) & (i < phi) and win[i + lo + obase] == VISITED:
                n = _decide(win, cnt, out, n, np.int64(i), lo, obase, target, never, lost,
                            level)
    return n
