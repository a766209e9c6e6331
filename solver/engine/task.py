"""A task of a tiered solve and its reads and writes of the store.

The task is what the manager hands a worker (plain data, so it pickles to a cluster), and
the hash ranges it reads: its own range and the parts of its child tiers, laid end to end
in one window array. Its reads and writes, shared by the modes of the tier worker
(engine/reach_*.py, engine/solve_*.py): the reach bytes pushed to child tasks, child
records read into a window, records written a piece at a time. A write may be queued
(engine/writer.py's Writer): the arrays given to it are never changed after."""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass

import numpy as np

from solver.engine.chunk_cache import Unread, fetch, lent
from solver.engine.memory import WRITE
from solver.kernels.records import (
    join_records,
    mark_slots,
    record_summary,
    spans_in,
    split_records,
)
from solver.kernels.tiers import DIRTY
from solver.runtime.parallel import in_order, run_each, threads


@dataclass(frozen=True)
class Task:
    """What the manager hands a worker: plain data, so it pickles to a cluster."""

    index: int
    a: int  # own range [a, b)
    b: int
    pieces: tuple[tuple[int, int, int, bool], ...]  # (tier, lo, hi, loopy), children first
    segments: tuple[tuple[int, int], ...]  # window intervals, sorted, own range included
    levels: tuple[int, ...] = ()  # each piece's depth in the tier graph (pieces sorted by it)

    @property
    def size(self) -> int:
        return self.b - self.a


def runs(task: Task) -> list[tuple[int, int, bool, list]]:
    """(lo, hi, loopy, pieces) of the task, children first: adjacent loop-free pieces of
    one level (which never need each other) merged into one range, so thousands of small
    tiers (Connect-4's height vectors) make a few ranges large enough for the thread pool."""
    out: list[tuple[int, int, bool, list]] = []
    for k, piece in enumerate(task.pieces):
        _, lo, hi, loopy = piece
        level = task.levels[k] if task.levels else None
        if (out and level is not None and not loopy and not out[-1][2]
                and out[-1][1] == lo and out[-1][3][-1][1] == level):
            last = out[-1]
            last[3].append((piece, level))
            out[-1] = (last[0], hi, False, last[3])
        else:
            out.append((lo, hi, loopy, [(piece, level)]))
    return [(lo, hi, loopy, [p for p, _ in ps]) for lo, hi, loopy, ps in out]


def parents_first(task: Task, step, after=None) -> None:
    """`step(lo, hi)` over the task's runs, parents first, repeated on a loopy run until it
    marks nothing new (its fixed point); `after()` once each run is done."""
    for lo, hi, in_tier, _ in reversed(runs(task)):
        while True:
            new = step(lo, hi)
            if not in_tier or new == 0:
                break
        if after is not None:
            after()


def side_by_side(task: Task, rs: list, small: int, parts: int) -> list[list]:
    """`rs` (the task's `runs`, in order) as groups to run in turn: each level's loopy runs
    of at most `small` slots (which never need each other) in one group, largest first, to
    run on `parts` threads, one each; any other run alone, as is a run larger than a
    thread's share of its group (it would run on long after the others)."""
    level = dict(zip(task.pieces, task.levels, strict=True)) if task.levels else None
    out: list[list] = []
    block: list = []  # adjacent loopy runs of one level

    def flush():
        out.extend([r] for r in block if r[1] - r[0] > small)
        group = sorted((r for r in block if r[1] - r[0] <= small), key=lambda r: r[0] - r[1])
        while group and parts * (group[0][1] - group[0][0]) > sum(r[1] - r[0] for r in group):
            out.append([group.pop(0)])
        if group:
            out.append(group)
        block.clear()

    for r in rs:
        if block and not (r[2] and level[r[3][0]] == level[block[-1][3][0]]):
            flush()
        if r[2] and level is not None:
            block.append(r)
        else:
            out.append([r])
    flush()
    return out


