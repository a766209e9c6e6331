"""The tier worker: one task of a tiered solve, from the store to the store.

A task is a hash range [a, b) that holds whole loopy tiers and whole or partial loop-free
tiers (solver/tier_manager.py plans them). It writes the chunks inside its range alone; a
chunk it shares with a neighbour task at either end is rewritten under a lock per chunk
(read, merge, write: each chunk write replaces the file whole, so a reader never sees half
of one). It runs in two phases, each reading only
what the manager says it needs: the task's own range and its child tiers (its window).

* reach (parents first): the task's reach bytes come from the store, where its parent
  tasks pushed them; it expands them (to a fixed point inside a loopy tier), pushes the
  marks of its children in other tasks back into the store (OR-ed under a lock per chunk,
  so parents running side by side never lose each other's marks, and a retried task only
  repeats marks), and stores its own expanded bytes.
* solve (children first): child tiers' values come from the store; each tier piece of
  the task is decided from them (one pass when its moves all leave the tier; in-tier
  sweeps to a fixed point when they can stay) and written to the store.

A task always starts again from what its parents (reach) or children (solve) left in the
store, never from its own earlier output, so running it twice writes the same bytes.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass

import numpy as np

from games.base import Game, GsolveError
from solver.kernels.records import (
    DRAW,
    LOSE,
    SHIFT,
    TIE,
    VISITED,
    WIN,
    record_dtype,
    split_records,
)
from solver.parallel import run_blocks

TEMPLATE = "solver.kernels.tiers"
REACHED = "reached"  # the reach bytes of a tiered solve, kept in its partial store


@dataclass(frozen=True)
class Task:
    """What the manager hands a worker: plain data, so it pickles to a cluster."""

    index: int
    a: int  # own range [a, b)
    b: int
    pieces: tuple[tuple[int, int, int, bool], ...]  # (tier, lo, hi, loopy), children first
    segments: tuple[tuple[int, int], ...]  # window intervals, sorted, own range included

    @property
    def size(self) -> int:
        return self.b - self.a


def window(task: Task) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """(gstart, gstop, woff, obase, slots) of the task's window."""
    gstart = np.array([s for s, _ in task.segments], np.int64)
    gstop = np.array([e for _, e in task.segments], np.int64)
    sizes = gstop - gstart
    woff = np.zeros(len(sizes), np.int64)
    woff[1:] = np.cumsum(sizes)[:-1]
    s = int(np.searchsorted(gstart, task.a, side="right")) - 1
    obase = int(woff[s] - gstart[s])
    return gstart, gstop, woff, obase, int(sizes.sum())


def outside(task: Task):
    """(window offset, start, stop) of each window part that is not the task's own range."""
    gstart, gstop, woff, _, _ = window(task)
    for s, e, w in zip(gstart.tolist(), gstop.tolist(), woff.tolist(), strict=True):
        for x, y in ((s, min(e, task.a)), (max(s, task.b), e)):
            if x < y:
                yield w + x - s, x, y


def _bad(game: Game, task: Task) -> GsolveError:
    return GsolveError(f"{game.name}: a move from hashes {task.a}..{task.b - 1} leads to a tier "
                       "its tier does not list as a child")


