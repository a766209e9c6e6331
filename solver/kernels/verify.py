"""Verify kernels: re-derive a stored database from the game's rules.

`mark` holds one byte per hash slot: 0 not reached, 1 reached and not yet expanded, 2
expanded and consistent, 3 expanded and NOT consistent with its children. A sweep expands
the reached positions of a block: it marks their children reached and re-derives the
position from the stored records of its children (DESIGN.md rules, the solvers' own
`combine`), so reachability and the derivation check share one pass of `children`. The
children's marks are set by any thread (a benign race: they only ever become 1 from 0,
and a position expanded twice is derived twice, the same way).
"""

import numpy as np
from numba import njit

from solver.kernels.records import SHIFT, VALUE_MASK, combine

game_primitive = game_children = game_parents = None  # bound by codegen.py

# what is wrong with a position (codes of `problem`)
OK, NOT_STORED, NOT_REACHABLE, BAD_CODE, BAD_PRIMITIVE, BAD_DERIVED, DIRTY_SLOT = range(7)


@njit(cache=True, nogil=True, inline="always")
def derive(ctx, value, rem, h, out, moves, crec, scratch, puzzle):
    """(expected record, children) of position h from the stored records of its children;
    the record is 0 when a child is not stored (that child is reported itself)."""
    p = game_primitive(ctx, h, scratch)
    if p != 0:
        return np.int64(p), 0
    n = game_children(ctx, h, out, moves, scratch)
    for j in range(n):
        c = out[j]
        cv = np.int64(value[c])
        if cv == 0:
            return np.int64(0), n
        crec[j] = cv | (np.int64(rem[c]) << SHIFT)
    return np.int64(combine(crec, n, puzzle)), n


@njit(cache=True, nogil=True, inline="always")
def matches(expected, v, r):
    return (expected & VALUE_MASK) == v and (expected >> SHIFT) == r


@njit(cache=True, nogil=True)
def sweep(ctx, value, rem, mark, lo, hi, tlo, thi, puzzle, max_children, scratch_size):
    """Expand every reached, unexpanded position of [lo, hi): mark its children reached and
    check its stored record. Returns how many positions of [tlo, thi) were newly reached."""
    out = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    crec = np.empty(max_children, np.int64)
    scratch = np.empty(scratch_size, np.int8)
    new = 0
    for h in range(lo, hi):
        if mark[h] != 1:
            continue
        expected, n = derive(ctx, value, rem, h, out, moves, crec, scratch, puzzle)
        for j in range(n):
            c = out[j]
            if mark[c] == 0:
                mark[c] = 1
                if tlo <= c < thi:
                    new += 1
        v = value[h]
        ok = v == 0 or expected == 0 or matches(expected, v, rem[h])
        mark[h] = 2 if ok else 3
    return new


@njit(cache=True, nogil=True, inline="always")
def problem(value, rem, mark, h):
    """The problem code of slot h after the sweeps (OK when none)."""
    m = mark[h]
    v = value[h]
    if m == 0:
        if v != 0:
            return NOT_REACHABLE
        if rem[h] != 0:
            return DIRTY_SLOT
        return OK
    if v == 0:
        return NOT_STORED
    if v > 4:
        return BAD_CODE
    if m == 3:
        return BAD_DERIVED
    return OK


@njit(cache=True, nogil=True)
def count_problems(value, rem, mark, lo, hi):
    """How many slots of [lo, hi) have a problem."""
    bad = 0
    for h in range(lo, hi):
        if problem(value, rem, mark, h) != OK:
            bad += 1
    return bad


@njit(cache=True, nogil=True)
def first_problems(ctx, value, rem, mark, lo, hi, puzzle, max_children, scratch_size,
                   found, codes, wanted):
    """The first len(found) problem slots of [lo, hi): hash, code, and the record its
    children give (for BAD_DERIVED; a primitive's value otherwise). Returns how many."""
    out = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    crec = np.empty(max_children, np.int64)
    scratch = np.empty(scratch_size, np.int8)
    k = 0
    for h in range(lo, hi):
        if k == found.shape[0]:
            break
        code = problem(value, rem, mark, h)
        if code == OK:
            continue
        expected = np.int64(0)
        if code == BAD_DERIVED or code == BAD_CODE:
            expected, n = derive(ctx, value, rem, h, out, moves, crec, scratch, puzzle)
            if code == BAD_DERIVED and game_primitive(ctx, h, scratch) != 0:
                code = BAD_PRIMITIVE
        found[k] = h
        codes[k] = code
        wanted[k] = expected
        k += 1
    return k

