"""The paged modes (engine/memory.py PAGED): a task's reach and solve a part at a time,
for a task whose reach bytes or far children (reach), or even the lean mode's arrays
(solve), do not fit its memory. Scratch files (engine/scratch.py) live in $GSOLVE_SCRATCH,
one folder per task, removed when the task ends; a resumed solve redoes the task from its
start.

* reach: the task's reach bytes live in a scratch file and are expanded a part at a time
  (kernels/tiers.py `forward_part`): a child in the part is marked at once, one in another
  part of the task becomes a notice in that part's file, one outside the task is put in
  the file of its page of the window. Parts are taken again while notices wait for them,
  so every reached position is expanded once, as the other reach modes do (in another
  order, which changes no byte). Then each page's far children are marked in a page of
  bytes and pushed into the store as `push_window` pushes a whole window, and the part's
  bytes are stored.
* solve: the task's records, and a loopy tier's counters and event levels, live in
  scratch files; memory holds one part of them and one page of the window (its own range
  and child ranges as records) at a time, so a task needs a chunk or so of each
  (`memory.paged_least_bytes`), however large its tier. A fold's cost grows with its
  pages, so the page takes most of the memory and a fold's part little; the levels hold
  no page, and take parts as large as the memory holds.

What the solve pays (kernels/tier_paged.py): the children of a part are generated once
per page of the window, and each level of a loopy tier reads and writes back the parts
that have work in it, their in-tier parents' notices passed on through files. It writes
the same records as the lean and fast modes: every step is theirs, taken a part at a
time."""

from __future__ import annotations

from functools import partial

import numpy as np

from games.base import Game, GsolveError
from solver.engine import memory
from solver.engine.levels import event_levels, too_far
from solver.engine.memory import (
    GIB,
    NOTES,
    REACH_BUFFER,
    counter_dtype,
    max_parents,
    paged_batch,
    pool_bytes,
)
from solver.engine.scratch import Parts, Scratch
from solver.engine.task import (
    REACHED,
    TEMPLATE,
    Task,
    holder,
    load_records,
    outside,
    own_marks,
    push_window,
    put,
    runs,
    window,
)
from solver.kernels.records import (
    DRAW,
    LOSE,
    TIE,
    VISITED,
    WIN,
    max_record_remoteness,
    record_dtype,
)
from solver.runtime.parallel import call, executor, run_blocks, threads
from solver.storage import database

PAGED = "solver.kernels.tier_paged"


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


