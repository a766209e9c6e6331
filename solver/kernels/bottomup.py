"""Bottom-up sweeps (the zero-memory solver of the GamesCrafters notes).

Every kernel sweeps one block [lo, hi) of the hash range without the GIL; the solver runs
blocks on a thread pool (solver.parallel). Each position's record is
written only by the thread that owns it, except the visit sweep's "reached" marks, which
only ever set the same bits (a benign race that the fixed-point loop absorbs). Decisions in
sweep i read only records decided in earlier sweeps (remoteness i-1), so the result does
not depend on the order or the number of threads.
"""

import numpy as np
from numba import njit

from solver.kernels.records import (
    PENDING,
    VALUE_MASK,
    VISITED,
    decide_reach,
    decide_winlose,
)

game_expand = None  # bound by solver/codegen.py: primitive and children in one call
game_primitive = game_children = game_parents = None  # bound by solver/codegen.py


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
def resolve_winlose(ctx, rec, lo, hi, i, max_children, scratch_size):
    """Decide the positions of remoteness i: WIN with a LOSE child of remoteness i-1,
    LOSE when every child is a WIN and the largest remoteness among them is i-1."""
    out = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    crec = np.empty(max_children, rec.dtype)
    scratch = np.empty(scratch_size, np.int8)
    count = 0
    for h in range(lo, hi):
        if rec[h] != VISITED:
            continue
        n = game_children(ctx, h, out, moves, scratch)
        for j in range(n):
            crec[j] = rec[out[j]]
        r = decide_winlose(crec, n, i)
        if r != 0:
            rec[h] = r
            count += 1
    return count


@njit(cache=True, nogil=True)
def resolve_reach(ctx, rec, lo, hi, i, target, max_children, scratch_size):
    """Positions still undecided with a `target` child of remoteness i-1 become `target`
    with remoteness i: TIE for two-player games, WIN (a goal reachable) for puzzles."""
    out = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    crec = np.empty(max_children, rec.dtype)
    scratch = np.empty(scratch_size, np.int8)
    count = 0
    for h in range(lo, hi):
        if rec[h] != VISITED:
            continue
        n = game_children(ctx, h, out, moves, scratch)
        for j in range(n):
            crec[j] = rec[out[j]]
        r = decide_reach(crec, n, i, target)
        if r != 0:
            rec[h] = r
            count += 1
    return count


@njit(cache=True, nogil=True)
def fill_undecided(rec, lo, hi, value):
    """Every visited position still undecided gets `value` (DRAW, or LOSE in puzzles)."""
    count = 0
    for h in range(lo, hi):
        if rec[h] == VISITED:
            rec[h] = VISITED | value
            count += 1
    return count


@njit(cache=True)
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

