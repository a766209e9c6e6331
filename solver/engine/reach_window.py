"""The window reach mode (engine/memory.py WINDOW): a byte per slot of the task's own range
and of its whole child tiers, laid end to end (engine/task.py `window`). The task's
reached positions are expanded into it, parents first, to a fixed point inside a loopy
tier; then the marks outside its own range are pushed into the store for the child tasks
(push_window), and its own bytes stored."""

from __future__ import annotations

import numpy as np

from games.base import Game
from solver.engine.task import (
    REACHED,
    TEMPLATE,
    Task,
    holder,
    own_marks,
    parents_first,
    push_window,
    put,
    window,
)
from solver.runtime.parallel import run_blocks


def reach(game: Game, group, task: Task, lock, bad) -> tuple[int, np.ndarray, np.ndarray]:
    """(positions reached in the task's own range, starts and stops of the child ranges
    it marked)."""
    from solver.kernels.codegen import kernels

    k = kernels(game.module, TEMPLATE)
    arr = group[REACHED]
    gstart, gstop, woff, obase, slots = window(task)
    win = np.zeros(slots, np.uint8)
    own = win[task.a + obase:task.b + obase]
    own_marks(arr, game, task.a, task.b, own)
    ctx, mc, ss = game.ctx, game.max_children, game.scratch_size

    def step(lo: int, hi: int) -> int:
        new = run_blocks(k.forward, (ctx, win, gstart, gstop, woff), lo, hi, obase, lo, hi,
                         mc, ss)
        if new < 0:
            raise bad
        return new

    parents_first(task, step)
    starts, stops = push_window(arr, win, task, holder(lock))
    own = own.copy()
    win = None  # the window goes before the own bytes are stored
    put([(arr, own)], task.a, task.b, lock)
    return int(np.count_nonzero(own)), starts, stops
