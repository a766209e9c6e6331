"""Tier kernels: one task's hash range at a time, every other position looked up in a window.

A window is one flat array holding a few disjoint hash intervals, sorted by start: the
task's own range and the child tiers it reads. Interval s holds hashes gstart[s] <=
h < gstop[s] at woff[s] + h - gstart[s] (binary search: a task of many small tiers reads
many child intervals). A task's own position h sits at h + obase.

Reachability uses a byte per window slot, pushed parents first: 0 not reached, 1 reached,
2 expanded, PRIMITIVE + value for a reached primitive (so the solve pass need not ask
again). The solve pass uses a record per window slot (solver/kernels/records.py).
"""

import numpy as np
from numba import njit

from solver.kernels.records import VISITED, combine, decide_reach, decide_winlose

game_expand = None  # bound by codegen.py: primitive and children in one call
game_primitive = game_children = game_parents = None  # bound by codegen.py

PRIMITIVE = 8


@njit(cache=True, nogil=True, inline="always")
def locate(c, gstart, gstop, woff):
    """Window index of hash c, -1 outside the window, without a data-dependent branch:
    the interval a child falls in is a coin toss (a conditional move per halving)."""
    lo = 0
    n = gstart.shape[0]
    while n > 1:
        half = n >> 1
        lo = lo + half if gstart[lo + half] <= c else lo
        n -= half
    # a select: `gstart[lo] <= c < gstop[lo]` compiled to a branch that cost forward 2/3
    x = c - gstart[lo]
    return woff[lo] + x if (x >= 0) & (c < gstop[lo]) else -1


MARKS = 256  # marks into child tiers collected before they are written, side by side
# a reach window's byte per 1 << DIRTY window slots: set where forward marked a slot outside
# its tier, so the marks pushed to child tasks are looked for there alone (Connect-4 6x6's
# late tasks marked 0-30 % of windows of 1.2-4.7 G slots: scanning them all took as long
# as the kernels)
DIRTY = 14
GATHER = 32  # positions whose children's records are gathered before they are combined


@njit(cache=True, nogil=True)
def forward(ctx, win, dirty, gstart, gstop, woff, lo, hi, obase, tlo, thi, max_children,
            scratch_size):
    """Expand the reached positions of [lo, hi): mark their children reached, and
    dirty[w >> DIRTY] for each mark at window slot w outside [tlo, thi). Returns the
    number of newly reached positions inside [tlo, thi), or -1 when a child lies outside
    the window (the game's tier graph is wrong).

    Blocks of one tier run side by side, so a mark may land on a position another thread
    is expanding. Inside [tlo, thi) only a byte still 0 is written: a write of what was
    read (branch-free, `win[w] |= fresh`) could put back the 1 of a position whose primitive
    mark another thread had just stored, and the primitive was then solved as an inner
    position (Quixo 4x4, 1 in 11.7 M positions, some 2-thread runs). A 0 read before another
    thread marked and expanded the position is a fresh mark, so it asks for one more pass,
    which expands it again.

    Outside [tlo, thi) lie child tiers that nothing expands until this run is done, where
    every writer writes a 1: those marks are collected, MARKS at a time, and written in a
    loop of their own, branch-free, so their cache misses overlap (the child tiers are
    hundreds of MB: Connect-4 6x6, 15-20% off the kernel's time at 22-28 pieces)."""
    out = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    scratch = np.empty(scratch_size, np.int8)
    marks = np.empty(MARKS + max_children, np.int64)
    wlo = tlo + obase
    whi = thi + obase
    new = 0
    m = 0
    for h in range(lo, hi):
        if win[h + obase] != 1:
            continue
        n = game_expand(ctx, h, out, moves, scratch)
        if n < 0:
            win[h + obase] = PRIMITIVE - n
            continue
        win[h + obase] = 2
        for j in range(n):
            w = locate(out[j], gstart, gstop, woff)
            if w < 0:
                return -1
            if (wlo <= w) & (w < whi):
                if win[w] == 0:  # never `win[w] |= fresh` here: see the docstring
                    win[w] = 1
                    new += 1
            else:
                marks[m] = w
                m += 1
        if m >= MARKS:
            _mark(win, dirty, marks, m)
            m = 0
    _mark(win, dirty, marks, m)
    return new


@njit(cache=True, nogil=True, inline="always")
def _mark(win, dirty, marks, m):
    """Marks as reached the window slots marks[:m] that hold 0 (any other byte kept), and
    their blocks dirty."""
    for j in range(m):
        w = marks[j]
        v = win[w]
        win[w] = v | (v == 0)
        dirty[w >> DIRTY] = 1


@njit(cache=True, nogil=True)
def mark_primitives(win, reached, lo, hi, obase, rbase):
    """Records from reach marks (reached[h - rbase]): primitives valued, other reached
    positions VISITED, the rest 0."""
    for h in range(lo, hi):
        r = reached[h - rbase]
        if r == 0:
            win[h + obase] = 0
        elif r >= PRIMITIVE:
            win[h + obase] = VISITED | (r - PRIMITIVE)
        else:
            win[h + obase] = VISITED
    return 0


