"""Verify kernels: re-derive a stored database from the game's rules.

Three sets: the whole database in memory (`sweep`, `count_problems`, `first_problems`), a
task of tiers at a time (`expand`, `settle`, `count_codes`, `list_codes`, `tally`), and
listed positions (`children_of`, `check_picks`: `gsolve verify --sample` and a solve's
check of itself). All re-derive a position by the solvers' own rules (`combine`, or its
fold over pages, `child_key`).

Whole: `mark` holds one byte per hash slot: 0 not reached, 1 reached and not yet expanded, 2
expanded and consistent, 3 expanded and NOT consistent with its children. A sweep expands
the reached positions of a block: it marks their children reached and re-derives the
position from the stored records of its children (DESIGN.md rules, the solvers' own
`combine`), so reachability and the derivation check share one pass of `children`. The
children's marks are set by any thread (a benign race: they only ever become 1 from 0,
and a position expanded twice is derived twice, the same way).
"""

import numpy as np
from numba import njit

from solver.kernels.records import DRAW, LOSE, SHIFT, TIE, VALUE_MASK, WIN, combine

game_expand = None  # bound by codegen.py: primitive and children in one call
game_primitive = game_children = game_parents = None  # bound by codegen.py

# what is wrong with a position (codes of `problem`)
OK, NOT_STORED, NOT_REACHABLE, BAD_CODE, BAD_PRIMITIVE, BAD_DERIVED, DIRTY_SLOT = range(7)
UNEXPANDED = 7  # (a task) reached, never expanded: a move to a tier not below it
CHILD_NOT_STORED = 8  # (listed positions) a move from a stored position to an empty slot


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



# -- a task of tiers at a time -------------------------------------------------------------
# A task's own range [a, b) is held as value `ov`, remoteness `orr`, a mark `om` and a fold
# `acc` per position; the chunks its moves reach outside it (in its child tiers) are held
# in the slots of a pool: chunk c in slot where[c] (-1: not held), its values pv[slot],
# remoteness pr[slot] and the reach marks pm[slot] pushed to it (a slot whose marks changed
# is `dirty`). `om`: 0 not reached, 1 reached, EXPANDED / PRIM once expanded, then
# (settle) GOOD, BAD or BAD_PRIM.
EXPANDED, PRIM, GOOD, BAD, BAD_PRIM = 2, 4, 2, 3, 5

# combine() is a min over child keys; `acc` folds the same order over pages in an int32:
# LOSE by remoteness, TIE by remoteness, DRAW, WIN from the longest (puzzles: WIN by
# remoteness, then any other value); -1 (a child not stored, or no value) sticks.
KEYS = np.int32(1 << 28)
NO_CHILD = np.int32(4 << 28)  # no child seen: a loss now (as combine with no children)


@njit(cache=True, nogil=True, inline="always")
def child_key(v, r, puzzle):
    r = min(np.int64(r), np.int64(KEYS) - 1)
    k = np.int64(KEYS)
    if puzzle:
        if v == WIN:
            return np.int32(r)
        if v == LOSE or v == TIE or v == DRAW:
            return np.int32(2 * k)
        return np.int32(-1)
    if v == LOSE:
        return np.int32(r)
    if v == TIE:
        return np.int32(k + r)
    if v == DRAW:
        return np.int32(2 * k)
    if v == WIN:
        return np.int32(3 * k + (k - 1 - r))
    return np.int32(-1)


@njit(cache=True, nogil=True, inline="always")
def key_record(key, puzzle):
    """The record (value | remoteness << SHIFT) a folded key gives; 0 when unknown."""
    key = np.int64(key)
    k = np.int64(KEYS)
    if key < 0:
        return np.int64(0)
    if puzzle:
        return WIN | ((key + 1) << SHIFT) if key < 2 * k else np.int64(LOSE)
    if key < k:
        return WIN | ((key + 1) << SHIFT)
    if key < 2 * k:
        return TIE | ((key - k + 1) << SHIFT)
    if key == 2 * k:
        return np.int64(DRAW)
    if key < 4 * k:
        return LOSE | ((k - 1 - (key - 3 * k) + 1) << SHIFT)
    return np.int64(LOSE)


@njit(cache=True, nogil=True, inline="always")
def _inside(c, gstart, gstop):
    """Whether hash c lies in one of the sorted intervals [gstart, gstop)."""
    s = np.searchsorted(gstart, c, side="right") - 1
    return s >= 0 and c < gstop[s]


