"""Is a hash slot a position of the game? A backward search from the slot to the start.

A plan counts what a solve will store, and a solve stores the positions it reaches, not
every slot (Connect-4 6x6: 8.7 slots a position, most boards past a win or with stones
no order of play leaves). `reach_count` decides sampled slots exactly, by the game's own
un-moves: a slot is a position when a chain of parents leads from it to the start, every
parent on the way a game still going (a finished game has no children). The search goes
depth first (an un-move brings it one move nearer the start, so a position is usually
decided in as many steps as it has moves) and remembers what it saw, in a table of its
own stamped per sample, so no slot is looked at twice and nothing is cleared between
samples. A search that sees `cap` slots stops undecided; the caller counts those apart.
Each un-move is checked by the game's moves (a game's un-moves may offer more than its
moves undo: quick chess un-captures onto slots no move leaves), so the answer rests on
`children` alone.
"""

import numpy as np
from numba import njit

game_primitive = game_children = game_parents = None  # bound by codegen.py

REACHED, NOT_REACHED, UNDECIDED = 1, 0, -1


@njit(cache=True, nogil=True, inline="always")
def _mark(keys, stamps, stamp, h):
    """Put h in the table; False when it was there already (this sample's stamp)."""
    mask = keys.size - 1
    i = (h * np.int64(0x9E3779B97F4A7C15)) & mask
    while stamps[i] == stamp:
        if keys[i] == h:
            return False
        i = (i + 1) & mask
    stamps[i] = stamp
    keys[i] = h
    return True


@njit(cache=True, nogil=True)
def _moves_to(ctx, p, x, kids, moves, scratch):
    """Whether a move of p leads to x."""
    for j in range(game_children(ctx, p, kids, moves, scratch)):
        if kids[j] == x:
            return True
    return False


@njit(cache=True, nogil=True)
def reachable(ctx, h, start, keys, stamps, stamp, stack, out, kids, moves, scratch, cap):
    """REACHED, NOT_REACHED or UNDECIDED (more than `cap` slots seen) for slot h."""
    if h == start:
        return REACHED
    _mark(keys, stamps, stamp, h)
    top = 1
    stack[0] = h
    seen = 1
    while top > 0:
        top -= 1
        x = stack[top]
        n = game_parents(ctx, x, out, scratch)
        for j in range(n):
            p = out[j]
            if game_primitive(ctx, p, scratch) != 0:
                continue  # a finished game: no move leads on from it
            if not _moves_to(ctx, p, x, kids, moves, scratch):
                continue  # not an un-move of a move the game has
            if p == start:
                return REACHED
            if not _mark(keys, stamps, stamp, p):
                continue
            seen += 1
            if seen > cap:
                return UNDECIDED
            stack[top] = p
            top += 1
    return NOT_REACHED


@njit(cache=True, nogil=True)
def reach_count(ctx, hashes, start, found, max_parents, max_children, scratch_size, cap):
    """found[i]: `reachable` of hashes[i]. Returns how many are REACHED."""
    size = 1
    while size < 2 * (cap + 1) * max_parents:
        size *= 2
    keys = np.empty(size, np.int64)
    stamps = np.zeros(size, np.int64)
    stack = np.empty((cap + 1) * max_parents + 1, np.int64)
    out = np.empty(max_parents, np.int64)
    kids = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    scratch = np.empty(scratch_size, np.int8)
    got = 0
    for i in range(hashes.size):
        r = reachable(ctx, hashes[i], start, keys, stamps, np.int64(i + 1), stack, out,
                      kids, moves, scratch, cap)
        found[i] = r
        if r == REACHED:
            got += 1
    return got