def reach(game: Game, group, task: Task, lock=None) -> int:
    """Phase 1 of a task; returns the positions it found reachable in its own range."""
    from solver.codegen import kernels

    k = kernels(game.module, TEMPLATE)
    ctx, mc, ss = game.ctx, game.max_children, game.scratch_size
    gstart, gstop, woff, obase, slots = window(task)
    arr = group[REACHED]
    win = np.zeros(slots, np.uint8)
    own = win[task.a + obase:task.b + obase]
    own[:] = arr[task.a:task.b] != 0  # states from an earlier try start over as "reached"
    if task.a <= game.start < task.b:
        own[game.start - task.a] = 1
    seg = (gstart, gstop, woff)
    for _tier, lo, hi, loopy in reversed(task.pieces):  # parents first
        while True:
            n = run_blocks(k.forward, (ctx, win, *seg), lo, hi, obase, lo, hi, mc, ss)
            if n < 0:
                raise _bad(game, task)
            if not loopy or n == 0:
                break
    chunk = arr.chunks[0]
    hold = lock or (lambda c: contextlib.nullcontext())
    for w, x, y in outside(task):
        part = win[w:w + y - x]
        if not part.any():
            continue
        for c in range(x // chunk, (y - 1) // chunk + 1):
            p, q = max(x, c * chunk), min(y, (c + 1) * chunk)
            mine = part[p - x:q - x]
            if not mine.any():
                continue
            with hold(c):
                arr[p:q] = arr[p:q] | mine
    put([(arr, own)], task.a, task.b, lock)
    return int(np.count_nonzero(own))


def put(pairs, lo: int, hi: int, lock=None) -> None:
    """arr[lo:hi] = data for each (arr, data) of arrays chunked alike; a chunk the range
    covers only in part is rewritten under lock(chunk index) when a lock is given."""
    if lock is None:
        for arr, data in pairs:
            arr[lo:hi] = data
        return
    chunk, n = pairs[0][0].chunks[0], pairs[0][0].shape[0]

    def whole(c):
        return lo <= c * chunk and min(n, (c + 1) * chunk) <= hi

    first, last = lo // chunk, (hi - 1) // chunk
    mid_lo = lo if whole(first) else min(hi, (first + 1) * chunk)
    mid_hi = hi if whole(last) else max(mid_lo, last * chunk)
    for x, y in ((lo, mid_lo), (mid_hi, hi)):
        if x < y:
            with lock(x // chunk):
                for arr, data in pairs:
                    arr[x:y] = data[x - lo:y - lo]
    if mid_lo < mid_hi:
        for arr, data in pairs:
            arr[mid_lo:mid_hi] = data[mid_lo - lo:mid_hi - lo]


def solve(game: Game, group, task: Task, on_piece=None, eager: bool = False,
          lock=None) -> int:
    """Phase 2 of a task; returns the positions it decided. `on_piece(tier, lo, hi)` hears
    of each piece written. The task's range is written once at the end (a write re-encodes
    whole chunks), or piece by piece when `eager` (tests interrupt a solve between them)."""
    from solver.codegen import kernels

    k = kernels(game.module, TEMPLATE)
    ctx, mc, ss = game.ctx, game.max_children, game.scratch_size
    dtype = record_dtype(game.max_remoteness)
    gstart, gstop, woff, obase, slots = window(task)
    value_arr, rem_arr = group["value"], group["remoteness"]
    win = np.empty(slots, dtype)
    for w, x, y in outside(task):
        win[w:w + y - x] = records(value_arr[x:y], rem_arr[x:y], dtype)
    reached = group[REACHED][task.a:task.b]
    run_blocks(k.mark_primitives, (win, reached), task.a, task.b, obase, task.a)
    del reached
    seg = (gstart, gstop, woff)
    bad = _bad(game, task)
    decided = 0
    for tier, lo, hi, loopy in task.pieces:
        if not loopy:
            if run_blocks(k.combine_tier, (ctx, win, *seg), lo, hi, obase, mc, ss,
                          game.puzzle) < 0:
                raise bad
        else:
            _sweeps(k, game, win, seg, lo, hi, obase, bad)
        if eager:
            decided += _write(win, obase, lo, hi, value_arr, rem_arr, lock)
            if on_piece is not None:
                on_piece(tier, lo, hi)
    if not eager:
        decided = _write(win, obase, task.a, task.b, value_arr, rem_arr, lock)
        for tier, lo, hi, _ in task.pieces:
            if on_piece is not None:
                on_piece(tier, lo, hi)
    return decided


def _write(win, obase, lo, hi, value_arr, rem_arr, lock) -> int:
    """Store the records of [lo, hi); return how many are decided."""
    own = win[lo + obase:hi + obase]
    value = np.empty(hi - lo, np.uint8)
    rem = np.empty(hi - lo, own.dtype)
    split_records(own, value, rem)
    put([(value_arr, value), (rem_arr, rem.astype(rem_arr.dtype, copy=False))], lo, hi, lock)
    return int(np.count_nonzero(value))


def _sweeps(k, game: Game, win, seg, lo, hi, obase, bad) -> None:
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


def records(value: np.ndarray, rem: np.ndarray, dtype) -> np.ndarray:
    """Solve-time records of stored (value, remoteness)."""
    rec = value.astype(dtype)
    rec |= rem.astype(dtype) << SHIFT
    rec[value != 0] |= VISITED
    return rec


# -- running a task in a cluster worker ---------------------------------------------------
_games: dict[tuple[str, str], Game] = {}


def run(phase: str, name: str, variant: str, store: str, task: Task, *deps) -> dict:
    """A task as a cluster runs it: the game from the registry, the store by its address,
    pushes under a cluster-wide lock per chunk. `deps` are the tasks it waits for."""
    from games import get_game
    from solver.tier_manager import open_group

    key = (name, variant)
    if key not in _games:
        _games[key] = get_game(name, variant)
    game = _games[key]
    group = open_group(store)
    from distributed import Lock

    prefix = f"gsolve-{phase}-{store}-"

    def lock(c):
        return Lock(prefix + str(c))

    t0 = time.perf_counter()
    if phase == "reach":
        n = reach(game, group, task, lock)
    else:
        n = solve(game, group, task, lock=lock)
    return {"task": task.index, "phase": phase, "positions": n,
            "seconds": time.perf_counter() - t0}
