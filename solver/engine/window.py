"""The window modes (engine/memory.py WINDOW reach; FAST and LEAN solve): a task held in
memory with a window over its own range and child ranges, laid end to end (engine/task.py
`window`).

* reach: a byte per slot of the own range and of the whole child tiers. The task's reached
  positions are expanded into it, parents first, to a fixed point inside a loopy tier;
  then the marks outside its own range are pushed into the store for the child tasks
  (push_window), and its own bytes stored.
* solve: the task's records and those of the child ranges its reach recorded. Each tier
  piece is decided from its children's records: one pass when its moves all leave the
  tier, in-tier sweeps or a retrograde to a fixed point when they can stay
  (engine/loopy.py). The lean mode differs only there: its retrograde finds each level by
  scanning the tier (engine/levels.py) instead of holding sorted events and a queue."""

from __future__ import annotations

import numpy as np

from games.base import Game
from solver.engine import loopy
from solver.engine.task import (
    REACHED,
    TEMPLATE,
    Task,
    holder,
    load_records,
    outside,
    own_marks,
    parents_first,
    push_window,
    put,
    read_once,
    runs,
    side_by_side,
    window,
    write_records,
)
from solver.kernels.records import record_dtype
from solver.kernels.tiers import DIRTY
from solver.runtime.parallel import run_apart, run_blocks, threads


class Spare:
    """A byte buffer kept from one task's window to the next: zeroed for a reach window,
    as it is for a solve's records. A new window each task cost a page fault and a page
    zeroed by the kernel for every 4 KiB its kernels wrote, and an unmap with its TLB
    shootdowns when dropped (Connect-4 6x6's reach: 27 % of the CPU in the kernel,
    2026-12-06-connect4-6x6-run.md; its solve: 17 % zeroing pages, 2026-12-07); a kept
    reach window is cleared where the task marked it, which push_window's spans say."""

    def __init__(self):
        self.buf = np.zeros(0, np.uint8)
        self.dirty = False

    def zeros(self, n: int) -> np.ndarray:
        """n zero bytes (the buffer grows to the largest asked for)."""
        if n > self.buf.size:
            self.buf = np.zeros(0, np.uint8)  # the old one goes before the new is made
            self.buf = np.zeros(n, np.uint8)
        elif self.dirty:  # a task that stopped midway left marks
            self.buf[:n] = 0
        self.dirty = True
        return self.buf[:n]

    def empty(self, n: int, dtype) -> np.ndarray:
        """n elements of `dtype`, holding whatever was there (the buffer grows to the
        largest asked for: tasks of a level alternate between small windows and large)."""
        size = n * np.dtype(dtype).itemsize
        if size > self.buf.size:
            self.buf = np.zeros(0, np.uint8)  # the old one goes before the new is made
            self.buf = np.empty(size, np.uint8)
        self.dirty = True
        return self.buf[:size].view(dtype)

    def held(self, size: int) -> int:
        """The bytes the buffer holds once `empty` or `zeros` gave `size` of them."""
        return max(self.buf.size, size)

    def clean(self) -> None:
        """The caller has zeroed every byte it wrote."""
        self.dirty = False

    def drop(self) -> None:
        self.buf, self.dirty = np.zeros(0, np.uint8), False


def clear_spans(win: np.ndarray, task: Task, starts: np.ndarray, stops: np.ndarray) -> None:
    """Zero the window bytes of child hash ranges [starts, stops), each inside one part."""
    gstart, _, woff, _, _ = window(task)
    part = np.searchsorted(gstart, starts, side="right") - 1
    at = woff[part] + starts - gstart[part]
    for x, n in zip(at.tolist(), (stops - starts).tolist(), strict=True):
        win[x:x + n] = 0


def reach(game: Game, group, task: Task, lock, bad,
          spare: Spare | None = None) -> tuple[int, np.ndarray, np.ndarray]:
    """(positions reached in the task's own range, starts and stops of the child ranges
    it marked). With `spare` the window is its buffer, left zeroed for the next task."""
    from solver.kernels.codegen import kernels

    k = kernels(game.module, TEMPLATE)
    arr = group[REACHED]
    gstart, gstop, woff, obase, slots = window(task)
    win = np.zeros(slots, np.uint8) if spare is None else spare.zeros(slots)
    dirty = np.zeros((slots >> DIRTY) + 1, np.uint8)  # blocks of marks outside a tier
    own = win[task.a + obase:task.b + obase]
    own_marks(arr, game, task.a, task.b, own)
    ctx, mc, ss = game.ctx, game.max_children, game.scratch_size

    def step(lo: int, hi: int) -> int:
        new = run_blocks(k.forward, (ctx, win, dirty, gstart, gstop, woff), lo, hi, obase,
                         lo, hi, mc, ss)
        if new < 0:
            raise bad
        return new

    parents_first(task, step)
    starts, stops = push_window(arr, win, task, holder(lock), dirty=dirty)
    kept = own.copy()  # the store queues what it is given, unchanged after
    if spare is None:
        win = own = None  # the window goes before the own bytes are stored
    else:
        own[:] = 0
        clear_spans(win, task, starts, stops)
        spare.clean()
    put([(arr, kept)], task.a, task.b, lock)
    return int(np.count_nonzero(kept)), starts, stops


def tell(on_piece, pieces) -> None:
    """`on_piece(tier, lo, hi)` of each piece written, where one listens."""
    if on_piece is not None:
        for tier, lo, hi, _ in pieces:
            on_piece(tier, lo, hi)


def solve(game: Game, group, task: Task, segments, lean: bool, bad, on_piece=None,
          lock=None, tally: np.ndarray | None = None, spare: Spare | None = None) -> int:
    """The task solved in a window over `segments` (in `spare`'s buffer where one is
    given); returns the positions it decided. The task's range is written at the end, once
    per chunk (a write re-encodes whole chunks) and WRITE positions at a time."""
    from solver.kernels.codegen import kernels

    k = kernels(game.module, TEMPLATE)
    ctx, mc, ss = game.ctx, game.max_children, game.scratch_size
    dtype = record_dtype(game.max_remoteness)
    gstart, gstop, woff, obase, slots = window(task, segments)
    value_arr, rem_arr = group["value"], group["remoteness"]
    win = np.empty(slots, dtype) if spare is None else spare.empty(slots, dtype)
    load_records(win, outside(task, segments), value_arr, rem_arr, dtype)
    reached = read_once(group[REACHED], task.a, task.b)
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
