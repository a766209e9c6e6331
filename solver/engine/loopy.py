"""The loopy tiers of a task: the two tier-worker algorithms that decide a tier whose moves
can stay inside it. `retrograde` runs where the game has un-moves (one child generation
per position, one parent generation per decided one); `sweeps` where it has none
(value iteration: one child generation per position and sweep)."""

from __future__ import annotations

import numpy as np

from games.base import Game
from solver.engine.lean import SPLIT, event_levels, max_parents, split, too_far
from solver.engine.lean import propagate as lean_propagate
from solver.kernels.records import (
    DRAW,
    LOSE,
    SHIFT,
    TIE,
    VISITED,
    WIN,
    max_record_remoteness,
    record_dtype,
)
from solver.runtime.parallel import run_blocks, run_each, threads


def sweeps(k, game: Game, win, seg, lo, hi, obase, bad) -> None:
    """A loopy tier to its fixed point: sweep i decides remoteness i; past the slowest
    decided position outside the tier, a sweep that decides nothing is the fixed point."""
    ctx, mc, ss = game.ctx, game.max_children, game.scratch_size
    a, b = lo + obase, hi + obase
    longest = 0
    for part in (win[:a], win[b:]):
        if part.size:
            longest = max(longest, int((part >> SHIFT).max()))

    def sweep(kernel, *args):
        i = 1
        while True:
            n = run_blocks(kernel, (ctx, win, *seg), lo, hi, obase, i, *args, mc, ss)
            if n < 0:
                raise bad
            if n == 0 and i > longest:
                return
            i += 1

    if game.puzzle:
        sweep(k.reach_tier, WIN)
    else:
        sweep(k.winlose_tier)
        sweep(k.reach_tier, TIE)
    own = win[a:b]
    own[own == VISITED] = VISITED | (LOSE if game.puzzle else DRAW)


RETRO = "solver.kernels.tier_retro"


def retrograde(game: Game, win, seg, lo, hi, obase, bad, lean: bool = False) -> None:
    """A loopy tier by retrograde through the game's un-moves (kernels/tier_retro.py): the
    records `sweeps` gives, from one child generation per position and one parent
    generation per decided one, instead of one child generation per position and sweep.
    `lean`: levels found by scanning the tier (engine/lean.py), in `retro_bytes(lean=True)`."""
    from solver.kernels.codegen import kernels

    propagate = lean_propagate if lean else _propagate

    k = kernels(game.module, RETRO)
    ctx, mc, ss = game.ctx, game.max_children, game.scratch_size
    m = hi - lo
    evl = np.empty(m, win.dtype)
    limit = max_record_remoteness(win.dtype)
    mp = max_parents(game)
    tie = True
    if not game.puzzle:
        cnt = np.empty(m, counter_dtype(game))
        never = np.iinfo(cnt.dtype).max
        ties = run_blocks(k.scan_children, (ctx, win, *seg, cnt, evl), lo, hi, lo, hi, obase,
                          0, never, mc, ss)
        if ties < 0:
            raise bad
        propagate(k, game, win, cnt, evl, lo, hi, obase, 0, never, limit, mp)
        del cnt
        tie = ties > 0
    if tie:  # TIE (puzzles: WIN) spreads only from a decided one outside the W/L phase
        target = WIN if game.puzzle else TIE
        nocount = np.zeros(1, np.uint8)
        if run_blocks(k.scan_children, (ctx, win, *seg, nocount, evl), lo, hi, lo, hi, obase,
                      target, 255, mc, ss) < 0:
            raise bad
        propagate(k, game, win, nocount, evl, lo, hi, obase, target, 255, limit, mp)
    own = win[lo + obase:hi + obase]
    own[own == VISITED] = VISITED | (LOSE if game.puzzle else DRAW)


def warm(game: Game, dtype) -> None:
    """Load `retrograde`'s kernels for both of its phases (so they do not count as solve time)."""
    from solver.kernels.codegen import kernels

    if not retro_bytes(game):
        return
    k = kernels(game.module, RETRO)
    ctx, mc, ss = game.ctx, game.max_children, game.scratch_size
    mp = max_parents(game)
    win, evl = np.zeros(1, dtype), np.zeros(0, dtype)
    seg = (np.zeros(1, np.int64), np.ones(1, np.int64), np.zeros(1, np.int64))
    order = queue = np.zeros(0, np.uint32)
    buf = np.zeros(0, np.int32)
    for cnt, target in ((np.zeros(0, counter_dtype(game)), 0), (np.zeros(1, np.uint8), WIN)):
        never = int(np.iinfo(cnt.dtype).max)
        k.scan_children(ctx, win, *seg, cnt, evl, 0, 0, 0, 0, 0, target, never, mc, ss)
        _event_order(k, evl, win, 0, np.uint32)
        k.apply_events(win, cnt, order, 0, 0, queue, 0, 0, 0, target, never)
        k.gather_parents(ctx, win, queue, buf, 0, 0, 0, 0, 0, 0, mp, ss)
        k.apply_parents(win, cnt, queue, buf, 0, 0, queue, 0, 0, 0, target, never, mp, 0, 0)


