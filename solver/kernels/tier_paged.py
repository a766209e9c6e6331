"""The paged tier worker's kernels (solver/engine/paged.py): a tier decided a part at a
time, its window read a page at a time, when not even the lean worker's arrays fit.

Folding: the children of a part's positions are generated once per page of the window
and only those in the page are looked at, so a position's events build up over the pages
(`fold_children`, then `finish_fold` turns them into kernels/tier_retro.scan_children's
counters and event levels). A child hash always falls in the same page, so distinct
in-tier children counted page by page are distinct overall. A loop-free piece folds its
best child instead (`fold_best`, `finish_best`: kernels/records.combine of that child).

Levels: a part's frontier is found by tier_lean.scan_level; its parents, anywhere in the
tier, become notices (`gather_notices`: relative parent << 1 | the child lost), applied to
the parent's part in its next pass (`apply_notices`, tier_lean.settle), or at once when
the parent lies in the part being scanned.
"""

import numpy as np
from numba import njit

from solver.kernels.records import (
    KEY_BASE,
    KEY_SIGN,
    LOSE,
    NOT_FINAL,
    PENDING,
    SHIFT,
    VALUE_MASK,
    VISITED,
    WIN,
    combine,
)
from solver.kernels.retrograde import add_distinct
from solver.kernels.tier_lean import scan_level, settle  # noqa: F401 (the engine's, too)
from solver.kernels.tier_retro import count_events  # noqa: F401 (engine/lean.event_levels)
from solver.kernels.tiers import locate

game_parents_in_tier = None  # bound by codegen.py: game_parents where not defined
game_primitive = game_children = game_parents = None  # bound by codegen.py

ERROR = -(1 << 40)  # a child outside the window


@njit(cache=True, nogil=True)
def fold_children(ctx, page, p0, p1, gstart, gstop, woff, rec, cnt, evl, slow, base, a, b,
                  lo, hi, target, never, max_children, scratch_size):
    """Fold the children of the undecided positions of hashes [a, b) (part arrays from base)
    that lie in window slots [p0, p1) (records page[w - p0]); the loopy tier is [lo, hi).
    W/L (target 0): cnt counts distinct undecided in-tier children (`never` once a child
    can never be won or lost), evl is 1 + the fastest LOSE child, slow 1 + the slowest
    WIN child (0: none). Else evl is 1 + the fastest `target` child. Returns how many TIE
    children were seen (W/L), or ERROR when a child lies outside the window."""
    out = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    scratch = np.empty(scratch_size, np.int8)
    ties = 0
    for h in range(a, b):
        i = h - base
        if rec[i] != VISITED:
            continue
        n = game_children(ctx, h, out, moves, scratch)
        k = 0
        blocked = False
        for j in range(n):
            c = out[j]
            w = locate(c, gstart, gstop, woff)
            if w < 0:
                return ERROR
            if (w < p0) | (w >= p1):
                continue
            r = np.int64(page[w - p0])
            v = r & VALUE_MASK
            rem = r >> SHIFT
            if target != 0:
                if v == target and (evl[i] == 0 or rem + 1 < evl[i]):
                    evl[i] = rem + 1
            elif r == VISITED and (c >= lo) & (c < hi):
                k = add_distinct(out, k, c)
            elif v == LOSE:
                if evl[i] == 0 or rem + 1 < evl[i]:
                    evl[i] = rem + 1
            elif v == WIN:
                if rem + 1 > slow[i]:
                    slow[i] = rem + 1
            else:
                blocked = True
                ties += v == 3
        if target == 0 and cnt[i] != never:
            cnt[i] = never if blocked else cnt[i] + k
    return ties


@njit(cache=True, nogil=True)
def finish_fold(rec, cnt, evl, slow, n, never):
    """Counters and event levels of a folded part, as tier_retro.scan_children sets them
    (W/L): a LOSE child is a WIN event; a position that can never count down, or has no
    children, never decides by counting; WIN children are one more count, their token
    due at the slowest of them."""
    for i in range(n):
        if rec[i] != VISITED:
            evl[i] = 0
            continue
        if evl[i] > 0:
            cnt[i] = never
        elif cnt[i] == never or (cnt[i] == 0 and slow[i] == 0):
            cnt[i] = never
        elif slow[i] > 0:
            cnt[i] += 1
            evl[i] = slow[i]
    return 0