def window(task: Task, segments=None) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """(gstart, gstop, woff, obase, slots) of a window over `segments` (sorted, disjoint,
    the task's own range among them; default: the task's whole child tiers)."""
    segments = task.segments if segments is None else segments
    gstart = np.array([s for s, _ in segments], np.int64)
    gstop = np.array([e for _, e in segments], np.int64)
    sizes = gstop - gstart
    woff = np.zeros(len(sizes), np.int64)
    woff[1:] = np.cumsum(sizes)[:-1]
    s = int(np.searchsorted(gstart, task.a, side="right")) - 1
    obase = int(woff[s] - gstart[s])
    return gstart, gstop, woff, obase, int(sizes.sum())


def outside(task: Task, segments=None):
    """(window offset, start, stop) of each window part that is not the task's own range."""
    gstart, gstop, woff, _, _ = window(task, segments)
    for s, e, w in zip(gstart.tolist(), gstop.tolist(), woff.tolist(), strict=True):
        for x, y in ((s, min(e, task.a)), (max(s, task.b), e)):
            if x < y:
                yield w + x - s, x, y


def needs(group, task: Task) -> tuple[tuple[int, int], ...]:
    """The window the solve phase of `task` reads: its own range and the child ranges its
    reach phase recorded (all of its child tiers if none were recorded)."""
    try:
        raw = group[f"needs-{task.index}"][:]
    except KeyError:
        return task.segments
    m = int(raw[0])
    starts = np.concatenate(([task.a], raw[2:2 + 2 * m:2]))
    stops = np.concatenate(([task.b], raw[3:3 + 2 * m:2]))
    return tuple(zip(*(x.tolist() for x in merged(starts, stops)), strict=True))


def merged(starts: np.ndarray, stops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(starts, stops) of the sorted disjoint intervals covering [starts[i], stops[i])
    (intervals that touch joined). In numpy: a solve's start reads every task's child
    ranges (Connect-4 6x6: 15 M of them)."""
    if starts.size == 0:
        return starts, stops
    order = np.argsort(starts, kind="stable")
    s, e = starts[order], np.maximum.accumulate(stops[order])
    new = np.flatnonzero(s[1:] > e[:-1]) + 1  # an interval past every earlier one's end
    return s[np.r_[0, new]], e[np.r_[new - 1, e.size - 1]]


def merge(spans):
    """Sorted disjoint intervals covering `spans`."""
    if not spans:
        return []
    st, sp = merged(*(np.array(x, np.int64) for x in zip(*spans, strict=True)))
    return list(zip(st.tolist(), sp.tolist(), strict=True))


# -- its reads and writes of the store ---------------------------------------------------
GAP = 1 << 16  # far children further apart than this start a new window range
STEP = 1 << 22  # the elements a pass over a long hash list takes at a time (32 MiB)
REACHED = "reached"  # the reach bytes of a tiered solve, kept in its partial store
TEMPLATE = "solver.kernels.tiers"  # the kernels of a task


def holder(lock):
    """`lock(chunks)` where given, else a lock that holds nothing (a single process)."""
    return lock or (lambda chunks: contextlib.nullcontext())


def own_marks(arr, game, a: int, b: int, own: np.ndarray) -> None:
    """The reach bytes of [a, b) as the task's parents left them (an earlier try of the
    task starts over), the start marked."""
    if hasattr(arr, "read_into"):  # into the window: no array the size of the range
        arr.read_into(a, b, own)
    else:
        own[:] = arr[a:b]
    np.minimum(own, 1, out=own)
    if a <= game.start < b:
        own[game.start - a] = 1


def unique(x: np.ndarray, n: int, runs: bool = False) -> np.ndarray:
    """The sorted distinct values of x[:n], made in x's own memory (x, owning its data
    with no view of it held, is resized to them and returned): a hash list's bytes held
    once. `runs`: x[:n] is sorted runs end to end, which timsort merges in a pass (a
    buffer the size of the smaller run)."""
    x.resize(n, refcheck=False)
    x.sort(kind="stable" if runs else None)
    x.resize(_squeeze(x), refcheck=False)
    return x


def merge_unique(acc: np.ndarray, parts: list[np.ndarray]) -> np.ndarray:
    """unique() of `acc` (sorted, distinct) and of `parts` (each sorted), which it
    empties: acc grows in place and each part goes once copied, where
    unique(concatenate(...)) held three copies (Connect-4 5x5's far reach tasks peaked at
    1.8x their planned bytes)."""
    at = acc.size
    acc.resize(at + sum(p.size for p in parts), refcheck=False)
    while parts:
        p = parts.pop()
        acc[at:at + p.size] = p
        at += p.size
        del p
    return unique(acc, at, runs=True)


def _squeeze(x: np.ndarray) -> int:
    """Move the distinct values of sorted `x` to its front, STEP at a time (no array of
    its size); returns their count."""
    w, last = 0, None
    for s in range(0, x.size, STEP):
        b = x[s:s + STEP]
        keep = np.empty(b.size, bool)
        keep[0] = last is None or b[0] != last
        np.not_equal(b[1:], b[:-1], out=keep[1:])
        last = b[-1].copy()  # before the writes below reach it
        got = b[keep]
        x[w:w + got.size] = got
        w += got.size
    return w


def spans(far: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(starts, stops) of sorted distinct hashes, a new range where they are more than GAP
    apart: the child ranges a solve reads (STEP at a time: no array of far's size)."""
    if not far.size:
        return far, far
    breaks = [np.flatnonzero(np.diff(far[s:s + STEP + 1]) > GAP) + s
              for s in range(0, far.size - 1, STEP)]
    breaks = np.concatenate(breaks) if breaks else np.empty(0, np.int64)
    return (far[np.concatenate(([0], breaks + 1))],
            far[np.concatenate((breaks, [far.size - 1]))] + 1)


