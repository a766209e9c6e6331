"""The far-children reach mode (engine/memory.py FAR): only the task's own range is held,
a byte a position; its children in other tasks are collected as hashes, a block at a
time on the thread pool, sorted and made distinct, then pushed into the store as reached.
Slower than the window mode, and little memory where the child tiers are large."""

from __future__ import annotations

import numpy as np

from games.base import Game
from solver.engine.memory import block_slots
from solver.engine.task import (
    REACHED,
    TEMPLATE,
    Task,
    holder,
    own_marks,
    parents_first,
    put,
    raise_chunk,
    spans,
    unique,
)
from solver.runtime.parallel import call, executor, threads

MERGE = 16  # sorted parts of far children kept before they are merged into one


def reach(game: Game, group, task: Task, lock, bad) -> tuple[int, np.ndarray, np.ndarray]:
    """(positions reached in the task's own range, starts and stops of the child ranges
    it marked)."""
    from solver.kernels.codegen import kernels

    k = kernels(game.module, TEMPLATE)
    arr = group[REACHED]
    own = np.empty(task.size, np.uint8)
    own_marks(arr, game, task.a, task.b, own)
    parts: list[np.ndarray] = []

    def merge():
        if len(parts) > MERGE:
            parts[:] = [unique(np.concatenate(parts))]

    parents_first(task, lambda lo, hi: _expand(k, game, own, task, lo, hi, parts), merge)
    far = unique(np.concatenate(parts)) if parts else np.empty(0, np.int64)
    parts.clear()
    _push_far(arr, far, task, holder(lock), bad)
    starts, stops = spans(far)
    put([(arr, own)], task.a, task.b, lock)
    return int(np.count_nonzero(own)), starts, stops


def _push_far(arr, far: np.ndarray, task: Task, hold, bad) -> None:
    """Push far children (sorted distinct hashes) into the store as reached."""
    gstart = np.array([s for s, _ in task.segments], np.int64)
    gstop = np.array([e for _, e in task.segments], np.int64)
    seg = np.searchsorted(gstart, far, side="right") - 1
    if far.size and ((seg < 0).any() or (far >= gstop[np.maximum(seg, 0)]).any()):
        raise bad
    del seg
    chunk = arr.chunks[0]
    cid = far // chunk
    cuts = np.flatnonzero(np.diff(cid)) + 1
    pieces = np.split(far, cuts) if far.size else []
    with hold(sorted({int(p[0] // chunk) for p in pieces})):  # one round trip for all
        for piece in pieces:
            raise_chunk(arr, int(piece[0] // chunk), [piece])


def _expand(k, game: Game, own, task: Task, lo: int, hi: int, parts: list) -> int:
    """One forward pass over [lo, hi) in blocks on the thread pool; the children outside
    the task go to `parts` (sorted, unique per block). Returns the new in-tier marks."""
    ctx, mc, ss = game.ctx, game.max_children, game.scratch_size

    def one(xy):
        x, y = xy
        far = np.empty((y - x) * mc, np.int64)
        new, m = k.forward_far(ctx, own, x, y, task.a, task.b, lo, hi, far, mc, ss)
        return new, (unique(far[:m]) if m else None)

    step = block_slots(game)
    blocks = [(x, min(hi, x + step)) for x in range(lo, hi, step)]
    if len(blocks) > 1 and threads() > 1:
        results = list(executor().map(one, blocks))
    else:
        results = [call(one, b) for b in blocks]
    new = 0
    for n, far in results:
        new += n
        if far is not None:
            parts.append(far)
    return new
