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


# combine() orders a two-player position's children by one key, smallest best for the
# mover: LOSE by remoteness, then TIE by remoteness, then DRAW, then WIN by remoteness
# from the longest; a code that is no final value is undecided. A min over keys has no
# value-dependent branch (these are coin tosses to the branch predictor: 10-20% of a tier
# sweep). KEY_BASE[v] + KEY_SIGN[v] * remoteness is the key of a child of value code v.
_BIG = np.int64(1) << 32
_LONGEST = _BIG - 1
KEY_BASE = np.array([0, 0, 2 * _BIG, _BIG, 3 * _BIG + _LONGEST, 0, 0, 0], np.int64)
KEY_SIGN = np.array([0, 1, 0, 1, -1, 0, 0, 0], np.int64)
NOT_FINAL = np.array([1, 0, 0, 0, 0, 1, 1, 1], np.int64)


@njit(cache=True, nogil=True, inline="always")
def combine(child_records, n, puzzle):
    """The record of a position from the final records of its n children (DESIGN.md rules).

    Returns 0 if some child is still undecided and the value is not yet forced."""
    if puzzle:
        return _combine_puzzle(child_records, n)
    best = 3 * _BIG + _LONGEST + 1  # no child: a loss now (remoteness 0)
    undecided = np.int64(0)
    for j in range(n):
        r = np.int64(child_records[j])
        v = r & VALUE_MASK
        key = KEY_BASE[v] + KEY_SIGN[v] * (r >> SHIFT)
        best = min(best, key)
        undecided |= NOT_FINAL[v]
    if undecided:
        return 0
    if best < _BIG:
        return VISITED | WIN | ((best + 1) << SHIFT)
    if best < 2 * _BIG:
        return VISITED | TIE | ((best - _BIG + 1) << SHIFT)
    if best == 2 * _BIG:
        return VISITED | DRAW
    return VISITED | LOSE | ((_LONGEST - (best - 3 * _BIG) + 1) << SHIFT)


@njit(cache=True, nogil=True, inline="always")
def _combine_puzzle(child_records, n):
    """A puzzle position: WIN by its nearest WIN child, else LOSE."""
    best_goal = -1
    for j in range(n):
        r = np.int64(child_records[j])
        v = r & VALUE_MASK
        rem = r >> SHIFT
        if v == WIN:
            if best_goal < 0 or rem < best_goal:
                best_goal = rem
        elif v != LOSE and v != TIE and v != DRAW:
            return 0
    if best_goal >= 0:
        return VISITED | WIN | ((best_goal + 1) << SHIFT)
    return VISITED | LOSE


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
def mark_slots(x, slots, at):
    """x[h - at] raised to at least 1 for each h of `slots` (far children pushed into a
    chunk of reach bytes: numpy's gather, maximum and scatter made three arrays a call)."""
    for j in range(slots.shape[0]):
        i = slots[j] - at
        x[i] = max(x[i], 1)


@njit(cache=True, nogil=True)
def spans_in(a, gap, lo, hi, starts, stops):
    """nonzero_spans of each a[lo[i]:hi[i]] in turn, as indices of `a`, into starts/stops
    (room for the sum of (hi[i] - lo[i]) // (gap + 1) + 1); returns how many. Spans of
    different pieces are not merged."""
    m = 0
    for i in range(lo.shape[0]):
        k = nonzero_spans(a[lo[i]:hi[i]], gap, starts[m:], stops[m:])
        for j in range(m, m + k):
            starts[j] += lo[i]
            stops[j] += lo[i]
        m += k
    return m


@njit(cache=True, nogil=True)
def nonzero_spans(a, gap, starts, stops):
    """The runs of a holding its nonzero bytes, closer than `gap` zeros merged, into
    starts/stops (room for a.shape[0] // (gap + 1) + 1 each); returns how many.

    Reads 8 bytes at a time and finds exact byte positions only at a possible span edge:
    a reach window of a sparse game (Quixo 4x4: 1 byte in 8 set, at random) made the
    byte loop a coin toss per byte (0.4 s a solve, on the critical path)."""
    n = a.shape[0]
    nw = n // 8 if gap >= 8 else 0  # a word then never holds a gap of its own
    words = a[:nw * 8].view(np.uint64)
    m = 0
    lastw = -1  # word of the last nonzero byte seen, while its exact byte is not needed
    last = -gap - 2  # the last nonzero byte, exact when lastw < 0
    for j in range(nw):
        if words[j] != 0:
            if m == 0 or (j - lastw) * 8 > gap - 8:
                if lastw >= 0:
                    last = _last_set(a, lastw)
                i = j * 8
                while a[i] == 0:
                    i += 1
                if m == 0 or i - last > gap + 1:
                    if m > 0:
                        stops[m - 1] = last + 1
                    starts[m] = i
                    m += 1
            lastw = j
    if lastw >= 0:
        last = _last_set(a, lastw)
        stops[m - 1] = last + 1
    for i in range(nw * 8, n):
        if a[i] != 0:
            if i - last > gap + 1 or m == 0:
                starts[m] = i
                m += 1
            stops[m - 1] = i + 1
            last = i
    return m


@njit(cache=True, nogil=True, inline="always")
def _last_set(a, w):
    """The last nonzero byte of 8-byte word w of a (one is nonzero)."""
    i = w * 8 + 7
    while a[i] == 0:
        i -= 1
    return i


@njit(cache=True, nogil=True)
def adopt_records(own, value, remoteness):
    """Records of reached positions (own: VISITED, or VISITED | value of a primitive; 0
    unreached, left so) from another store's (value, remoteness) of the same positions.
    Returns -1 when all are adopted, else the first position (from 0) the other store
    lacks (value 0), or -2 - it where a primitive's value there differs."""
    for i in range(own.shape[0]):
        r = np.int64(own[i])
        if r == 0:
            continue
        v = np.int64(value[i])
        if v == 0:
            return i
        rec = v | VISITED | (np.int64(remoteness[i]) << SHIFT)
        if r != VISITED and r != rec:
            return -2 - i
        own[i] = rec
    return -1
