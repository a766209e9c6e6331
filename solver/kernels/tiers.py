"""Tier kernels: one tier's hash range at a time, children looked up in a window.

The window is one record array holding the tier being solved (segment 0) followed by
copies of its child tiers' final records; a child's global hash is found in the window by
its segment (gstart <= h < gstop -> woff + h - gstart). Reachability is a separate byte
per position, computed parents-first: 0 not reached, 1 reached, 2 expanded, and
PRIMITIVE + value for a reached primitive (so the solve pass need not ask again).
"""

import numpy as np
from numba import njit

from solver.kernels.records import VISITED, combine, decide_reach, decide_winlose

game_primitive = game_children = game_parents = None  # bound by solver/codegen.py

PRIMITIVE = 8


@njit(cache=True, nogil=True)
def forward(ctx, reached, lo, hi, tlo, thi, max_children, scratch_size):
    """Expand the reached positions of [lo, hi): mark their children reached. Returns the
    number of newly reached positions inside the tier [tlo, thi)."""
    out = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    scratch = np.empty(scratch_size, np.int8)
    new = 0
    for h in range(lo, hi):
        if reached[h] != 1:
            continue
        v = game_primitive(ctx, h, scratch)
        if v != 0:
            reached[h] = PRIMITIVE + v
            continue
        reached[h] = 2
        n = game_children(ctx, h, out, moves, scratch)
        for j in range(n):
            c = out[j]
            if reached[c] == 0:
                reached[c] = 1
                if tlo <= c < thi:
                    new += 1
    return new


@njit(cache=True, nogil=True)
def mark_primitives(win, reached, lo, hi, tlo):
    """Tier records from reach marks: primitives valued, other reached positions VISITED."""
    for h in range(lo, hi):
        r = reached[h - tlo]
        if r == 0:
            win[h - tlo] = 0
        elif r >= PRIMITIVE:
            win[h - tlo] = VISITED | (r - PRIMITIVE)
        else:
            win[h - tlo] = VISITED
    return 0


@njit(cache=True, nogil=True, inline="always")
def _locate(c, gstart, gstop, woff):
    for s in range(gstart.shape[0]):
        if gstart[s] <= c < gstop[s]:
            return woff[s] + c - gstart[s]
    return -1


@njit(cache=True, nogil=True)
def combine_tier(ctx, win, gstart, gstop, woff, lo, hi, tlo, max_children, scratch_size,
                 puzzle):
    """Decide every undecided position of a tier whose children all lie in solved tiers.
    Returns -1 if a child lies outside the window (the game's tier graph is wrong)."""
    out = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    crec = np.empty(max_children, win.dtype)
    scratch = np.empty(scratch_size, np.int8)
    for h in range(lo, hi):
        if win[h - tlo] != VISITED:
            continue
        n = game_children(ctx, h, out, moves, scratch)
        for j in range(n):
            w = _locate(out[j], gstart, gstop, woff)
            if w < 0:
                return -1
            crec[j] = win[w]
        win[h - tlo] = combine(crec, n, puzzle)
    return 0


@njit(cache=True, nogil=True)
def winlose_tier(ctx, win, gstart, gstop, woff, lo, hi, tlo, i, max_children, scratch_size):
    """Sweep i of a loopy tier: WIN/LOSE of remoteness exactly i (as bottom-up)."""
    return _sweep_tier(ctx, win, gstart, gstop, woff, lo, hi, tlo, i, 0, max_children,
                       scratch_size)


@njit(cache=True, nogil=True)
def reach_tier(ctx, win, gstart, gstop, woff, lo, hi, tlo, i, target, max_children,
               scratch_size):
    """Sweep i of a loopy tier: undecided with a `target` child of remoteness i-1."""
    return _sweep_tier(ctx, win, gstart, gstop, woff, lo, hi, tlo, i, target, max_children,
                       scratch_size)


@njit(cache=True, nogil=True)
def _sweep_tier(ctx, win, gstart, gstop, woff, lo, hi, tlo, i, target, max_children,
                scratch_size):
    """One sweep over a tier block: W/L when target is 0, else reaching `target`.
    Returns the positions decided, or -1 when a child lies outside the window."""
    out = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    crec = np.empty(max_children, win.dtype)
    scratch = np.empty(scratch_size, np.int8)
    count = 0
    for h in range(lo, hi):
        if win[h - tlo] != VISITED:
            continue
        n = game_children(ctx, h, out, moves, scratch)
        for j in range(n):
            w = _locate(out[j], gstart, gstop, woff)
            if w < 0:
                return -1
            crec[j] = win[w]
        r = decide_winlose(crec, n, i) if target == 0 else decide_reach(crec, n, i, target)
        if r != 0:
            win[h - tlo] = r
            count += 1
    return count
