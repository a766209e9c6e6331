"""The lean retrograde of a loopy tier (solver/engine/levels.py): the levels of
kernels/tier_retro.py without its sorted event list and frontier queue (8 bytes a
position), so a tier larger than the memory for those still solves. The frontier of
level L is found again by scanning the tier's records: the positions decided in the tier
at remoteness L (L >= 1; the tier's primitives, at 0, reach their parents as events).

A scan of level L also settles the events of level L (evl = L + 1): each touches only
its own position, so parts of the tier scan side by side, and a position the parents of
the frontier settle first ends the same (tier_retro.apply_parents says why).
"""

import numpy as np
from numba import njit

from solver.kernels.records import LOSE, SHIFT, VALUE_MASK, VISITED, WIN


@njit(cache=True, nogil=True, inline="always")
def settle(win, cnt, i, lo, obase, target, never, lost, level):
    """Position i of the tier (undecided) hears of a decided child at `level` (`lost`: a
    LOSE child, or its own W/L event); returns whether that decides it. W/L (target 0):
    a LOSE child wins, a WIN child counts down to LOSE; else `target`."""
    if target != 0:
        win[i + lo + obase] = VISITED | target | ((level + 1) << SHIFT)
    elif lost:
        win[i + lo + obase] = VISITED | WIN | ((level + 1) << SHIFT)
    else:
        if cnt[i] == never:
            return False
        cnt[i] -= 1
        if cnt[i] != 0:
            return False
        win[i + lo + obase] = VISITED | LOSE | ((level + 1) << SHIFT)
    return True


@njit(cache=True, nogil=True)
def scan_level(win, cnt, evl, a, b, lo, obase, level, target, never, frontier, cap, out):
    """Positions a.. (relative to lo) up to b: settle the events of `level`, and put the
    frontier of `level` (when `frontier`) into out[], at most `cap` of them. Returns
    (where the scan stopped, frontier entries, positions settled)."""
    n = 0
    settled = 0
    for i in range(a, b):
        r = win[i + lo + obase]
        if r == VISITED:
            if np.int64(evl[i]) == level + 1:
                settled += settle(win, cnt, i, lo, obase, target, never,
                                  target == 0 and cnt[i] == never, level)
            continue
        if not frontier or np.int64(r >> SHIFT) != level:
            continue
        v = r & VALUE_MASK
        if (v == target) if target != 0 else (v == WIN) | (v == LOSE):
            if n == cap:
                return i, n, settled
            out[n] = i
            n += 1
    return b, n, settled