@njit(cache=True, nogil=True)
def combine_tier(ctx, win, gstart, gstop, woff, lo, hi, obase, max_children, scratch_size,
                 puzzle):
    """Decide every undecided position of [lo, hi) whose children all lie in solved tiers.
    Returns -1 if a child lies outside the window (the game's tier graph is wrong).

    The children's records are final and none is written here, so GATHER positions'
    children are found first and their records read in one loop, whose cache misses
    overlap (Connect-4 6x6 at 25-28 pieces: 25-40% off)."""
    out = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    scratch = np.empty(scratch_size, np.int8)
    at = np.empty(GATHER, np.int64)
    kids = np.empty(GATHER, np.int64)
    where = np.empty(GATHER * max_children, np.int64)
    crec = np.empty(GATHER * max_children, win.dtype)
    h = lo
    while h < hi:
        b = m = 0
        while h < hi and b < GATHER:
            if win[h + obase] == VISITED:
                n = game_children(ctx, h, out, moves, scratch)
                for j in range(n):
                    w = locate(out[j], gstart, gstop, woff)
                    if w < 0:
                        return -1
                    where[m + j] = w
                at[b] = h
                kids[b] = n
                b += 1
                m += n
            h += 1
        for j in range(m):
            crec[j] = win[where[j]]
        m = 0
        for i in range(b):
            n = kids[i]
            win[at[i] + obase] = combine(crec[m:m + n], n, puzzle)
            m += n
    return 0


@njit(cache=True, nogil=True)
def winlose_tier(ctx, win, gstart, gstop, woff, lo, hi, obase, i, max_children,
                 scratch_size):
    """Sweep i of a loopy tier: WIN/LOSE of remoteness exactly i (as bottom-up)."""
    return _sweep_tier(ctx, win, gstart, gstop, woff, lo, hi, obase, i, 0, max_children,
                       scratch_size)


@njit(cache=True, nogil=True)
def reach_tier(ctx, win, gstart, gstop, woff, lo, hi, obase, i, target, max_children,
               scratch_size):
    """Sweep i of a loopy tier: undecided with a `target` child of remoteness i-1."""
    return _sweep_tier(ctx, win, gstart, gstop, woff, lo, hi, obase, i, target,
                       max_children, scratch_size)


@njit(cache=True, nogil=True)
def _sweep_tier(ctx, win, gstart, gstop, woff, lo, hi, obase, i, target, max_children,
                scratch_size):
    """One sweep over a tier block: W/L when target is 0, else reaching `target`.
    Returns the positions decided, or -1 when a child lies outside the window."""
    out = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    crec = np.empty(max_children, win.dtype)
    scratch = np.empty(scratch_size, np.int8)
    count = 0
    for h in range(lo, hi):
        if win[h + obase] != VISITED:
            continue
        n = game_children(ctx, h, out, moves, scratch)
        for j in range(n):
            w = locate(out[j], gstart, gstop, woff)
            if w < 0:
                return -1
            crec[j] = win[w]
        r = decide_winlose(crec, n, i) if target == 0 else decide_reach(crec, n, i, target)
        if r != 0:
            win[h + obase] = r
            count += 1
    return count


@njit(cache=True, nogil=True)
def forward_far(ctx, own, lo, hi, a, b, tlo, thi, far, max_children, scratch_size):
    """As `forward`, with only the task's own range [a, b) in memory (own[h - a]): children
    outside it are appended to `far` (room for (hi - lo) * max_children). Returns (newly
    reached inside [tlo, thi), entries in far)."""
    out = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    scratch = np.empty(scratch_size, np.int8)
    new = 0
    m = 0
    for h in range(lo, hi):
        if own[h - a] != 1:
            continue
        n = game_expand(ctx, h, out, moves, scratch)
        if n < 0:
            own[h - a] = PRIMITIVE - n
            continue
        own[h - a] = 2
        for j in range(n):
            c = out[j]
            if a <= c < b:
                if own[c - a] == 0:
                    own[c - a] = 1
                    if tlo <= c < thi:
                        new += 1
            else:
                far[m] = c
                m += 1
    return new, m


@njit(cache=True, nogil=True)
def forward_part(ctx, own, base, lo, hi, pa, pb, a, b, notes, far, max_children,
                 scratch_size):
    """As `forward_far`, with only the part [pa, pb) of the task's own range [a, b) in
    memory (own[h - base]; engine/paged.py): children in other parts of the task go
    to `notes`, those outside it to `far` (each with room for (hi - lo) * max_children).
    Returns (newly reached in the part, entries in notes, entries in far)."""
    out = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    scratch = np.empty(scratch_size, np.int8)
    new = k = m = 0
    for h in range(lo, hi):
        if own[h - base] != 1:
            continue
        n = game_expand(ctx, h, out, moves, scratch)
        if n < 0:
            own[h - base] = PRIMITIVE - n
            continue
        own[h - base] = 2
        for j in range(n):
            c = out[j]
            if pa <= c < pb:
                if own[c - base] == 0:  # only a 0 is written: see `forward`
                    own[c - base] = 1
                    new += 1
            elif a <= c < b:
                notes[k] = c
                k += 1
            else:
                far[m] = c
                m += 1
    return new, k, m
