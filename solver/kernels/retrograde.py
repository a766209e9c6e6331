"""Retrograde analysis with child counters (the loopy solver with parents of the notes).

After the visit sweeps (shared with bottom-up) every reachable position has its record,
primitives their value. Each undecided position counts its distinct children; frontiers
are processed in order of remoteness, W/L first: a LOSE at level r makes its undecided
parents WIN at r+1; a WIN at level r decrements its parents' counters, and a parent whose
counter reaches zero has only winning children, the slowest at r: LOSE at r+1. Then ties
the same way from tie frontiers; what is left is DRAW (puzzles: WIN spreads from goals,
the rest LOSE). Parents come from the game's un-moves or from a reverse edge list.
"""

import numpy as np
from numba import njit

from solver.kernels.records import LOSE, SHIFT, TIE, VALUE_MASK, VISITED, WIN

game_primitive = game_children = game_parents = None  # bound by codegen.py


@njit(cache=True, nogil=True, inline="always")
def add_distinct(out, m, c):
    """Put c at out[m] unless out[:m] holds it; return how many out[:] now holds."""
    for k in range(m):
        if out[k] == c:
            return m
    out[m] = c
    return m + 1


@njit(cache=True, nogil=True, inline="always")
def _distinct(out, n):
    """Move the distinct entries of out[:n] to its front; return how many."""
    m = 0
    for j in range(n):
        m = add_distinct(out, m, out[j])
    return m


@njit(cache=True, nogil=True)
def count_children(ctx, rec, counts, lo, hi, max_children, scratch_size):
    """counts[h] = distinct children of every undecided reachable h; returns edges."""
    out = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    scratch = np.empty(scratch_size, np.int8)
    edges = 0
    for h in range(lo, hi):
        if rec[h] != VISITED:
            continue
        n = _distinct(out, game_children(ctx, h, out, moves, scratch))
        counts[h] = n
        edges += n
    return edges


@njit(cache=True, nogil=True)
def reverse_edges(ctx, rec, offsets, edges, max_children, scratch_size):
    """CSR lists of parents: offsets[c]..offsets[c+1] index edges[] (offsets pre-zeroed,
    length hash_size + 1)."""
    out = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    scratch = np.empty(scratch_size, np.int8)
    size = rec.shape[0]
    for h in range(size):
        if rec[h] != VISITED:
            continue
        n = _distinct(out, game_children(ctx, h, out, moves, scratch))
        for j in range(n):
            offsets[out[j] + 1] += 1
    for c in range(size):
        offsets[c + 1] += offsets[c]
    fill = offsets[:-1].copy()
    for h in range(size):
        if rec[h] != VISITED:
            continue
        n = _distinct(out, game_children(ctx, h, out, moves, scratch))
        for j in range(n):
            c = out[j]
            edges[fill[c]] = h
            fill[c] += 1


@njit(cache=True, nogil=True)
def _push(queue, n, h):
    if n == queue.shape[0]:
        bigger = np.empty(2 * n, np.int64)
        bigger[:n] = queue[:n]
        queue = bigger
    queue[n] = h
    return queue, n + 1


@njit(cache=True, nogil=True)
def _parents(ctx, h, use_unmoves, offsets, edges, pbuf, scratch):
    if use_unmoves:
        return game_parents(ctx, h, pbuf, scratch)
    a = offsets[h]
    b = offsets[h + 1]
    for j in range(b - a):
        pbuf[j] = edges[a + j]
    return b - a


@njit(cache=True, nogil=True)
def propagate(ctx, rec, counts, use_unmoves, offsets, edges, max_parents, scratch_size,
              puzzle, limit):
    """Process frontiers level by level. Returns the largest level reached, or -1 when a
    remoteness passed `limit`."""
    size = rec.shape[0]
    scratch = np.empty(scratch_size, np.int8)
    pbuf = np.empty(max_parents, np.int64)
    cur = np.empty(1024, np.int64)
    nxt = np.empty(1024, np.int64)
    top_level = 0
    # phase 0: win/lose (puzzles: reaching a goal); phase 1: ties
    for phase in range(1 if puzzle else 2):
        ncur = 0
        for h in range(size):
            v = rec[h] & VALUE_MASK
            if rec[h] & VISITED and rec[h] >> SHIFT == 0 and (
                    (phase == 0 and (v == WIN or (v == LOSE and not puzzle)))
                    or (phase == 1 and v == TIE)):
                cur, ncur = _push(cur, ncur, h)
        level = 0
        while ncur > 0:
            nnxt = 0
            for i in range(ncur):
                p = cur[i]
                pv = rec[p] & VALUE_MASK
                np_ = _parents(ctx, p, use_unmoves, offsets, edges, pbuf, scratch)
                for j in range(np_):
                    q = pbuf[j]
                    if rec[q] != VISITED:
                        continue
                    if phase == 1:
                        rec[q] = VISITED | TIE | ((level + 1) << SHIFT)
                        nxt, nnxt = _push(nxt, nnxt, q)
                    elif puzzle or pv == LOSE:
                        rec[q] = VISITED | WIN | ((level + 1) << SHIFT)
                        nxt, nnxt = _push(nxt, nnxt, q)
                    else:
                        counts[q] -= 1
                        if counts[q] == 0:
                            rec[q] = VISITED | LOSE | ((level + 1) << SHIFT)
                            nxt, nnxt = _push(nxt, nnxt, q)
            if nnxt > 0 and level + 1 > limit:
                return -1
            cur, nxt = nxt, cur
            ncur = nnxt
            level += 1
        if level > top_level:
            top_level = level
    return top_level
