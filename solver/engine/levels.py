"""The levels of a loopy tier's retrograde, shared by its fast, lean and paged forms
(engine/loopy.py, engine/paged.py): a tier's events counted by level, and the lean
form's level-by-level scan, which holds 3 bytes a position besides its records (a child
counter and an event level), where loopy's fast form also holds a sorted event list and a
frontier queue (8 more). A task runs the lean form when the fast one would pass its memory
(engine/memory.py): Nine Men's Morris's largest task (move W8 B9, 1.07 G canonical
positions and their child tiers) needs 11 GiB this way, 62 GiB the fast way.

It gives the same records as the fast form: each level settles the same positions, at
the same remoteness (kernels/tier_lean.py). What it pays is a scan of the tier per level
that has work, instead of walking a queue."""

from __future__ import annotations

import numpy as np

from games.base import Game, GsolveError
from solver.engine.memory import LEAN_BATCH
from solver.kernels import tier_lean
from solver.kernels.records import max_record_remoteness
from solver.runtime.parallel import blocks, run_blocks, run_each, threads

SPLIT = 1 << 16  # a tier this large spreads its serial steps over the pool


def propagate(k, game: Game, win, cnt, evl, lo, hi, obase, target, never, limit,
              mp) -> None:
    """loopy._propagate's levels, each a scan of the tier in one part per thread: the
    part settles its events of the level and collects its frontier, LEAN_BATCH at a time; the
    parents of the collected entries are gathered in blocks on the pool and applied by a
    thread per parent range (the parts again)."""
    ctx, ss = game.ctx, game.scratch_size
    m = hi - lo
    per_level, n_open = event_levels(k, evl, win, lo + obase)[2:]
    if n_open == 0:
        return
    index = np.uint32 if m < 1 << 32 else np.int64
    ways = threads() if m >= SPLIT else 1
    parts = split(0, m, ways)
    batch = min(LEAN_BATCH, m)
    outs = [np.empty(batch, index) for _ in parts]
    queue = np.empty(batch * len(parts), index)
    buf = np.empty(queue.size * mp, np.int32 if m < 1 << 31 else np.int64)
    nothing = np.empty(0, index)  # apply_parents counts, queues nothing
    top = per_level.size - 1  # the last level with events is top - 1
    level = frontier = 0
    while level < top or frontier:
        if not frontier and not per_level[level + 1]:
            level += 1
            continue
        settled = 0
        pos = [a for a, _ in parts]
        while True:
            live = [j for j, (_, b) in enumerate(parts) if pos[j] < b]
            if not live:
                break
            got = run_each(tier_lean.scan_level, [
                (win, cnt, evl, pos[j], parts[j][1], lo, obase, level, target, never,
                 frontier > 0, batch, outs[j]) for j in live])
            n = 0
            for j, (stop, found, done) in zip(live, got, strict=True):
                pos[j] = stop
                settled += done
                queue[n:n + found] = outs[j][:found]
                n += found
            if not n:
                continue
            run_blocks(k.gather_parents, (ctx, win, queue, buf), 0, n, 0, lo, hi, obase, mp,
                       ss, min_block=256)
            settled += sum(run_each(k.apply_parents, [
                (win, cnt, queue, buf, 0, n, nothing, level, lo, obase, target, never, mp, p,
                 q) for p, q in parts]))
        if settled and level + 1 > limit:
            raise too_far(game, limit)
        frontier = settled
        level += 1


def event_levels(k, evl, win, base):
    """(parts, hist, per_level, open): the tier's events by level + 1 (hist: per block
    of `parts`, per_level: summed, ending at the last level with events) and how many
    records win[base:] are reached and undecided."""
    m = evl.shape[0]
    parts = blocks(0, m, SPLIT)
    top = (max_record_remoteness(evl.dtype) + 1 if evl.itemsize == 2
           else int(evl.max()) if m else 0)
    hist = np.zeros((len(parts), top + 1), np.int64)
    n_open = sum(run_each(k.count_events, [(evl, win, base, hist[j], a, b)
                                            for j, (a, b) in enumerate(parts)]))
    per_level = hist.sum(axis=0)
    top = int(np.flatnonzero(per_level)[-1]) if per_level.any() else 0
    return parts, hist[:, :top + 1], per_level[:top + 1], int(n_open)


def split(a: int, b: int, parts: int) -> list[tuple[int, int]]:
    """[a, b) in `parts` ranges of (nearly) equal length."""
    return [(a + (b - a) * j // parts, a + (b - a) * (j + 1) // parts) for j in range(parts)]


def too_far(game: Game, limit: int) -> GsolveError:
    return GsolveError(f"{game.describe()}: remoteness passed {limit}: raise the game's "
                       "max_remoteness")
