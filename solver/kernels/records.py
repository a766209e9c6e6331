"""The solve-time record: one unsigned integer per position (uint16, or uint32 for games
whose remoteness can pass 4095).

    bits 0-2   value code (UNDECIDED 0, LOSE 1, DRAW 2, TIE 3, WIN 4; 7 = reached, not
               yet expanded, during the visit sweeps)
    bit  3     visited (reachable from the start)
    bits 4-    remoteness

This module is plain numba, shared by the templates and the solvers.
"""

import numpy as np
from numba import njit

VALUE_MASK = 7
PENDING = 7
VISITED = 8
SHIFT = 4
UNDECIDED, LOSE, DRAW, TIE, WIN = 0, 1, 2, 3, 4


def record_dtype(max_remoteness: int):
    return np.uint16 if max_remoteness < (1 << (16 - SHIFT)) else np.uint32


def max_record_remoteness(dtype) -> int:
    return (1 << (np.dtype(dtype).itemsize * 8 - SHIFT)) - 1


@njit(cache=True, nogil=True)
def split_records(rec, value, remoteness):
    """Database arrays from records: value code, and remoteness where the value has one."""
    for i in range(rec.shape[0]):
        r = rec[i]
        v = r & VALUE_MASK
        value[i] = v
        if v == WIN or v == LOSE or v == TIE:
            remoteness[i] = r >> SHIFT
        else:
            remoteness[i] = 0


@njit(cache=True, nogil=True, inline="always")
def combine(child_records, n, puzzle):
    """The record of a position from the final records of its n children (DESIGN.md rules).

    Returns 0 if some child is still undecided and the value is not yet forced."""
    best_lose = -1
    best_tie = -1
    worst_win = -1
    best_goal = -1
    undecided = False
    other = False
    for j in range(n):
        r = np.int64(child_records[j])
        v = r & VALUE_MASK
        rem = r >> SHIFT
        if v == LOSE:
            if best_lose < 0 or rem < best_lose:
                best_lose = rem
        elif v == WIN:
            if rem > worst_win:
                worst_win = rem
            if best_goal < 0 or rem < best_goal:
                best_goal = rem
        elif v == TIE:
            if best_tie < 0 or rem < best_tie:
                best_tie = rem
        elif v == DRAW:
            other = True
        else:
            undecided = True
    if undecided:
        return 0
    if puzzle:
        if best_goal >= 0:
            return VISITED | WIN | ((best_goal + 1) << SHIFT)
        return VISITED | LOSE
    if best_lose >= 0:
        return VISITED | WIN | ((best_lose + 1) << SHIFT)
    if best_tie >= 0:
        return VISITED | TIE | ((best_tie + 1) << SHIFT)
    if not other:
        return VISITED | LOSE | ((worst_win + 1) << SHIFT)
    return VISITED | DRAW


@njit(cache=True, nogil=True)
def no_parents(ctx, h, out, scratch):
    """Bound as game_parents for games without un-moves (never called then)."""
    return 0


@njit(cache=True, nogil=True, inline="always")
def decide_winlose(child_records, n, i):
    """Sweep i of the W/L phase for one undecided position, from its children's records:
    WIN if a child is LOSE at i-1, LOSE if every child is WIN and the slowest is at i-1
    (records decided in sweep i itself never count), else 0 (not yet)."""
    prev = i - 1
    longest = -1
    all_win = True
    for j in range(n):
        r = np.int64(child_records[j])
        v = r & VALUE_MASK
        rem = r >> SHIFT
        if v == LOSE and rem == prev:
            return VISITED | WIN | (i << SHIFT)
        if v == WIN and rem <= prev:
            if rem > longest:
                longest = rem
        else:
            all_win = False
    if all_win and longest == prev:
        return VISITED | LOSE | (i << SHIFT)
    return 0


@njit(cache=True, nogil=True, inline="always")
def decide_reach(child_records, n, i, target):
    """Sweep i of the TIE phase (puzzles: WIN): `target` at i if a child is `target` at
    i-1, else 0."""
    want = target | ((i - 1) << SHIFT)
    for j in range(n):
        if np.int64(child_records[j]) & ~VISITED == want:
            return VISITED | target | (i << SHIFT)
    return 0


@njit(cache=True, nogil=True)
def record_summary(rec, counts):
    """Count records by value code into counts[0:8] and return the largest remoteness, in
    one pass and without temporaries (numpy's bincount would copy the array to int64)."""
    longest = 0
    for i in range(rec.shape[0]):
        r = rec[i]
        counts[r & VALUE_MASK] += 1
        rem = r >> SHIFT
        if rem > longest:
            longest = rem
    return longest


@njit(cache=True, nogil=True)
def join_records(value, remoteness, out):
    """Solve-time records of stored (value, remoteness): what split_records undoes, every
    decided position VISITED."""
    for i in range(value.shape[0]):
        v = np.int64(value[i])
        if v == 0:
            out[i] = 0
        else:
            out[i] = v | VISITED | (np.int64(remoteness[i]) << SHIFT)


@njit(cache=True, nogil=True)
def nonzero_spans(a, gap, starts, stops):
    """The runs of a holding its nonzero bytes, closer than `gap` zeros merged, into
    starts/stops (room for a.shape[0] // (gap + 1) + 1 each); returns how many."""
    m = 0
    last = -gap - 2
    for i in range(a.shape[0]):
        if a[i] != 0:
            if i - last > gap + 1 or m == 0:
                starts[m] = i
                m += 1
            stops[m - 1] = i + 1
            last = i
    return m