BATCH = 1 << 14  # frontier entries whose parents the pool gathers at once (int32 each)


def _propagate(k, game: Game, win, cnt, evl, lo, hi, obase, target, never, limit,
               mp) -> None:
    """W/L (target 0) or `target` spread level by level from the events and through
    parents, a level at a time: the parents of a batch of the level's positions generated
    in blocks on the thread pool, then applied by a thread per parent range. A level's
    records do not depend on the order its positions are taken in, so any thread count
    gives the same records.
    The event list and the queue are sized by what they can hold, not by the tier (Quixo
    4x4 with symmetry reaches 1 in 8 of a tier: 28 of a task's 60 MiB)."""
    ctx, ss = game.ctx, game.scratch_size
    index = np.uint32 if hi - lo < 1 << 32 else np.int64
    first, order, n_open = _event_order(k, evl, win, lo + obase, index)
    if n_open == 0:  # nothing left to decide
        return
    queue = np.empty(n_open, index)
    top = first.size - 1
    buf = np.empty(min(BATCH, hi - lo) * mp, np.int32 if hi - lo < 1 << 31 else np.int64)
    # parents applied by hash range, a range per thread (Quixo: 1.8 of 11 s on 2 threads
    # when one thread applied them all)
    ranges = split(0, hi - lo, threads() if hi - lo >= SPLIT else 1)
    outs = [np.empty(min(buf.size, n_open), index) for _ in ranges] if len(ranges) > 1 else []
    head = tail = level = 0
    while level < top or head < tail:
        end = tail
        if level < top:
            a, b = int(first[level]), int(first[level + 1])
            if len(ranges) == 1 or b - a < SPLIT // 4:
                tail += k.apply_events(win, cnt, order, a, b, queue[tail:], level, lo, obase,
                                       target, never)
            else:  # a part of the events per thread, each at most an out[] long
                step = len(outs) * outs[0].size
                for c in range(a, b, step):
                    got = run_each(k.apply_events, [
                        (win, cnt, order, x, y, out, level, lo, obase, target, never)
                        for out, (x, y) in zip(outs, split(c, min(b, c + step), len(outs)),
                                               strict=True)])
                    tail = _append(queue, tail, outs, got)
        for x in range(head, end, BATCH):
            y = min(end, x + BATCH)
            run_blocks(k.gather_parents, (ctx, win, queue, buf), x, y, x, lo, hi, obase, mp,
                       ss, min_block=256)
            if len(ranges) == 1:
                tail += k.apply_parents(win, cnt, queue, buf, x, y, queue[tail:], level, lo,
                                        obase, target, never, mp, 0, hi - lo)
                continue
            got = run_each(k.apply_parents, [
                (win, cnt, queue, buf, x, y, out, level, lo, obase, target, never, mp, p, q)
                for out, (p, q) in zip(outs, ranges, strict=True)])
            tail = _append(queue, tail, outs, got)
        if tail > end and level + 1 > limit:
            raise too_far(game, limit)
        head = end
        level += 1


def _append(queue, tail: int, outs, counts) -> int:
    """The positions each part decided (outs[j][:counts[j]]) onto the queue, in part
    order; returns the new tail."""
    for out, n in zip(outs, counts, strict=True):
        queue[tail:tail + n] = out[:n]
        tail += n
    return tail


def _event_order(k, evl, win, base, index):
    """(first, order, open): the tier's positions with an event sorted by level into
    order[], those of level L at order[first[L]:first[L + 1]], within a level by hash (as
    a serial pass gives them), and how many records win[base:] are reached and undecided.
    A counting sort in blocks on the pool: Quixo's 4M-slot tiers took 1.4 s of serial
    passes on 2 threads."""
    parts, hist, per_level, n_open = event_levels(k, evl, win, base)
    top = per_level.size - 1
    first = np.zeros(top + 1, np.int64)
    np.cumsum(per_level[1:top + 1], out=first[1:])
    fill = np.cumsum(hist, axis=0) - hist  # blocks before
    fill[:, 1:] += first[:-1]
    order = np.empty(first[-1], index)
    run_each(k.place_events, [(evl, fill[j], order, a, b) for j, (a, b) in enumerate(parts)])
    return first, order, n_open


def counter_dtype(game: Game):
    """Child counters of `retrograde`, with room for one more count and a `never` value."""
    return np.uint8 if game.max_children + 1 < 255 else np.uint16


def retro_bytes(game: Game, lean: bool = False) -> int:
    """Memory of `retrograde` per position of the loopy tier it runs on (0 when it does not
    run): counter and event level, and (not `lean`) sorted events and frontier queue."""
    if not game.has_parents or not game.loopy:
        return 0
    rec = np.dtype(record_dtype(game.max_remoteness)).itemsize
    return np.dtype(counter_dtype(game)).itemsize + rec + (0 if lean else 4 + 4)
