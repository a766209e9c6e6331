"""The far-children reach mode (engine/memory.py FAR): only the task's own range is held,
a byte a position; its children in other tasks are collected as hashes, a block at a
time on the thread pool, sorted and made distinct, then pushed into the store as reached.
Slower than the window mode, and little memory where the child tiers are large."""

from __future__ import annotations

import numpy as np

from games.base import Game
from solver.engine.memory import block_bytes, block_slots
from solver.engine.task import (
    REACHED,
    TEMPLATE,
    Task,
    holder,
    merge_unique,
    own_marks,
    parents_first,
    put,
    raise_chunks,
    spans,
    unique,
)
from solver.runtime.parallel import call, in_order, threads


def reach(game: Game, group, task: Task, lock, bad) -> tuple[int, np.ndarray, np.ndarray]:
    """(positions reached in the task's own range, starts and stops of the child ranges
    it marked)."""
    from solver.kernels.codegen import kernels

    k = kernels(game.module, TEMPLATE)
    arr = group[REACHED]
    own = np.empty(task.size, np.uint8)
    own_marks(arr, game, task.a, task.b, own)
    parts: list[np.ndarray] = []  # sorted far children of blocks, not yet merged
    merged = [np.empty(0, np.int64)]
    least = block_bytes(game)

    def add(part: np.ndarray) -> None:
        # merged once they pass a quarter of what is merged (each merge a linear pass):
        # held all through a pass, a 6x6 task's parts outgrew its planned bytes
        parts.append(part)
        if sum(p.nbytes for p in parts) > max(least, merged[0].nbytes // 4):
            merged.append(merge_unique(merged.pop(), parts))

    parents_first(task, lambda lo, hi: _expand(k, game, own, task, lo, hi, add))
    far = merge_unique(merged.pop(), parts)
    _push_far(arr, far, task, holder(lock), bad)
    starts, stops = spans(far)
    put([(arr, own)], task.a, task.b, lock)
    return int(np.count_nonzero(own)), starts, stops


def _push_far(arr, far: np.ndarray, task: Task, hold, bad) -> None:
    """Push far children (sorted distinct hashes) into the store as reached (no array of
    far's size made beside it)."""
    inside = sum(int(np.searchsorted(far, e) - np.searchsorted(far, s))
                 for s, e in task.segments)
    if inside != far.size:  # a child outside the task's child tiers
        raise bad
    if not far.size:
        return
    chunk = arr.chunks[0]
    first, last = int(far[0]) // chunk, int(far[-1]) // chunk
    cuts = np.searchsorted(far, np.arange(first, last + 2, dtype=np.int64) * chunk)
    runs = [(c, x, y) for c, x, y in zip(range(first, last + 1), cuts[:-1].tolist(),
                                          cuts[1:].tolist(), strict=True) if x < y]
    with hold([c for c, _, _ in runs]):  # one round trip for all
        raise_chunks(arr, [(c, [far[x:y]]) for c, x, y in runs])


def _expand(k, game: Game, own, task: Task, lo: int, hi: int, add) -> int:
    """One forward pass over [lo, hi) in blocks on the thread pool, a block a thread at a
    time; the children outside the task go to `add` (sorted, unique per block), in block
    order. Returns the new in-tier marks."""
    ctx, mc, ss = game.ctx, game.max_children, game.scratch_size

    def one(xy):
        x, y = xy
        far = np.empty((y - x) * mc, np.int64)
        new, m = k.forward_far(ctx, own, x, y, task.a, task.b, lo, hi, far, mc, ss)
        return new, (unique(far, m) if m else None)

    step = block_slots(game)
    blocks = [(x, min(hi, x + step)) for x in range(lo, hi, step)]
    if len(blocks) > 1 and threads() > 1:  # a block a thread at a time, in order
        results = in_order(one, ((b,) for b in blocks), threads())
    else:
        results = (call(one, b) for b in blocks)
    new = 0
    for n, far in results:
        new += n
        if far is not None:
            add(far)
    return new
