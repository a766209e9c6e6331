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


@njit(cache=True, nogil=True)
def forward(ctx, win, gstart, gstop, woff, lo, hi, obase, tlo, thi, max_children,
            scratch_size):
    """Expand the reached positions of [lo, hi): mark their children reached. Returns the
    number of newly reached positions inside [tlo, thi), or -1 when a child lies outside
    the window (the game's tier graph is wrong).

    Blocks of one tier run side by side, so a mark may land on a position another thread
    is expanding. Only a byte still 0 is written: a write of what was read (branch-free,
    `win[w] |= fresh`) could put back the 1 of a position whose primitive mark another
    thread had just stored, and the primitive was then solved as an inner position (Quixo
    4x4, 1 in 11.7 M positions, some 2-thread runs). A 0 read before another thread marked
    and expanded the position is a fresh mark, so it asks for one more pass, which expands
    it again."""
    out = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    scratch = np.empty(scratch_size, np.int8)
    new = 0
    for h in range(lo, hi):
        if win[h + obase] != 1:
            continue
        n = game_expand(ctx, h, out, moves, scratch)
        if n < 0:
            win[h + obase] = PRIMITIVE - n
            continue
        win[h + obase] = 2
        for j in range(n):
            c = out[j]
            w = locate(c, gstart, gstop, woff)
            if w < 0:
                return -1
            if win[w] == 0:  # never `win[w] |= fresh`: see the docstring
                win[w] = 1
                new += (tlo <= c) & (c < thi)
    return new


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
    Returns -1 if a child lies outside the window (the game's tier graph is wrong)."""
    out = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    crec = np.empty(max_children, win.dtype)
    scratch = np.empty(scratch_size, np.int8)
    for h in range(lo, hi):
        if win[h + obase] != VISITED:
            continue
        n = game_children(ctx, h, out, moves, scratch)
        for j in range(n):
            w = locate(out[j], gstart, gstop, woff)
            if w < 0:
                return -1
            crec[j] = win[w]
        win[h + obase] = combine(crec, n, puzzle)
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
