"""The window solve modes (engine/memory.py FAST and LEAN): the task's records in memory,
a window of its own range and the child ranges its reach recorded (engine/task.py
`window`). Each tier piece is decided from its children's records: one pass when its
moves all leave the tier, in-tier sweeps or a retrograde to a fixed point when they can
stay (engine/loopy.py). The lean mode differs only there: its retrograde finds each level
by scanning the tier (engine/levels.py) instead of holding sorted events and a queue."""

from __future__ import annotations

import numpy as np

from games.base import Game
from solver.engine import loopy
from solver.engine.task import (
    REACHED,
    TEMPLATE,
    Task,
    load_records,
    outside,
    runs,
    side_by_side,
    window,
    write_records,
)
from solver.kernels.records import record_dtype
from solver.runtime.parallel import run_apart, run_blocks, threads


def tell(on_piece, pieces) -> None:
    """`on_piece(tier, lo, hi)` of each piece written, where one listens."""
    if on_piece is not None:
        for tier, lo, hi, _ in pieces:
            on_piece(tier, lo, hi)


def solve(game: Game, group, task: Task, segments, lean: bool, bad, on_piece=None,
          lock=None, tally: np.ndarray | None = None) -> int:
    """The task solved in a window over `segments`; returns the positions it decided.
    The task's range is written at the end, once per chunk (a write re-encodes whole
    chunks) and WRITE positions at a time."""
    from solver.kernels.codegen import kernels

    k = kernels(game.module, TEMPLATE)
    ctx, mc, ss = game.ctx, game.max_children, game.scratch_size
    dtype = record_dtype(game.max_remoteness)
    gstart, gstop, woff, obase, slots = window(task, segments)
    value_arr, rem_arr = group["value"], group["remoteness"]
    win = np.empty(slots, dtype)
    load_records(win, outside(task, segments), value_arr, rem_arr, dtype)
    reached = group[REACHED][task.a:task.b]
    run_blocks(k.mark_primitives, (win, reached), task.a, task.b, obase, task.a)
    del reached
    seg = (gstart, gstop, woff)
    rs = runs(task)
    if threads() > 1 and game.has_parents and not lean:
        # loopy tiers of a level, each up to a thread's share of the largest, a thread
        # each: no more memory than the largest tier alone (Quixo 4x4: a tier of 100K
        # canonical positions, spread over 2 threads, kept them 65-80% busy)
        most = max((hi - lo for lo, hi, in_tier, _ in rs if in_tier), default=0)
        groups = side_by_side(task, rs, most // threads(), threads())
    else:
        groups = [[r] for r in rs]
    for together in groups:
        if len(together) > 1:
            run_apart(loopy.retrograde, [(game, win, seg, lo, hi, obase, bad)
                                         for lo, hi, _, _ in together])
            continue
        lo, hi, in_tier, _ = together[0]
        if not in_tier:
            if run_blocks(k.combine_tier, (ctx, win, *seg), lo, hi, obase, mc, ss,
                          game.puzzle) < 0:
                raise bad
        elif game.has_parents:
            loopy.retrograde(game, win, seg, lo, hi, obase, bad, lean)
        else:
            loopy.sweeps(k, game, win, seg, lo, hi, obase, bad)
    decided = write_records(win, obase, task.a, task.b, value_arr, rem_arr, lock, tally)
    tell(on_piece, task.pieces)
    return decided
