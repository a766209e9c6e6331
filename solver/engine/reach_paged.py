"""The paged reach mode (engine/memory.py PAGED): the reach phase of a task a part at a
time, for a task whose reach bytes, or its far children, do not fit its memory: the paged
solve's counterpart (engine/solve_paged.py).

The task's reach bytes live in a scratch file and are expanded a part at a time
(kernels/tiers.py `forward_part`): a child in the part is marked at once, one in another
part of the task becomes a notice in that part's file, one outside the task is put in
the file of its page of the window. Parts are taken again while notices wait for them,
so every reached position is expanded once, as the other reach modes do (in another
order, which changes no byte). Then each page's far children are marked in a page of
bytes and pushed into the store as `push_window` pushes a whole window, and the part's
bytes are stored."""

from __future__ import annotations

from functools import partial

import numpy as np

from games.base import Game
from solver.engine import memory
from solver.engine.memory import NOTES, REACH_BUFFER
from solver.engine.scratch import Parts, Scratch
from solver.engine.task import REACHED, TEMPLATE, Task, holder, own_marks, push_window, put, window
from solver.runtime.parallel import call, executor, threads


def reach(game: Game, group, task: Task, lock, limit: int, bad,
          parts=None) -> tuple[int, np.ndarray, np.ndarray]:
    """The task's reach within `limit` bytes, in parts and pages of `parts[:2]` where
    given (else memory.reach_sizes); returns (positions reached in its own range, starts
    and stops of the child ranges it marked)."""
    from solver.kernels.codegen import kernels

    k = kernels(game.module, TEMPLATE)
    arr = group[REACHED]
    gstart, gstop, woff, obase, slots = window(task)
    part, page = parts[:2] if parts else memory.reach_sizes(task.size, slots, limit)
    mc, ss = game.max_children, game.scratch_size
    step = max(1, REACH_BUFFER // mc)
    buf = np.empty(part, np.uint8)
    with Scratch(task) as sc:
        ps = Parts(sc, task.a, task.b, part, {"own": (buf, "own", 0)})
        waiting = np.zeros(ps.n, np.int64)  # notices in each part's file
        ready = np.zeros(ps.n, bool)  # parts with marks of 1 to expand
        pages = -(-slots // page)
        for j in range(ps.n):  # an earlier try starts over
            a, b = ps.bounds(j)
            own = ps.take(j, ("own",))["own"]
            own_marks(arr, game, a, b, own)
            ready[j] = bool(own.any())
        ps.flush()

        def expand(pa, pb, own, xy):
            x, y = xy
            notes = np.empty((y - x) * mc, np.int64)
            far = np.empty((y - x) * mc, np.int64)
            new, n, m = k.forward_part(game.ctx, own, pa, x, y, pa, pb, task.a, task.b,
                                       notes, far, mc, ss)
            return new, np.unique(notes[:n]), np.unique(far[:m])

        while ready.any() or waiting.any():
            for j in reversed(range(ps.n)):  # parents first, where tiers run so
                if not (ready[j] or waiting[j]):
                    continue
                pa, pb = ps.bounds(j)
                own = ps.take(j)["own"]
                if waiting[j]:
                    _mark(sc, f"notes-{j}", int(waiting[j]), own, pa)
                    sc.drop(f"notes-{j}")
                    waiting[j] = 0
                while True:
                    blocks = [(x, min(pb, x + step)) for x in range(pa, pb, step)]
                    if len(blocks) > 1 and threads() > 1:
                        got = list(executor().map(partial(expand, pa, pb, own), blocks))
                    else:
                        got = [call(expand, pa, pb, own, xy) for xy in blocks]
                    new = 0
                    for n, notes, far in got:
                        new += n
                        _send(sc, notes, ps, waiting)
                        _far(sc, far, gstart, gstop, woff, page, bad)
                    if new == 0:
                        break
                ready[j] = False
        reached = 0
        for j in range(ps.n):
            a, b = ps.bounds(j)
            own = ps.take(j)["own"]
            put([(arr, own.copy())], a, b, lock)  # a store write may be queued: not the buffer
            reached += int(np.count_nonzero(own))
        ps.held = -1  # nothing to write back: the store holds them
        hold = holder(lock)
        starts, stops = [], []
        marks = np.empty(min(page, slots), np.uint8)
        for q in range(pages):
            p0, p1 = q * page, min(slots, (q + 1) * page)
            m = marks[:p1 - p0]
            m[:] = 0
            name = f"far-{q}"
            total = sc.size(name) // 8
            if total:
                got = np.empty(min(total, NOTES), np.int64)
                for x in range(0, total, got.size):
                    c = got[:min(got.size, total - x)]
                    sc.read(name, x, c)
                    m[c - p0] = 1
                sc.drop(name)
            st, sp = push_window(arr, m, task, hold, p0)
            starts.append(st)
            stops.append(sp)
    return reached, np.concatenate(starts), np.concatenate(stops)


def _mark(sc: Scratch, name: str, total: int, own: np.ndarray, base: int) -> None:
    """Mark the children a part's notice file names (a 0 becomes a 1)."""
    got = np.empty(min(total, NOTES), np.int64)
    for x in range(0, total, got.size):
        c = got[:min(got.size, total - x)]
        sc.read(name, x, c)
        c -= base
        fresh = c[own[c] == 0]
        own[fresh] = 1


def _send(sc: Scratch, notes: np.ndarray, ps: Parts, waiting: np.ndarray) -> None:
    """Children in other parts of the task (sorted), to those parts' notice files."""
    if not notes.size:
        return
    dest = (notes - ps.lo) // ps.size
    cuts = np.flatnonzero(np.diff(dest)) + 1
    for d, chunk in zip(np.split(dest, cuts), np.split(notes, cuts), strict=True):
        j = int(d[0])
        sc.append(f"notes-{j}", chunk)
        waiting[j] += chunk.size


def _far(sc: Scratch, far: np.ndarray, gstart, gstop, woff, page: int, bad) -> None:
    """Children outside the task (sorted), as window slots, to their page's file."""
    if not far.size:
        return
    seg = np.searchsorted(gstart, far, side="right") - 1
    if (seg < 0).any() or (far >= gstop[np.maximum(seg, 0)]).any():
        raise bad
    w = woff[seg] + far - gstart[seg]
    dest = w // page
    cuts = np.flatnonzero(np.diff(dest)) + 1
    for d, chunk in zip(np.split(dest, cuts), np.split(w, cuts), strict=True):
        sc.append(f"far-{int(d[0])}", chunk)