@njit(cache=True, nogil=True, inline="always")
def _better(r, best, puzzle):
    """Whether child record r beats `best` (0: none yet) for the position's mover."""
    if best == 0:
        return True
    v, bv = r & VALUE_MASK, best & VALUE_MASK
    if puzzle:
        if bv != WIN:
            return v == WIN
        return v == WIN and (r >> SHIFT) < (best >> SHIFT)
    return KEY_BASE[v] + KEY_SIGN[v] * (r >> SHIFT) < KEY_BASE[bv] + KEY_SIGN[bv] * (best >> SHIFT)


@njit(cache=True, nogil=True)
def fold_best(ctx, page, p0, p1, gstart, gstop, woff, rec, best, base, a, b, puzzle,
              max_children, scratch_size):
    """Keep in best[] the best child record in window slots [p0, p1) of each undecided
    position of hashes [a, b) (arrays from base; PENDING once a child is undecided:
    combine gives 0). ERROR when a child lies outside the window."""
    out = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    scratch = np.empty(scratch_size, np.int8)
    for h in range(a, b):
        i = h - base
        if rec[i] != VISITED or best[i] == PENDING:
            continue
        n = game_children(ctx, h, out, moves, scratch)
        for j in range(n):
            w = locate(out[j], gstart, gstop, woff)
            if w < 0:
                return ERROR
            if (w < p0) | (w >= p1):
                continue
            r = page[w - p0]
            if NOT_FINAL[np.int64(r) & VALUE_MASK]:
                best[i] = PENDING
                break
            if _better(np.int64(r), np.int64(best[i]), puzzle):
                best[i] = r
    return 0


@njit(cache=True, nogil=True)
def finish_best(rec, best, n, puzzle):
    """The records of a folded loop-free part: combine() of its best child."""
    one = np.empty(1, rec.dtype)
    for i in range(n):
        if rec[i] != VISITED:
            continue
        if best[i] == PENDING:
            rec[i] = 0
            continue
        one[0] = best[i]
        rec[i] = combine(one, 0 if best[i] == 0 else 1, puzzle)
    return 0


@njit(cache=True, nogil=True)
def gather_notices(ctx, rec, queue, n, base, lo, hi, target, notes, max_parents,
                   scratch_size):
    """Notices of the parents inside the tier [lo, hi) of frontier entries queue[:n]
    (hashes base + entry, records rec[entry]) into notes[]: (parent - lo) << 1 | lost.
    Returns how many."""
    pbuf = np.empty(max_parents, np.int64)
    scratch = np.empty(scratch_size, np.int8)
    k = 0
    for x in range(n):
        i = np.int64(queue[x])
        lost = np.int64(1) if target == 0 and rec[i] & VALUE_MASK == LOSE else np.int64(0)
        m = game_parents_in_tier(ctx, base + i, pbuf, scratch)
        for j in range(m):
            q = pbuf[j]
            if (q >= lo) & (q < hi):
                notes[k] = ((q - lo) << 1) | lost
                k += 1
    return k


@njit(cache=True, nogil=True)
def apply_notices(rec, cnt, notes, n, a, b, level, target, never):
    """Apply the notices notes[:n] whose parent (relative to the tier) lies in the part
    [a, b) (arrays from a): each decides an undecided parent at level + 1 as
    tier_lean.settle says. Returns how many were decided."""
    done = 0
    for x in range(n):
        i = (notes[x] >> 1) - a
        if (i < 0) | (i >= b - a):
            continue
        if rec[i] == VISITED:
            done += settle(rec, cnt, i, 0, 0, target, never, (notes[x] & 1) == 1, level)
    return done


@njit(cache=True, nogil=True)
def split_notices(notes, n, a, b):
    """Reorder notes[:n] so that those for the part [a, b) come first; returns how many."""
    k = 0
    for x in range(n):
        i = notes[x] >> 1
        if (i >= a) & (i < b):
            notes[k], notes[x] = notes[x], notes[k]
            k += 1
    return k