@njit(cache=True, nogil=True)
def expand(ctx, om, ov, orr, acc, a, b, gstart, gstop, where, chunk, pv, pr, pm, dirty, kids,
           nkid, err, lo, hi, tlo, thi, first, puzzle, max_children, scratch_size):
    """`first`: expand the reached positions of [lo, hi) (a primitive is only marked), marking
    their children reached (in the task, and in the pool), folding the keys of those in
    the task and the pool into `acc`; returns the new marks inside [tlo, thi). Otherwise:
    fold and mark the children in the pool of every expanded position (a child folded
    twice folds the same key: the fold is a min). A child in no interval of [gstart,
    gstop) (the task's own range and child tiers) sets err[0] to its parent + 1: the game's
    tier list is wrong. Where `kids` is not empty, the moves `reach` listed in it are
    taken instead of the game's.

    Marks are set by any thread only from 0 (a position marked twice is expanded twice, and
    folds the same keys again); `acc` of a position only by the thread expanding it."""
    out = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    scratch = np.empty(scratch_size, np.int8)
    listed = kids.shape[0] > 0
    new = 0
    for h in range(lo, hi):
        i = h - a
        m = om[i]
        if first:
            if m != 1:
                continue
            n = np.int64(nkid[i]) if listed else game_expand(ctx, h, out, moves, scratch)
            if n < 0:
                acc[i] = -n
                om[i] = PRIM
                continue
            om[i] = EXPANDED
        elif m != EXPANDED:
            continue
        else:
            n = np.int64(nkid[i]) if listed else game_children(ctx, h, out, moves, scratch)
        best = acc[i]
        for j in range(n):
            c = kids[i * max_children + j] if listed else out[j]
            if a <= c < b:
                if first:
                    if om[c - a] == 0:
                        om[c - a] = 1
                        if tlo <= c < thi:
                            new += 1
                    best = min(best, child_key(ov[c - a], orr[c - a], puzzle))
                continue
            if not _inside(c, gstart, gstop):
                if first:
                    err[0] = h + 1
                continue
            k = c // chunk
            s = where[k]
            if s >= 0:
                w = c - k * chunk
                if pm[s, w] == 0:
                    pm[s, w] = 1
                    dirty[s] = 1
                best = min(best, child_key(pv[s, w], pr[s, w], puzzle))
        acc[i] = best
    return new


LISTED = 6  # (reach) reached, and its children outside the task listed by chunk