def push_window(arr, win, task: Task, hold, at: int = 0,
                dirty: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Push the marks of the window (or of its slots at.., in win[]) outside the task's
    own range into the store (the larger byte wins, chunk by chunk; chunks without a mark
    are not touched). Returns the marked ranges (starts, stops), GAP apart: what the
    solve phase reads. `dirty` (a byte per 1 << DIRTY slots of a whole window, set where
    the kernels marked) limits where marks are looked for."""
    chunk = arr.chunks[0]
    jobs: dict[int, list] = {}
    starts, stops = [], []
    for w, x, y in outside(task):
        lo, hi = max(w, at), min(w + y - x, at + win.size)
        if lo >= hi:
            continue
        w, x, y = lo, x + lo - w, x + hi - w
        part = win[w - at:w - at + y - x]
        st, sp = marked_spans(part, GAP, None if dirty is None else _dirty_pieces(dirty, w, y - x))
        starts.append(st + x)
        stops.append(sp + x)
        for s0, e0 in zip((st + x).tolist(), (sp + x).tolist(), strict=True):
            for c in range(s0 // chunk, (e0 - 1) // chunk + 1):
                s, e = max(s0, c * chunk), min(e0, (c + 1) * chunk)
                jobs.setdefault(c, []).append((s, part[s - x:e - x]))
    with hold(sorted(jobs)):
        raise_chunks(arr, sorted(jobs.items()))
    if not starts:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    return np.concatenate(starts), np.concatenate(stops)


def _dirty_pieces(dirty: np.ndarray, w: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi) of the runs of dirty blocks over window slots [w, w + n), as offsets from w."""
    b0, b1 = w >> DIRTY, ((w + n - 1) >> DIRTY) + 1
    flags = np.zeros(b1 - b0 + 2, np.int8)
    flags[1:-1] = dirty[b0:b1] != 0
    edges = np.flatnonzero(np.diff(flags))
    lo = np.maximum((edges[::2] + b0) << DIRTY, w) - w
    hi = np.minimum((edges[1::2] + b0) << DIRTY, w + n) - w
    return lo.astype(np.int64), hi.astype(np.int64)


def expand(first: np.ndarray, n: np.ndarray, step: int = 1) -> np.ndarray:
    """first[i], first[i] + step, ..., n[i] values of each i, in turn: ranges listed
    without a loop over them."""
    return np.repeat(first, n) + step * (np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n))


