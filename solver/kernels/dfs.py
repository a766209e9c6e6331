"""Loop-free depth-first solve: children before parents, memoised in the record array.

Iterative, with an explicit stack that grows as needed (numba's own stack would overflow
on deep games). A record of VISITED|PENDING marks a position on the current path: meeting
one again is a cycle, reported instead of solved.
"""

import numpy as np
from numba import njit

from solver.kernels.records import PENDING, VALUE_MASK, VISITED, combine

game_expand = None  # bound by codegen.py: primitive and children in one call
game_primitive = game_children = game_parents = None  # bound by codegen.py

OPEN = VISITED | PENDING


@njit(cache=True, nogil=True)
def dfs(ctx, rec, start, max_children, scratch_size, puzzle):
    """Solve every position reachable from start. Returns (positions solved, cycle at):
    cycle at is -1, or a position on a cycle."""
    out = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    crec = np.empty(max_children, rec.dtype)
    scratch = np.empty(scratch_size, np.int8)
    stack = np.empty(4096, np.int64)
    stack[0] = start
    top = 1
    solved = 0
    while top > 0:
        h = stack[top - 1]
        r = rec[h]
        v = r & VALUE_MASK
        if v != 0 and v != PENDING:
            top -= 1
            continue
        if r == 0:
            n = game_expand(ctx, h, out, moves, scratch)
            if n < 0:
                rec[h] = VISITED | -n
                solved += 1
                top -= 1
                continue
            rec[h] = OPEN
            pushed = 0
            for j in range(n):
                c = out[j]
                rc = rec[c]
                if rc == OPEN:
                    return solved, c
                if rc == 0:
                    if top == stack.shape[0]:
                        bigger = np.empty(2 * top, np.int64)
                        bigger[:top] = stack[:top]
                        stack = bigger
                    stack[top] = c
                    top += 1
                    pushed += 1
            if pushed > 0:
                continue
        else:
            n = game_children(ctx, h, out, moves, scratch)
        for j in range(n):
            crec[j] = rec[out[j]]
        rec[h] = combine(crec, n, puzzle)
        solved += 1
        top -= 1
    return solved, -1
