"""Bottom-up sweeps (the zero-memory solver of the GamesCrafters notes).

Every kernel sweeps one block [lo, hi) of the hash range without the GIL; the solver runs
blocks on a thread pool (solver.runtime.parallel). Each position's record is
written only by the thread that owns it, except the visit sweep's "reached" marks, which
only ever set the same bits (a benign race that the fixed-point loop absorbs). A decision
by sweep i's rule reads only records of remoteness i-1, and one by `combine` only final
records (which another thread's sweep may have just written: each is exact either way),
so the result does not depend on the order or the number of threads; only how many
sweeps it takes does.
"""

import numpy as np
from numba import njit

from solver.kernels.records import (
    PENDING,
    SHIFT,
    VALUE_MASK,
    VISITED,
    combine,
    decide_reach,
    decide_winlose,
)

game_expand = None  # bound by codegen.py: primitive and children in one call
game_primitive = game_children = game_parents = None  # bound by codegen.py


@njit(cache=True, nogil=True)
def visit(ctx, rec, lo, hi, max_children, scratch_size):
    """Expand every reached, unexpanded position in [lo, hi): primitives get their value,
    others mark their children reached. Returns how many positions were newly reached."""
    out = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    scratch = np.empty(scratch_size, np.int8)
    count = 0
    for h in range(lo, hi):
        if rec[h] & VALUE_MASK != PENDING:
            continue
        n = game_expand(ctx, h, out, moves, scratch)
        if n < 0:
            rec[h] = VISITED | -n
            continue
        rec[h] = VISITED
        for j in range(n):
            c = out[j]
            if rec[c] == 0:
                rec[c] = VISITED | PENDING
                count += 1
    return count


@njit(cache=True, nogil=True)
def resolve_winlose(ctx, rec, lo, hi, i, down, cap, max_children, scratch_size):
    """Sweep i of the W/L phase: WIN with a LOSE child of remoteness i-1, LOSE when every
    child is a WIN and the largest remoteness among them is i-1 (and see `_resolve`)."""
    return _resolve(ctx, rec, lo, hi, i, 0, down, False, cap, max_children, scratch_size)


@njit(cache=True, nogil=True)
def resolve_reach(ctx, rec, lo, hi, i, target, puzzle, down, cap, max_children,
                  scratch_size):
    """Sweep i of the reach phase: positions still undecided with a `target` child of
    remoteness i-1 become `target` with remoteness i: TIE for two-player games, WIN (a goal
    reachable) for puzzles (and see `_resolve`)."""
    return _resolve(ctx, rec, lo, hi, i, target, down, puzzle, cap, max_children,
                    scratch_size)


@njit(cache=True, nogil=True, inline="always")
def _resolve(ctx, rec, lo, hi, i, target, down, puzzle, cap, max_children, scratch_size):
    """One sweep over [lo, hi), from hi down when `down`. A position whose children are all
    decided is decided outright (`combine`: its value and remoteness are then final, whatever
    the sweep); any other by sweep i's rule. Where the sweep runs against the hash's order
    of moves (children after parents, as in games numbered by pieces placed) decisions
    cascade within it, and one sweep decides what took one per remoteness. Returns the
    positions decided, or a large negative number when a remoteness passes `cap`."""
    out = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    crec = np.empty(max_children, rec.dtype)
    scratch = np.empty(scratch_size, np.int8)
    count = 0
    for k in range(hi - lo):
        h = hi - 1 - k if down else lo + k
        if rec[h] != VISITED:
            continue
        n = game_children(ctx, h, out, moves, scratch)
        for j in range(n):
            crec[j] = rec[out[j]]
        r = combine(crec, n, puzzle)
        if r == 0:
            r = decide_winlose(crec, n, i) if target == 0 else decide_reach(crec, n, i, target)
        if r > cap:
            return -(1 << 40)
        if r != 0:
            rec[h] = r
            count += 1
    return count


@njit(cache=True, nogil=True)
def next_sweep(rec, lo, hi, want, i):
    """After sweep i decided nothing: the next sweep that can decide anything, or 0 when
    none can. Only a rule that needs a decided child can (`combine` saw this state), and
    the rules that need one of value `want` (LOSE for W/L, the reach target) at
    remoteness r fire in sweep r + 1; so it is 1 + the least such r >= i, if any position
    is left undecided."""
    left = 0
    least = -1
    for h in range(lo, hi):
        r = np.int64(rec[h])
        left += r == VISITED
        rem = r >> SHIFT
        if r & VALUE_MASK == want and rem >= i and (least < 0 or rem < least):
            least = rem
    return least + 1 if left > 0 and least >= 0 else 0


@njit(cache=True, nogil=True)
def fill_undecided(rec, lo, hi, value):
    """Every visited position still undecided gets `value` (DRAW, or LOSE in puzzles)."""
    count = 0
    for h in range(lo, hi):
        if rec[h] == VISITED:
            rec[h] = VISITED | value
            count += 1
    return count


@njit(cache=True, nogil=True)
def visited_bounds(rec):
    """[first, last + 1) of the visited positions."""
    lo = 0
    n = rec.shape[0]
    while lo < n and rec[lo] == 0:
        lo += 1
    hi = n
    while hi > lo and rec[hi - 1] == 0:
        hi -= 1
    return lo, hi

