"""Counting move sequences from the start to the game's ends (analysis --paths).

paths(p) = a unit count in the slot of p's value for a primitive p, else the sum over
p's moves of paths(child). An iterative depth-first search (no recursion: numba's stack
is small) with a memo of three counts per position; a cycle makes the count infinite and
is reported instead.
"""

import numpy as np
from numba import njit

game_primitive = game_children = game_parents = None  # bound by codegen.py

NEW, OPEN, DONE = 0, 1, 2
LIMIT = (1 << 62)


@njit(cache=True, nogil=True)
def count_paths(ctx, hash_size, start, max_children, scratch_size):
    """Returns (counts by value code [5], status): status 0 ok, 1 cycle, 2 overflow."""
    state = np.zeros(hash_size, np.uint8)
    memo = np.zeros((hash_size, 5), np.int64)
    out = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    scratch = np.empty(scratch_size, np.int8)
    stack = np.empty(1024, np.int64)
    top = 0
    stack[top] = start
    top += 1
    status = 0
    while top > 0:
        h = stack[top - 1]
        if state[h] == DONE:
            top -= 1
            continue
        if state[h] == NEW:
            v = game_primitive(ctx, h, scratch)
            if v != 0:
                memo[h, v] = 1
                state[h] = DONE
                top -= 1
                continue
            state[h] = OPEN
            n = game_children(ctx, h, out, moves, scratch)
            for j in range(n):
                c = out[j]
                if state[c] == OPEN:
                    return memo[start], 1
                if state[c] == NEW:
                    if top == stack.shape[0]:
                        bigger = np.empty(stack.shape[0] * 2, np.int64)
                        bigger[:top] = stack[:top]
                        stack = bigger
                    stack[top] = c
                    top += 1
            continue
        # OPEN again: every child is DONE now
        n = game_children(ctx, h, out, moves, scratch)
        for j in range(n):
            c = out[j]
            for v in range(5):
                memo[h, v] += memo[c, v]
                if memo[h, v] > LIMIT:
                    status = 2
                    memo[h, v] = LIMIT
        state[h] = DONE
        top -= 1
    return memo[start].copy(), status