@njit(cache=True, nogil=True)
def reach(ctx, om, a, b, need, chunk, kids, nkid, lo, hi, tlo, thi, max_children,
          scratch_size):
    """Mark the positions of the task [a, b) that the reached (1) positions of [lo, hi)
    reach, each LISTED once its moves are, and set need[c // chunk] for each child c outside
    the task: the chunks the task must read, where a page of whole child tiers would read
    every chunk of them (Connect-4 6x6: 2,400 chunks a task). Returns the new marks inside
    [tlo, thi). Where `kids` is not empty, each position's moves are listed in it
    (kids[i * max_children:], nkid[i] of them, or minus its value when it is primitive)
    for `expand`, which then does not generate them again (a third of a Connect-4 6x6
    task's time). Marks are set by any thread only from 0, as in `expand`."""
    out = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    scratch = np.empty(scratch_size, np.int8)
    top = need.shape[0] * chunk
    listed = kids.shape[0] > 0
    new = 0
    for h in range(lo, hi):
        i = h - a
        if om[i] != 1:
            continue
        om[i] = LISTED
        n = game_expand(ctx, h, out, moves, scratch)
        if listed:
            nkid[i] = n
        for j in range(n):  # none for a primitive (n < 0)
            c = out[j]
            if listed:
                kids[i * max_children + j] = c
            if a <= c < b:
                if om[c - a] == 0:
                    om[c - a] = 1
                    if tlo <= c < thi:
                        new += 1
            elif 0 <= c < top:
                need[c // chunk] = 1
    return new


@njit(cache=True, nogil=True)
def settle(om, ov, orr, acc, a, lo, hi, puzzle):
    """Once every child is folded: each expanded position of [lo, hi) against what its
    children (a primitive: the game) give; `acc` becomes that record, `om` GOOD, BAD or BAD_PRIM."""
    for h in range(lo, hi):
        i = h - a
        m = om[i]
        if m == EXPANDED:
            want = key_record(acc[i], puzzle)
        elif m == PRIM:
            want = np.int64(acc[i])
        else:
            continue
        acc[i] = want
        v = ov[i]
        ok = v == 0 or want == 0 or matches(want, v, orr[i])
        om[i] = GOOD if ok else (BAD if m == EXPANDED else BAD_PRIM)
    return 0


@njit(cache=True, nogil=True, inline="always")
def code(om, ov, orr, i):
    """The problem code of own slot i after `settle` (OK when none)."""
    m = om[i]
    v = ov[i]
    if m == 0:
        if v != 0:
            return NOT_REACHABLE
        if orr[i] != 0:
            return DIRTY_SLOT
        return OK
    if m == 1:
        return UNEXPANDED
    if v == 0:
        return NOT_STORED
    if v > 4:
        return BAD_CODE
    if m == BAD:
        return BAD_DERIVED
    if m == BAD_PRIM:
        return BAD_PRIMITIVE
    return OK


@njit(cache=True, nogil=True)
def count_codes(om, ov, orr, a, lo, hi):
    bad = 0
    for h in range(lo, hi):
        if code(om, ov, orr, h - a) != OK:
            bad += 1
    return bad


@njit(cache=True, nogil=True)
def list_codes(om, ov, orr, acc, a, lo, hi, found, codes, wanted):
    """The first len(found) problem slots of [lo, hi): hash, code, the record its
    children (or the game) give. Returns how many."""
    k = 0
    for h in range(lo, hi):
        if k == found.shape[0]:
            break
        c = code(om, ov, orr, h - a)
        if c == OK:
            continue
        found[k] = h
        codes[k] = c
        wanted[k] = acc[h - a] if c == BAD_DERIVED or c == BAD_PRIMITIVE else 0
        k += 1
    return k


@njit(cache=True, nogil=True)
def tally(value, rem, counts, puzzle):
    """Count value codes into counts[0:256]; return the largest remoteness of a win, tie or
    (not a puzzle) loss."""
    longest = 0
    for i in range(value.shape[0]):
        v = value[i]
        counts[v] += 1
        if v == WIN or v == TIE or (v == LOSE and not puzzle):
            longest = max(longest, np.int64(rem[i]))
    return longest


@njit(cache=True, nogil=True)
def count_values(value, counts):
    for i in range(value.shape[0]):
        counts[value[i]] += 1
    return 0


# -- listed positions ----------------------------------------------------------------------
@njit(cache=True, nogil=True)
def children_of(ctx, hs, out, max_children, scratch_size):
    """The children of each position of hs (a primitive has none), end to end in `out`
    (len(hs) * max_children long); returns how many."""
    o = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    scratch = np.empty(scratch_size, np.int8)
    k = 0
    for i in range(hs.shape[0]):
        h = hs[i]
        if game_primitive(ctx, h, scratch) != 0:
            continue
        n = game_children(ctx, h, o, moves, scratch)
        for j in range(n):
            out[k] = o[j]
            k += 1
    return k


@njit(cache=True, nogil=True)
def check_picks(ctx, hs, keys, kv, kr, puzzle, max_children, scratch_size, codes, wanted,
                child):
    """Each position of hs against the records of its children: `keys` (sorted) holds hs
    and every child, with records kv, kr. codes[i] is its problem code (CHILD_NOT_STORED
    with the child in child[i]), wanted[i] the record its children give. Returns how many
    have a problem."""
    out = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    crec = np.empty(max_children, np.int64)
    scratch = np.empty(scratch_size, np.int8)
    bad = 0
    for i in range(hs.shape[0]):
        h = hs[i]
        x = np.searchsorted(keys, h)
        v, r = kv[x], kr[x]
        p = game_primitive(ctx, h, scratch)
        missing = -1
        if p != 0:
            want = np.int64(p)
        else:
            n = game_children(ctx, h, out, moves, scratch)
            for j in range(n):
                y = np.searchsorted(keys, out[j])
                cv = np.int64(kv[y])
                if cv == 0:
                    missing = out[j]
                    break
                # a code that is no value: undecided (that child is wrong itself)
                crec[j] = cv | (np.int64(kr[y]) << SHIFT) if cv <= 4 else 0
            want = np.int64(0) if missing >= 0 else np.int64(combine(crec, n, puzzle))
        c = OK
        if v == 0:
            c = NOT_STORED
        elif v > 4:
            c = BAD_CODE
        elif missing >= 0:
            c = CHILD_NOT_STORED
        elif want != 0 and not matches(want, v, r):
            c = BAD_PRIMITIVE if p != 0 else BAD_DERIVED
        codes[i] = c
        wanted[i] = want
        child[i] = missing
        if c != OK:
            bad += 1
    return bad