def _carve(pool: np.ndarray, shapes) -> list[np.ndarray]:
    """Arrays of (dtype, length) laid one after another in the byte array `pool`."""
    out, at = [], 0
    for dtype, n in shapes:
        size = np.dtype(dtype).itemsize * n
        out.append(pool[at:at + size].view(dtype))
        at += -(-size // 8) * 8
    return out


def solve(game: Game, group, task: Task, segments, limit: int, write, parts=None) -> int:
    """Solve `task` paged within `limit` bytes; `write(rec, base, lo, hi)` stores records
    rec[h - base] of hashes [lo, hi) and returns how many are decided. `parts`: (fold
    part, page, level part) sizes to take (default: memory.paged_sizes within `limit`)."""
    from solver.kernels.codegen import kernels

    least = memory.paged_least_bytes(game)
    if limit < least:
        raise GsolveError(f"{game.describe()}: a task needs {least / GIB:,.2f} GiB "
                          f"at the least (a store chunk of each array), more than the "
                          f"{limit / GIB:,.2f} GiB it may hold: raise --memory")
    loopy_runs = [r for r in runs(task) if r[2]]
    if loopy_runs and not game.has_parents:
        lo, hi = loopy_runs[0][:2]
        raise GsolveError(f"{game.describe()}: a loopy tier of {hi - lo:,} positions passes "
                          "the memory, and the game has no un-moves to solve it a part at "
                          "a time: raise --memory")
    k = kernels(game.module, PAGED)
    tk = kernels(game.module, TEMPLATE)
    dtype = record_dtype(game.max_remoteness)
    gstart, gstop, woff, obase, slots = window(task, segments)
    chunk = min(database.CHUNK, max(1, task.size))
    part, page, level = parts or memory.paged_sizes(game, task.size, slots, limit, chunk)
    level = task.size if level >= task.size else max(part, level // part * part)
    value_arr, rem_arr = group["value"], group["remoteness"]
    kids = list(outside(task, segments))
    with Scratch(task) as sc:

        def load_page(p0: int, p1: int, buf: np.ndarray) -> np.ndarray:
            """Window slots [p0, p1): the task's own records from scratch, child records
            from the store."""
            out = buf[:p1 - p0]
            a, b = max(p0, task.a + obase), min(p1, task.b + obase)
            if a < b:
                sc.read("rec", a - obase - task.a, out[a - p0:b - p0])
            parts = [(max(w, p0) - p0, x + max(w, p0) - w, x + min(w + y - x, p1) - w)
                     for w, x, y in kids if w < p1 and w + y - x > p0]
            load_records(out, parts, value_arr, rem_arr, dtype)
            return out

        pages = [(p, min(slots, p + page)) for p in range(0, slots, page)]
        run = PagedRun(game, k, sc, task, (part, page, level), pages, load_page,
                   (gstart, gstop, woff))
        own = run.parts(task.a, task.b, ("rec",))
        for j in range(own.n):  # the task's records from its reach marks
            a, b = own.bounds(j)
            rec = own.take(j, ("rec",))["rec"]
            run_blocks(tk.mark_primitives, (rec, group[REACHED][a:b]), a, b, -a, a)
        own.flush()
        for lo, hi, loopy, _ in runs(task):
            if loopy:
                run.loopy(lo, hi)
            else:
                run.loop_free(lo, hi)
        del run, own, rec  # the write's buffers take their room
        rec_buf = np.empty(part, dtype)
        decided = 0
        for a in range(task.a, task.b, part):
            b = min(task.b, a + part)
            sc.read("rec", a - task.a, rec_buf[:b - a])
            decided += write(rec_buf[:b - a], a, a, b)
        return decided


def warm(game: Game) -> None:
    """Load the paged kernels (so that loading does not count as solving)."""
    from solver.kernels.codegen import kernels

    k = kernels(game.module, PAGED)
    ctx, mc, ss = game.ctx, game.max_children, game.scratch_size
    rec = np.zeros(1, record_dtype(game.max_remoteness))
    cnt = np.zeros(1, counter_dtype(game))
    seg = (np.zeros(1, np.int64), np.ones(1, np.int64), np.zeros(1, np.int64))
    notes = np.zeros(1, np.int64)
    k.fold_children(ctx, rec, 0, 0, *seg, rec, cnt, rec, rec, 0, 0, 0, 0, 0, 0, 1, mc, ss)
    k.fold_children(ctx, rec, 0, 0, *seg, rec, np.zeros(1, np.uint8), rec, rec, 0, 0, 0, 0,
                    0, WIN, 255, mc, ss)
    k.finish_fold(rec, cnt, rec, rec, 0, 1)
    k.fold_best(ctx, rec, 0, 0, *seg, rec, rec, 0, 0, 0, game.puzzle, mc, ss)
    k.finish_best(rec, rec, 0, game.puzzle)
    if game.has_parents:
        k.gather_notices(ctx, rec, notes, 0, 0, 0, 0, 0, notes, max_parents(game), ss)
    for c in (cnt, np.zeros(1, np.uint8)):
        k.apply_notices(rec, c, notes, 0, 0, 0, 0, 0, 1)
        k.scan_level(rec, c, rec, 0, 0, 0, 0, 0, 0, 1, False, 1, notes)
    k.split_notices(notes, 0, 0, 0)


class PagedRun:
    """The runs of one paged task, children first, their records in scratch file "rec"."""

    def __init__(self, game, k, sc, task, sizes, pages, load_page, seg):
        self.game, self.k, self.sc, self.task = game, k, sc, task
        self.pages, self.load_page, self.seg = pages, load_page, seg
        self.part, page, self.level = sizes
        self.dtype = dtype = np.dtype(record_dtype(game.max_remoteness))
        cdt = np.dtype(counter_dtype(game))
        fold = [(dtype, self.part), (cdt, self.part), (dtype, self.part), (dtype, self.part),
                (dtype, page)]
        level = [(dtype, self.level), (cdt, self.level), (dtype, self.level)]
        # one pool: a fold's parts and page, or the levels' larger parts, never both
        pool = np.empty(max(pool_bytes(fold), pool_bytes(level)), np.uint8)
        *held, self.page_buf = _carve(pool, fold)
        self.held = {False: dict(zip(("rec", "cnt", "evl", "slow"), held, strict=True)),
                     True: dict(zip(("rec", "cnt", "evl"), _carve(pool, level), strict=True))}
        self.never = int(np.iinfo(cdt).max)
        self.mc, self.ss = game.max_children, game.scratch_size
        self.mp = max_parents(game)

    def parts(self, lo, hi, names=("rec", "cnt", "evl", "slow"), unchanged=(),
              level=False) -> Parts:
        """Parts of [lo, hi) holding the named arrays: a fold's, or the levels' (larger,
        a whole number of a fold's)."""
        at = {"rec": ("rec", lo - self.task.a), "cnt": ("cnt", 0), "evl": ("evl", 0),
              "slow": ("slow", 0)}
        held = self.held[level]
        return Parts(self.sc, lo, hi, self.level if level else self.part,
                     {n: (held[n], at[n][0], at[n][1]) for n in names}, unchanged)

    def fold(self, ps: Parts, kernel, fresh, args, tail, after, given=None) -> int:
        """A fold over every page, each part in turn (pages outer: a page costs a store
        read, a part only a scratch read); `after(j, arrays)` finishes each part while it
        is held the last time. `args` name the part's arrays the kernel takes (or arrays
        `given`), `tail` its arguments after the range. Returns its summed count."""
        given = given or {}
        total = 0
        for pi, (p0, p1) in enumerate(self.pages):
            page = self.load_page(p0, p1, self.page_buf)
            for j in range(ps.n):
                arr = ps.take(j, fresh if pi == 0 else ())
                a, b = ps.bounds(j)
                got = run_blocks(kernel, (self.game.ctx, page, p0, p1, *self.seg,
                                          *[arr[n] if n in arr else given[n] for n in args],
                                          a), a, b, *tail)
                if got < 0:
                    raise GsolveError(f"{self.game.describe()}: a child lies outside the "
                                      "tiers the game names for it")
                total += got
                if pi == len(self.pages) - 1:
                    after(j, arr)
        ps.flush()
        return total

    def loop_free(self, lo: int, hi: int) -> None:
        ps = self.parts(lo, hi, ("rec", "slow"))
        self.fold(ps, self.k.fold_best, ("slow",), ("rec", "slow"),
                  (self.game.puzzle, self.mc, self.ss), lambda j, arr:
                  call(self.k.finish_best, arr["rec"], arr["slow"], arr["rec"].size,
                       self.game.puzzle))

    def loopy(self, lo: int, hi: int) -> None:
        game, k = self.game, self.k
        limit = max_record_remoteness(self.dtype)
        tie = True
        if not game.puzzle:
            ps = self.parts(lo, hi)
            hist = [None] * ps.n

            def finish(j, arr):
                call(k.finish_fold, arr["rec"], arr["cnt"], arr["evl"], arr["slow"],
                     arr["rec"].size, self.never)
                hist[j] = event_levels(k, arr["evl"], arr["rec"], 0)[2]

            ties = self.fold(ps, k.fold_children, ("cnt", "evl", "slow"),
                             ("rec", "cnt", "evl", "slow"),
                             (lo, hi, 0, self.never, self.mc, self.ss), finish)
            self.levels(self.parts(lo, hi, ("rec", "cnt", "evl"), ("evl",), True), hist,
                        lo, hi, 0, self.never, limit)
            tie = ties > 0
        if tie:
            target = WIN if game.puzzle else TIE
            ps = self.parts(lo, hi, ("rec", "evl"))
            nocount = np.zeros(1, np.uint8)  # TIE (puzzles: WIN) spreads without counters
            hist = [None] * ps.n

            def count(j, arr):
                hist[j] = event_levels(k, arr["evl"], arr["rec"], 0)[2]

            self.fold(ps, k.fold_children, ("evl",), ("rec", "cnt", "evl", "slow"),
                      (lo, hi, target, 255, self.mc, self.ss), count,
                      {"cnt": nocount, "slow": self.held[False]["slow"]})
            self.levels(self.parts(lo, hi, ("rec", "evl"), ("evl",), True), hist, lo, hi,
                        target, 255, limit, nocount)
        ps = self.parts(lo, hi, ("rec",), level=True)
        for j in range(ps.n):
            rec = ps.take(j)["rec"]
            rec[rec == VISITED] = VISITED | (LOSE if game.puzzle else DRAW)
        ps.flush()

    def levels(self, ps: Parts, hist, lo, hi, target, never, limit, cnt=None) -> None:
        """tier_lean.propagate's levels a part at a time: a part works at level L when it
        has events of L (hist[part][L + 1]), positions decided at L (the frontier) or
        notices of L - 1. `hist`: the event levels of each fold part. `cnt`: the counters
        where the parts hold none."""
        k, game = self.k, self.game
        top = max(h.size for h in hist)
        events = np.zeros((ps.n, top + 1), np.int64)
        for j, h in enumerate(hist):  # fold parts into the levels' parts
            events[j * self.part // ps.size, :h.size] += h
        n = ps.n
        due = np.zeros(n, np.int64)  # positions of each part decided at the level
        waiting = np.zeros(n, np.int64)  # notices of the level before, by part
        cap = paged_batch(game)
        queue = np.empty(cap, np.int64)
        notes = np.empty(cap * self.mp, np.int64)
        level = 0
        while True:
            ev = events[:, level + 1] if level + 1 <= top else np.zeros(n, np.int64)
            active = np.flatnonzero((due > 0) | (waiting > 0) | (ev > 0))
            if active.size == 0:
                later = np.flatnonzero(events[:, level + 2:].any(axis=0))
                if later.size == 0:
                    break
                level += 1 + int(later[0])
                continue
            new_due = np.zeros(n, np.int64)
            sent = np.zeros(n, np.int64)
            for j in active.tolist():
                arr = ps.take(j)
                rec = arr["rec"]
                c = arr["cnt"] if "cnt" in arr else cnt
                a, b = ps.bounds(j)
                ra, rb = a - lo, b - lo
                if waiting[j]:
                    name = f"notes-{level - 1}-{j}"
                    total = waiting[j]
                    for x in range(0, total, notes.size):
                        m = min(notes.size, total - x)
                        self.sc.read(name, x, notes[:m])
                        call(k.apply_notices, rec, c, notes, m, ra, rb, level - 1, target,
                             never)
                    self.sc.drop(name)
                pos = 0
                while pos < b - a:
                    stop, found, done = call(k.scan_level, rec, c, arr["evl"], pos, b - a,
                                             0, 0, level, target, never, level > 0, cap,
                                             queue)
                    new_due[j] += done
                    pos = stop
                    if not found:
                        continue
                    m = call(k.gather_notices, game.ctx, rec, queue, found, a, lo, hi,
                             target, notes, self.mp, self.ss)
                    kept = call(k.split_notices, notes, m, ra, rb)
                    new_due[j] += call(k.apply_notices, rec, c, notes, kept, ra, rb, level,
                                       target, never)
                    if kept < m:
                        self._send(notes[kept:m], ps, lo, level, sent)
            if (new_due.any() or sent.any()) and level + 1 > limit:
                raise too_far(game, limit)
            due, waiting = new_due, sent
            level += 1
        ps.flush()

    def _send(self, notes: np.ndarray, ps: Parts, lo: int, level: int, sent) -> None:
        """Notices for other parts, appended to their files of this level."""
        dest = ((notes >> 1) // ps.size).astype(np.int64)
        order = np.argsort(dest, kind="stable")
        dest, notes = dest[order], notes[order]
        cuts = np.flatnonzero(np.diff(dest)) + 1
        for d, chunk in zip(np.split(dest, cuts), np.split(notes, cuts), strict=True):
            j = int(d[0])
            self.sc.append(f"notes-{level}-{j}", chunk)
            sent[j] += chunk.size