def marked_spans(a: np.ndarray, gap: int, pieces: tuple[np.ndarray, np.ndarray] | None = None
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(starts, stops) of the runs of `a`'s nonzero bytes, closer than `gap` zeros merged,
    looked for in `pieces` (lo, hi: sorted, disjoint, holding every nonzero byte; default
    all of `a`): nonzero_spans over blocks of them on the pool, runs that meet across a
    block's edge joined (a child window scanned whole after each task: 10 % of Connect-4
    6x6's reach phase on one thread)."""
    step = 1 << 22
    if pieces is None:
        lo, hi = np.array([0], np.int64), np.array([a.size], np.int64)
    else:
        lo, hi = pieces
    n = -(-(hi - lo) // step)  # pieces cut into blocks of at most `step`
    first = expand(lo, n, step)
    last = np.minimum(first + step, np.repeat(hi, n))
    if first.size == 0:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    sizes = last - first
    total = int(sizes.sum())
    # groups of blocks for the pool: 4M slots each, at least a group a thread past 1M
    k = -(-total // step) if total >= 1 << 20 else 1
    k = max(1, min(first.size, max(k, threads() if total >= 1 << 20 else 1)))
    cuts = np.searchsorted(np.cumsum(sizes), total * np.arange(1, k) // k, side="right")
    calls = []
    for f, g in zip(np.split(first, cuts), np.split(last, cuts), strict=True):
        room = int(((g - f) // (gap + 1) + 1).sum())
        calls.append((a, gap, f, g, np.empty(room, np.int64), np.empty(room, np.int64)))
    found = run_each(spans_in, calls)
    starts = np.concatenate([c[4][:m] for c, m in zip(calls, found, strict=True)])
    stops = np.concatenate([c[5][:m] for c, m in zip(calls, found, strict=True)])
    if first.size > 1 and starts.size > 1:
        new = np.flatnonzero(starts[1:] - stops[:-1] > gap)
        starts, stops = starts[np.r_[0, new + 1]], stops[np.r_[new, stops.size - 1]]
    return starts, stops


def raise_chunks(arr, jobs) -> None:
    """Each chunk `c` of (c, parts) of `jobs` of a 1-d store array raised as raise_to
    raises it by `parts`, and written (the array's own way where it has one: the cache's,
    in place and on the pool)."""
    if hasattr(arr, "raise_chunks"):
        arr.raise_chunks(jobs)
        return
    chunk = arr.chunks[0]
    for c, parts in jobs:
        lo, hi = c * chunk, min(arr.shape[0], (c + 1) * chunk)
        cur = arr[lo:hi]
        raise_to(cur, lo, parts)
        arr[lo:hi] = cur


def raise_to(x: np.ndarray, at: int, parts) -> None:
    """x (the slots at.. of an array) raised in place to at least the bytes of each
    (start, bytes) of `parts`, and to at least 1 at each slot of a part that is an array
    of slots (far children)."""
    for part in parts:
        if isinstance(part, np.ndarray):
            mark_slots(x, part, at)
            continue
        s, marks = part
        view = x[s - at:s - at + marks.size]
        np.maximum(view, marks, out=view)


def put(pairs, lo: int, hi: int, lock=None) -> None:
    """arr[lo:hi] = data for each (arr, data) of arrays chunked alike; the chunks the range
    covers only in part are rewritten under lock([chunk indices]) when a lock is given."""
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
    edges = [(x, y) for x, y in ((lo, mid_lo), (mid_hi, hi)) if x < y]
    with lock(sorted({x // chunk for x, _ in edges})):
        for x, y in edges:
            for arr, data in pairs:
                arr[x:y] = data[x - lo:y - lo]
    if mid_lo < mid_hi:
        for arr, data in pairs:
            arr[mid_lo:mid_hi] = data[mid_lo - lo:mid_hi - lo]


def write_records(win, obase, lo, hi, value_arr, rem_arr, lock, tally=None) -> int:
    """Store the records of [lo, hi), WRITE positions (whole chunks) at a time; return how
    many are decided (and add them to `tally`, see `solve`)."""
    chunk = value_arr.chunks[0]
    step = max(chunk, WRITE // chunk * chunk)
    decided = 0
    x = lo
    while x < hi:
        y = min(hi, (x // step + 1) * step)
        own = win[x + obase:y + obase]
        value = np.empty(y - x, np.uint8)
        rem = np.empty(y - x, rem_arr.dtype)  # the store's type holds the game's remoteness
        split_records(own, value, rem)
        counts = np.zeros(8, np.int64)
        longest = int(record_summary(own, counts))
        put([(value_arr, value), (rem_arr, rem)], x, y, lock)
        if tally is not None:
            tally[:8] += counts
            tally[8] = max(int(tally[8]), longest)
        decided += int(counts[1:].sum())
        x = y
    return decided


def load_records(win, parts, value_arr, rem_arr, dtype) -> None:
    """Child records into the window: many small parts share a chunk, so read each chunk
    once (parts come sorted) and copy the parts out of it. Where the arrays lend their
    chunks (a single process's chunk cache), each chunk is unpacked and joined on the
    thread pool: unpacking on the main thread alone, the kernel threads idle, was half of
    Connect-4 6x6's solve phase (2026-12-07-connect4-6x6-far-push.md)."""
    chunk, n = value_arr.chunks[0], value_arr.shape[0]
    by_chunk = _by_chunk(parts, chunk)
    if (threads() < 2 or not hasattr(value_arr, "lend_or_unread") or len(by_chunk) < 2
            or threading.current_thread() is not threading.main_thread()):  # a pool thread
        vbuf, rbuf = np.empty(chunk, value_arr.dtype), np.empty(chunk, rem_arr.dtype)
        for c, pieces in by_chunk:
            size = min(n, (c + 1) * chunk) - c * chunk
            _join(read_part(value_arr, c, n, vbuf[:size]),
                  read_part(rem_arr, c, n, rbuf[:size]), win, pieces)
        return
    def one(vgot, rgot, pieces) -> tuple:
        v = fetch(vgot) if isinstance(vgot, Unread) else None
        r = fetch(rgot) if isinstance(rgot, Unread) else None
        _join(lent(vgot, _buffer("v", chunk, value_arr.dtype)) if v is None else v[0],
              lent(rgot, _buffer("r", chunk, rem_arr.dtype)) if r is None else r[0],
              win, pieces)
        return v, r

    # lent here (the cache is this thread's), unpacked or read and packed there, kept here
    calls = ((value_arr.lend_or_unread(c), rem_arr.lend_or_unread(c), pieces)
             for c, pieces in by_chunk)
    for (c, _), (v, r) in zip(by_chunk, in_order(one, calls, 2 * threads()), strict=True):
        if v is not None:
            value_arr.keep(c, *v)
        if r is not None:
            rem_arr.keep(c, *r)


_buffers = threading.local()  # a thread's unpacking buffers, used again task to task


def _buffer(name: str, n: int, dtype) -> np.ndarray:
    """This thread's buffer `name` of n elements of `dtype` (a new one where it has none
    such): fresh buffers each task cost their pages zeroed again (Connect-4 6x6's solve)."""
    got = getattr(_buffers, name, None)
    if got is None or got.size != n or got.dtype != dtype:
        got = np.empty(n, dtype)
        setattr(_buffers, name, got)
    return got


def _by_chunk(parts, chunk: int) -> list[tuple[int, list[tuple[int, int, int]]]]:
    """(chunk, [(window offset, start, stop) within the chunk]) of sorted window parts."""
    out: list[tuple[int, list]] = []
    for w, x, y in parts:
        while x < y:
            c = x // chunk
            stop = min(y, (c + 1) * chunk)
            if not out or out[-1][0] != c:
                out.append((c, []))
            out[-1][1].append((w, x - c * chunk, stop - c * chunk))
            w += stop - x
            x = stop
    return out


def _join(v: np.ndarray, r: np.ndarray, win: np.ndarray, pieces) -> None:
    for w, x, y in pieces:
        join_records(v[x:y], r[x:y], win[w:w + y - x])


def read_once(arr, lo: int, hi: int) -> np.ndarray:
    """Slots [lo, hi) of a 1-d store array, read once (a chunk cache does not keep them)."""
    return arr.read_once(lo, hi) if hasattr(arr, "read_once") else arr[lo:hi]


def read_part(arr, c: int, n: int, out: np.ndarray | None = None) -> np.ndarray:
    """Chunk `c` of a 1-d store array, to read only (a cached one is lent, not copied),
    in `out` where given and the array reads chunks."""
    if hasattr(arr, "read_chunk"):
        return arr.read_chunk(c, out)
    chunk = arr.chunks[0]
    return arr[c * chunk:min(n, (c + 1) * chunk)]
