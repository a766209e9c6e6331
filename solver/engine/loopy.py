"""The loopy tiers of a task: the two tier-worker algorithms that decide a tier whose moves
can stay inside it. `retrograde` runs where the game has un-moves (one child generation
per position, one parent generation per decided one); `sweeps` where it has none
(value iteration: one child generation per position and sweep)."""

from __future__ import annotations

import numpy as np

from games.base import Game
from solver.engine.levels import SPLIT, event_levels, split, too_far
from solver.engine.levels import propagate as lean_propagate
from solver.engine.memory import counter_dtype, max_parents, retro_bytes
from solver.kernels.records import (
    DRAW,
    LOSE,
    SHIFT,
    TIE,
    VISITED,
    WIN,
    max_record_remoteness,
)
from solver.runtime.parallel import Shared, run_blocks, run_each, threads


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
    `lean`: levels found by scanning the tier (engine/levels.py), in
    `memory.retro_bytes(lean=True)`."""
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


BATCH = 1 << 14  # frontier entries whose parents are gathered at once (int32 each)
BUFFER = 1 << 23  # bytes of each of the two parent buffers at most (Morris: 1,728 parents)
GATHER = 1 << 10  # frontier entries a thread takes at a time when gathering


def _propagate(k, game: Game, win, cnt, evl, lo, hi, obase, target, never, limit,
               mp) -> None:
    """W/L (target 0) or `target` spread level by level from the events and through
    parents, a level at a time, its frontier in batches: while one thread applies a
    batch's parents, in order, the others gather the next batch's, which the applying
    thread then joins. A level's records do not depend on the order its positions are
    taken in, so any thread count gives the same records. A gather may list a parent
    that the batch before decides meanwhile: the apply checks again.
    (Quixo 4x4 at 2 threads: parents applied by a thread per hash range, after each
    gather, ran at 1.2 of 2 cores, 0.54 of a 7.7 s solve.)
    The event list and the queue are sized by what they can hold, not by the tier (Quixo
    4x4 with symmetry reaches 1 in 8 of a tier: 28 of a task's 60 MiB)."""
    ctx, ss = game.ctx, game.scratch_size
    index = np.uint32 if hi - lo < 1 << 32 else np.int64
    first, order, n_open = _event_order(k, evl, win, lo + obase, index)
    if n_open == 0:  # nothing left to decide
        return
    queue = np.empty(n_open, index)
    top = first.size - 1
    relative = np.dtype(np.int32 if hi - lo < 1 << 31 else np.int64)
    batch = max(1, min(BATCH, hi - lo, BUFFER // (relative.itemsize * mp)))
    size = batch * mp
    pipe = threads() > 1  # a batch gathered while the one before applies
    bufs = [np.empty(size, relative) for _ in range(2 if pipe else 1)]
    # a level's events settled by a part per thread in large tiers
    parts = threads() if hi - lo >= SPLIT else 1
    outs = [np.empty(min(size, n_open), index) for _ in range(parts)] if parts > 1 else []

    share = GATHER if pipe else batch  # one call a batch, with nobody to share

    def _gather(x, y, buf):
        return x, y, buf, Shared(k.gather_parents, [
            (ctx, win, queue, buf, a, min(y, a + share), x, lo, hi, obase, mp, ss)
            for a in range(x, y, share)])

    head = tail = level = 0
    ahead = None  # (x, y, buf, job): the next batch queue[x:y], its parents being gathered
    while level < top or head < tail:
        end = tail
        if level < top:
            a, b = int(first[level]), int(first[level + 1])
            if parts == 1 or b - a < SPLIT // 4:
                tail += k.apply_events(win, cnt, order, a, b, queue[tail:], level, lo, obase,
                                       target, never)
            else:  # a part of the events per thread, each at most an out[] long
                step = parts * outs[0].size
                for c in range(a, b, step):
                    got = run_each(k.apply_events, [
                        (win, cnt, order, x, y, out, level, lo, obase, target, never)
                        for out, (x, y) in zip(outs, split(c, min(b, c + step), parts),
                                               strict=True)])
                    tail = _append(queue, tail, outs, got)
        x = head
        while x < end:  # the level's frontier, a batch at a time
            if ahead is None:
                ahead = _gather(x, min(end, x + batch), bufs[0])
            x, y, buf, job = ahead
            job.join()
            # the next batch: the level's, else the next level's entries queued so far
            nx, ny = (y, min(end, y + batch)) if y < end else (end, min(tail, end + batch))
            ahead = _gather(nx, ny, bufs[buf is bufs[0]]) if pipe and ny > nx else None
            tail += k.apply_parents(win, cnt, queue, buf, x, y, queue[tail:], level, lo,
                                    obase, target, never, mp, 0, hi - lo)
            x = y
        if tail > end and level + 1 > limit:
            if ahead is not None:
                ahead[3].join()
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
