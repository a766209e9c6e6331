"""The tier manager: plans a tiered solve as tasks, runs them in order, resumes them.

After GamesmanOne's split of tier_manager (walk the tier graph, decide what is ready and
what is done) from tier_worker (solve one tier): here the unit is a *task*, a hash range
on the store's chunk boundaries (solver/tier_worker.py). Small tiers are grouped into
one task, a loop-free tier too large for the memory budget is split into several, and a
loopy tier is never split (its in-tier sweeps need all of it). Tasks depend on the tasks
that hold their child tiers; a cut that would make two tasks depend on each other (a
game whose tiers are not ordered by hash) is removed.

Nothing is sized by the whole hash: a task holds its own range and its child tiers, the
reach bytes are kept in the store, so a solve's memory follows its largest task. The
manager records each finished task in the store's attributes, so an interrupted solve
(local or on a cluster) resumes at the first unfinished task, and a finished one is never
run again.
"""

from __future__ import annotations

import bisect
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from games.base import VALUE_WORDS, Game, GsolveError, Tier, shown_remoteness
from solver import tier_worker
from solver.chunkio import chunk_array, span, sync_written
from solver.database import (
    CHUNK,
    PartialStore,
    command,
    create_array,
    partial_path,
    remoteness_dtype,
)
from solver.env import tier_pause
from solver.kernels.records import LOSE, TIE, WIN
from solver.parallel import threads
from solver.progress import Progress
from solver.tier_worker import REACHED, Task, peak_rss

GIB = 1 << 30
BASE = 400 << 20  # bytes a solving process holds besides its task (interpreter, numba, zarr)
MAX_TASK = 1 << 24  # own slots of a grouped task: more tasks side by side, little overhead
MIN_TASK = 1 << 22  # ... and at least this many, where the hash has 32 times as many
LOCAL_TASK = 1 << 23  # the largest reach task a cluster's client runs while it starts
RECENT = 16  # tasks recorded last, whose chunks a resume reads back before trusting them


def task_cap(hash_size: int) -> int:
    """Own slots of a grouped task: 1/32 of the hash within [MIN_TASK, MAX_TASK]. A task's
    window and the child values cached for it follow its size, and past a few million
    slots a bigger task saves no time (Connect-4 5x5 and Quixo 4x4 solve as fast with
    tasks of 2^22 slots as of 2^24, in 340 instead of 455 MiB)."""
    return min(MAX_TASK, max(MIN_TASK, hash_size // 32))


def check_tiers(game: Game, tiers: list[Tier]) -> list[int]:
    """Validate the tier list; return a solving order with children first."""
    pos = 0
    for i, t in enumerate(sorted(tiers, key=lambda t: t.start)):
        if t.start != pos or t.stop < t.start:
            raise GsolveError(f"{game.name}: tier {i} ({t.label}) leaves a gap or overlaps")
        pos = t.stop
    if pos != game.hash_size:
        raise GsolveError(f"{game.name}: tiers cover {pos} of {game.hash_size} positions")
    order: list[int] = []
    state = [0] * len(tiers)  # 0 new, 1 open, 2 done
    for root in range(len(tiers)):
        if state[root]:
            continue
        stack = [(root, iter(tiers[root].children))]
        state[root] = 1
        while stack:
            t, it = stack[-1]
            child = next(it, None)
            if child is None:
                state[t] = 2
                order.append(t)
                stack.pop()
            elif child == t or state[child] == 2:
                continue
            elif state[child] == 1:
                raise GsolveError(f"{game.name}: tiers {t} and {child} depend on each other")
            else:
                state[child] = 1
                stack.append((child, iter(tiers[child].children)))
    return order


bytes_per_slot = tier_worker.slot_bytes
FAN = 4  # planning guess: a task's solve reads at most this many times its own size of
# child positions (the exact ranges are known after its reach phase, and checked then)


def task_bytes(game: Game, own: int, kids: int, slot: int) -> int:
    """Planned memory of a task of `own` positions whose child tiers hold `kids`: the
    larger of its reach phase (a byte per own position, its distinct far children as int64
    hashes) and its solve phase (own and child windows as records); the far children are
    guessed at most FAN times the own positions (plan.py measures them on samples)."""
    far = min(kids, FAN * own)
    reach = own + 8 * far + tier_worker.block_bytes(game) * threads()
    solve = slot * (own + far)
    return max(reach, solve)


@dataclass
class Plan:
    tiers: list[Tier]
    order: list[int]  # tiers, children first
    cuts: list[int]  # task i is [cuts[i], cuts[i + 1])
    tasks: list[Task]
    deps: list[list[int]]  # tasks holding each task's child tiers
    run_order: list[int]  # tasks, children first
    slot_bytes: int
    game: Game

    def working_set(self, i: int) -> int:
        t = self.tasks[i]
        kids = sum(e - s for s, e in t.segments) - t.size
        return task_bytes(self.game, t.size, kids, self.slot_bytes)

    @property
    def largest(self) -> int:
        return max(self.working_set(i) for i in range(len(self.tasks)))


def plan(game: Game, limit: int | None = None, cuts: list[int] | None = None,
         chunk: int = CHUNK, max_task: int | None = None, spread: int = 1) -> Plan:
    """Cut the hash into tasks of at most `limit` bytes of working set and `max_task` own
    slots (default `task_cap`) where tiers allow (a single loopy tier or one chunk of a
    loop-free tier may need more: see Plan.largest), or use the `cuts` of an earlier run.

    `spread` > 1 (a cluster of that many workers): tasks never mix levels, and a level cut
    at all is cut into a multiple of `spread` tasks of about equal size, so the tasks of a
    level, which never need each other, keep every worker busy."""
    tiers = game.tiers()
    order = check_tiers(game, tiers)
    n = game.hash_size
    max_task = max_task or task_cap(n)
    chunk = max(1, min(chunk, n))
    slot = bytes_per_slot(game)
    starts = [t.start for t in tiers]
    loopy = [i in t.children for i, t in enumerate(tiers)]
    level = [0] * len(tiers)  # 1 + the deepest child: tiers of one level never need each other
    for t in order:
        level[t] = 1 + max((level[c] for c in tiers[t].children if c != t), default=-1)

    def fits(own, kids):
        return task_bytes(game, own, kids, slot) <= (limit or 1 << 62)

    planned = cuts is None  # cuts of an earlier run are kept as they are
    by_level = spread > 1
    if planned:
        cuts = _cut(tiers, starts, loopy, n, chunk, fits, max_task, level if by_level else None,
                    spread)
    while True:
        tasks, deps = _tasks(tiers, starts, loopy, level, cuts)
        run_order, stuck = _topological(deps)
        if not stuck:
            return Plan(tiers, order, cuts, tasks, deps, run_order, slot, game)
        if planned and not by_level:
            # a game whose hash interleaves tiers of different depths (Bagh-Chal: the
            # finished tiers of every stage): tasks of one level each never need each other
            by_level = True
            cuts = _cut(tiers, starts, loopy, n, chunk, fits, max_task, level, spread)
            continue
        # tasks on a cycle: never cut between the first and last of them again
        lo, hi = min(cuts[i] for i in stuck), max(cuts[i + 1] for i in stuck)
        keep = [c for c in cuts if not lo < c < hi]
        if keep == cuts:
            raise GsolveError(f"{game.name}: its tiers cannot be ordered into tasks")
        cuts = keep


def _cut(tiers, starts, loopy, n, chunk, fits, max_task, level=None, spread=1) -> list[int]:
    """Greedy cuts at tier boundaries and at chunk boundaries inside loop-free tiers (and,
    given the tiers' `level`, wherever the level changes, a run of one level cut into
    parts of equal size, as many as a multiple of `spread`)."""

    def tier_at(h):
        return bisect.bisect_right(starts, h) - 1

    def next_cut(x):
        """The next tier boundary, or chunk boundary inside a loop-free tier."""
        t = tier_at(x)
        stop = tiers[t].stop
        return stop if loopy[t] else min(stop, (x // chunk + 1) * chunk)

    def kids_of(x, y):
        """Child tiers of the tiers meeting [x, y), other than themselves."""
        out = set()
        t = tier_at(x)
        while t < len(tiers) and tiers[t].start < y:
            out.update(c for c in tiers[t].children if c != t)
            t += 1
        return out

    def level_end(x):
        """The end of the run of tiers of x's level that starts at x."""
        t = tier_at(x)
        while t + 1 < len(tiers) and level[t + 1] == level[t]:
            t += 1
        return tiers[t].stop

    def one_part(size):
        return size <= max_task and (spread <= 1 or size < 2 * spread * chunk)

    runs: dict[int, int] = {}  # level -> its runs of tiers in hash order
    for i in range(len(tiers) if level is not None else 0):
        if i == 0 or level[i] != level[i - 1]:
            runs[level[i]] = runs.get(level[i], 0) + 1

    def run_end(x):
        """The end of the run of x's level that starts at x, and of the runs after it
        while they all fit one task, each level is in no other run, and the levels go
        one by one (Connect-4's last moves are a level each, of a few thousand slots): a
        task per level would only add a round trip each. Its levels are then a range no
        other task shares, so tasks still never need each other both ways."""
        end = level_end(x)
        step = 0
        while end < n and runs[level[tier_at(x)]] == 1:
            last, nxt = level[tier_at(end - 1)], level[tier_at(end)]
            if runs[nxt] != 1 or abs(nxt - last) != 1 or step not in (0, nxt - last):
                break
            stop = level_end(end)
            if stop <= end or not one_part(stop - x):
                break
            end, step = stop, nxt - last
        return end

    cuts = [0]
    a = 0
    end, goals = 0, []
    while a < n:
        if level is not None and a >= end:  # a new run of one level: its parts' ends
            end = run_end(a)
            parts = -(-(end - a) // max_task)
            if spread > 1 and end - a >= 2 * spread * chunk:
                parts = -(-max(parts, spread) // spread) * spread
            goals = [a + (end - a) * k // parts for k in range(parts, 0, -1)]
        goal = goals.pop() if goals else a + max_task
        b = next_cut(a)
        kids = kids_of(a, b)
        kid_slots = sum(tiers[c].size for c in kids)
        while b < n and b < goal:
            if level is not None and b >= end:
                break
            b2 = next_cut(b)
            if b2 > goal and (level is None or b2 - goal >= goal - b):
                break  # past the goal: stop at whichever cut is nearer it
            new = kids_of(b, b2) - kids
            more = kid_slots + sum(tiers[c].size for c in new)
            if not fits(b2 - a, more):
                break
            b, kids, kid_slots = b2, kids | new, more
        cuts.append(b)
        a = b
    return cuts


def _tasks(tiers, starts, loopy, level, cuts):
    tasks, deps = [], []
    for i in range(len(cuts) - 1):
        a, b = cuts[i], cuts[i + 1]
        t0 = bisect.bisect_right(starts, a) - 1
        t1 = bisect.bisect_left(starts, b)
        mine = range(t0, t1)
        pieces = sorted(((t, max(a, tiers[t].start), min(b, tiers[t].stop), loopy[t])
                         for t in mine if tiers[t].size), key=lambda p: (level[p[0]], p[1]))
        spans = [(a, b)]
        need: set[int] = set()
        for t in mine:
            for c in tiers[t].children:
                if c != t and tiers[c].size:
                    spans.append((tiers[c].start, tiers[c].stop))
                    lo = bisect.bisect_right(cuts, tiers[c].start) - 1
                    hi = bisect.bisect_left(cuts, tiers[c].stop)
                    need.update(range(lo, hi))
        need.discard(i)
        tasks.append(Task(i, a, b, tuple(pieces), tuple(tier_worker.merge(spans)),
                          tuple(level[p[0]] for p in pieces)))
        deps.append(sorted(need))
    return tasks, deps


def _topological(deps: list[list[int]]) -> tuple[list[int], list[int]]:
    """(children-first order, tasks left on or behind a cycle)."""
    users: list[list[int]] = [[] for _ in deps]
    waiting = [len(d) for d in deps]
    for i, d in enumerate(deps):
        for j in d:
            users[j].append(i)
    ready = [i for i, w in enumerate(waiting) if w == 0]
    out = []
    while ready:
        i = ready.pop()
        out.append(i)
        for u in users[i]:
            waiting[u] -= 1
            if waiting[u] == 0:
                ready.append(u)
    left = [i for i, w in enumerate(waiting) if w > 0]
    return out, left


# -- memory -------------------------------------------------------------------------------
def default_budget() -> int:
    """Most of the memory available now (MemAvailable, capped by $GSOLVE_MEMORY)."""
    from solver.env import available_memory

    have = available_memory()
    return int(0.85 * have) if have else 8 * GIB


def check_budget(game: Game, p: Plan, budget: int, workers: int) -> None:
    need = p.largest * workers + BASE * max(1, workers)
    if need > budget:
        raise GsolveError(
            f"{game.describe()} needs at least {need / GIB:,.2f} GiB for a tiered solve "
            f"(its largest task holds {p.largest / GIB:,.2f} GiB"
            + (f", {workers} workers at once" if workers > 1 else "")
            + f"), more than the budget of {budget / GIB:,.2f} GiB: raise --memory")


# -- the store ----------------------------------------------------------------------------
def _bits(done: set[int], n: int) -> str:
    b = np.zeros(n, bool)
    b[list(done)] = True
    return np.packbits(b).tobytes().hex()


def _unbits(text: str | None, n: int) -> set[int]:
    if not text:
        return set()
    b = np.unpackbits(np.frombuffer(bytes.fromhex(text), np.uint8))[:n]
    return set(np.flatnonzero(b).tolist())


class Record:
    """The finished tasks of each phase, in the store's attributes (only the manager
    writes them), flushed at most every second."""

    def __init__(self, store: PartialStore, p: Plan, tiers: list[Tier]):
        self.store, self.n = store, len(p.tasks)
        attrs = store.attrs
        self.done = {ph: _unbits(attrs.get(f"{ph}_done"), self.n) for ph in ("reach", "solve")}
        # per solved task: positions by value code and the largest remoteness (a summary
        # without reading the store again)
        self.tally = {int(i): t for i, t in (attrs.get("task_tally") or {}).items()}
        self.recent = [list(x) for x in attrs.get("recent_tasks") or []]  # last recorded
        self.tiers_left = {}
        for task in p.tasks:
            for t, lo, hi, _ in task.pieces:
                self.tiers_left[t] = self.tiers_left.get(t, 0) + hi - lo
        self.tiers_done = [t for t in sorted(attrs.get("tiers_done", []))]
        self.small = len(tiers) <= 2000  # the tiers_done list is only kept when short
        self.last = 0.0
        self.eager = bool(tier_pause())

    def piece(self, t: int, lo: int, hi: int) -> None:
        self.tiers_left[t] -= hi - lo
        if self.tiers_left[t] == 0 and self.small:
            self.tiers_done.append(t)
            self.flush(self.eager)

    def task(self, phase: str, i: int, tally: list[int] | None = None) -> None:
        """Task i's phase is finished: called once its writes are in the store, never
        before (a Writer job queued after them, or a cluster worker's result)."""
        sync_written()  # its chunk files on disk before any record of them
        self.done[phase].add(i)
        self.recent = [*self.recent[-(RECENT - 1):], [phase, i]]
        if tally is not None:
            self.tally[i] = tally
        self.flush(False)

    def flush(self, now: bool = True) -> None:
        if not now and time.monotonic() - self.last < 1.0:
            return
        self.last = time.monotonic()
        attrs = {f"{ph}_done": _bits(d, self.n) for ph, d in self.done.items()}
        attrs["task_tally"] = {str(i): t for i, t in sorted(self.tally.items())}
        attrs["recent_tasks"] = self.recent
        if self.small:
            attrs["tiers_done"] = sorted(set(self.tiers_done))
        self.store.set_attrs(**attrs)


# -- what a single process keeps in memory ----------------------------------------------
SPARSE = 4  # a chunk with under 1/SPARSE of its bytes nonzero is cached packed


def _nbytes(got) -> int:
    return got.nbytes if isinstance(got, np.ndarray) else len(got[0])


class ChunkCache:
    """Store chunks (reach bytes, values, remoteness) a single-process solve keeps, so a
    task reads its own pending reach bytes and its child ranges without going through the
    store. A sparse chunk is held LZ4-packed: where a game reaches few of its slots
    (Quixo 4x4 with symmetry: 12%) packing one costs 0.25 ms, unpacking 0.13 ms, and keeps
    1/17 to 1/60 of the bytes (Quixo's peak cache: 88 -> 4 MiB); a dense one (Connect-4:
    60% reached, packs 2:1 at 2 ms) is held as it is. Writes still all go to the store
    (resume and bytes are unchanged); the manager drops a task's chunks once nothing will
    read them again, and the least recently used go first past `capacity` bytes."""

    def __init__(self, capacity: int):
        from collections import OrderedDict

        from numcodecs import Blosc  # zarr's own dependency

        self.codec = Blosc("lz4", 1, Blosc.SHUFFLE)
        self.capacity, self.used = max(0, capacity), 0
        self.data: OrderedDict = OrderedDict()  # (name, chunk) -> array or (packed, dtype, n)
        self.hits = self.misses = 0
        self.readers: dict[str, np.ndarray] = {}  # name -> later reads left per chunk

    def wanted(self, key) -> bool:
        """Whether a later task reads the chunk (every chunk of an array without counts)."""
        r = self.readers.get(key[0])
        return r is None or r[key[1]] > 0

    def __contains__(self, key) -> bool:
        return key in self.data

    def get(self, key) -> np.ndarray | None:
        """The chunk, or None: the cached array itself when it is held unpacked, so a
        caller that changes it puts it back."""
        got = self.data.get(key)
        if got is None:
            return None
        self.data.move_to_end(key)
        if isinstance(got, np.ndarray):
            return got
        packed, dtype, n = got
        out = np.empty(n, dtype)
        self.codec.decode(packed, out)
        return out

    def put(self, key, x: np.ndarray) -> None:
        if not self.wanted(key) or self.data.get(key) is x:  # x: changed in place
            return
        if np.count_nonzero(x) * SPARSE < x.size:
            got = (self.codec.encode(np.ascontiguousarray(x)), x.dtype, x.size)
        else:
            got = x.copy()
        if _nbytes(got) > self.capacity:
            return
        self.drop(key)
        self.data[key] = got
        self.used += _nbytes(got)
        while self.used > self.capacity:
            _, y = self.data.popitem(last=False)
            self.used -= _nbytes(y)

    def drop(self, key) -> None:
        x = self.data.pop(key, None)
        if x is not None:
            self.used -= _nbytes(x)

    def drop_range(self, name: str, chunk: int, a: int, b: int) -> None:
        """Forget the chunks of `name` that lie wholly inside [a, b)."""
        for c in range(-(-a // chunk), b // chunk):
            self.drop((name, c))


class Writer:
    """Store writes of a single-process solve on one background thread, in order, so that
    compressing them overlaps the next task's kernels. It knows which chunks have writes
    queued, so a read waits only for those.

    A task is recorded finished by a job queued after its writes (`record`), so a killed
    solve never claims an unwritten task; and the first write that fails ends the queue:
    no job after it runs, so no task whose bytes did not reach the store is recorded, and
    the error is raised to the solve at its next submit or wait (a full disk stops the
    solve at once, resumable from the tasks before it)."""

    def __init__(self, depth: int = 8):
        from collections import deque
        from concurrent.futures import ThreadPoolExecutor

        self.pool = ThreadPoolExecutor(1, thread_name_prefix="gsolve-write")
        self.pending: deque = deque()
        self.depth = depth
        self.queued: dict = {}  # (array name, chunk) -> writes queued
        self.error: BaseException | None = None  # the first failure: nothing runs after

    def _run(self, fn, args):
        if self.error is not None:
            return None
        try:
            return fn(*args)
        except BaseException as e:
            self.error = e
            raise

    def submit(self, fn, *args, keys=()) -> None:
        if self.error is not None:
            raise self.error
        while len(self.pending) >= self.depth:
            self._finish(*self.pending.popleft())
        for k in keys:
            self.queued[k] = self.queued.get(k, 0) + 1
        self.pending.append((self.pool.submit(self._run, fn, args), keys))

    def _finish(self, future, keys) -> None:
        try:
            future.result()
        finally:
            for k in keys:
                left = self.queued.pop(k) - 1
                if left:
                    self.queued[k] = left
        if self.error is not None:  # an earlier job failed: this one was skipped
            raise self.error

    def wait(self, keys=None) -> None:
        """Every queued write done (raising the first error, if any), or only until none
        of `keys` has one queued."""
        while self.pending and (keys is None or any(k in self.queued for k in keys)):
            self._finish(*self.pending.popleft())

    def close(self) -> None:
        try:
            self.wait()
        finally:
            self.pool.shutdown()


class CachedArray:
    """A 1-d store array read through a ChunkCache by whole chunks; writes go to the store
    as before and refresh the cached copies of the chunks they cover. A write keeps the
    caller's array (queued without a copy), so the caller must not change it after. In a
    store created
    by this run (`fresh`), a chunk never written reads as zeros without asking the store."""

    def __init__(self, arr, name: str, cache: ChunkCache, writer: Writer | None = None,
                 fresh: bool = False):
        self.arr, self.name, self.cache, self.writer = arr, name, cache, writer
        self.chunk, self.n = arr.chunks[0], arr.shape[0]
        self.unwritten = np.ones(-(-self.n // self.chunk), bool) if fresh else None

    def __getattr__(self, attr):
        return getattr(self.arr, attr)

    def __getitem__(self, sl):
        lo, hi = span(sl, self.n)
        out = np.empty(hi - lo, self.arr.dtype)
        ch = self.chunk
        c, last = lo // ch, (hi - 1) // ch
        while c <= last:
            x = self.cache.get((self.name, c))
            if x is None and self.unwritten is not None and self.unwritten[c]:
                x = np.zeros(min(self.n, (c + 1) * ch) - c * ch, self.arr.dtype)
                self.cache.put((self.name, c), x)
            if x is None:  # read the run of missing chunks in one call
                d = c
                while (d < last and (self.name, d + 1) not in self.cache
                   and (self.unwritten is None or not self.unwritten[d + 1])):
                    d += 1
                self.cache.misses += d - c + 1
                if self.writer is not None:
                    self.writer.wait([(self.name, e) for e in range(c, d + 1)])
                got = self.arr[c * ch:min(self.n, (d + 1) * ch)]
                for e in range(c, d + 1):
                    part = got[(e - c) * ch:(e - c + 1) * ch]
                    self._copy(out, lo, hi, e, part)
                    self.cache.put((self.name, e), part)
                c = d + 1
            else:
                self.cache.hits += 1
                self._copy(out, lo, hi, c, x)
                c += 1
        return out

    def read_chunk(self, c: int) -> np.ndarray:
        """Chunk `c`, to read only: the cache's own array where it holds one unpacked."""
        x = self.cache.get((self.name, c))
        if x is None:
            return self[c * self.chunk:min(self.n, (c + 1) * self.chunk)]
        self.cache.hits += 1
        return x

    def _copy(self, out, lo, hi, c, x) -> None:
        s = c * self.chunk
        x0, x1 = max(lo, s), min(hi, s + x.size)
        out[x0 - lo:x1 - lo] = x[x0 - s:x1 - s]

    def __setitem__(self, sl, data) -> None:
        lo, hi = span(sl, self.n)
        data = np.asarray(data, self.arr.dtype)  # the caller's: queued, never changed
        ch = self.chunk
        if self.unwritten is not None and hi > lo:
            self.unwritten[lo // ch:(hi - 1) // ch + 1] = False
        if self.writer is None:
            self.arr[lo:hi] = data
        else:
            keys = [(self.name, c) for c in range(lo // ch, -(-hi // ch))]
            self.writer.submit(self.arr.__setitem__, slice(lo, hi), data, keys=keys)
        for c in range(lo // ch, (hi - 1) // ch + 1 if hi > lo else lo // ch):
            s, e = c * ch, min(self.n, (c + 1) * ch)
            if lo <= s and e <= hi:
                self.cache.put((self.name, c), data[s - lo:e - lo])
            else:
                x = self.cache.get((self.name, c))
                if x is not None:
                    x0, x1 = max(lo, s), min(hi, e)
                    x[x0 - s:x1 - s] = data[x0 - lo:x1 - lo]
                    self.cache.put((self.name, c), x)


class CachedGroup:
    """The partial store's group as a single-process worker sees it: the reach bytes and
    the values read through the cache, everything else (the needs lists) as stored."""

    CACHED = (REACHED, "value", "remoteness")

    def __init__(self, group, cache: ChunkCache, writer: Writer | None = None,
                 fresh: bool = False):
        self.group, self.cache, self.writer, self.fresh = group, cache, writer, fresh
        self.arrays: dict = {}

    def __getitem__(self, name):
        if name not in self.CACHED:
            return self.group[name]
        if name not in self.arrays:
            self.arrays[name] = CachedArray(chunk_array(self.group[name]), name, self.cache,
                                            self.writer, self.fresh)
        return self.arrays[name]

    def __contains__(self, name) -> bool:
        return name in self.group

    def __getattr__(self, attr):  # creating a needs array: no queued write touches it
        return getattr(self.group, attr)


# -- running ------------------------------------------------------------------------------
def on_cluster(workers: int = 0, scheduler: str | None = None) -> bool:
    """Whether a tiered solve with these options runs its tasks on a Dask cluster."""
    return workers > 1 or scheduler is not None


def solve_into(game: Game, path: Path, progress: Progress | None = None, fresh: bool = False,
               memory: int | None = None, workers: int = 0, scheduler: str | None = None,
               max_task: int | None = None) -> dict:
    """Solve tier by tier into the database at `path` (resuming a partial one), holding at
    most `memory` bytes (default: most of what is available). With `workers` or a
    `scheduler`, the tasks run on a Dask cluster (solver/cluster.py), cut smaller so that
    tiers of one stage run side by side."""
    progress = progress or Progress()
    budget = memory or default_budget()
    per_task = (budget - BASE * max(1, workers)) // max(1, workers)
    if not on_cluster(workers, scheduler):
        return _solve_into(game, path, progress, fresh, budget, per_task, max_task)
    from solver.cluster import Cluster

    nodes = Cluster(game, workers, scheduler, per_task * max(1, workers))
    try:
        summary = _solve_into(game, path, progress, fresh, budget, per_task, max_task,
                              workers, nodes)
    except BaseException:  # a stop or an error: what finished is recorded; don't wait
        nodes.kill()
        nodes.close(wait=False)
        raise
    nodes.close()
    return summary


def _solve_into(game: Game, path: Path, progress: Progress, fresh: bool, budget: int,
                per_task: int, max_task: int | None, workers: int = 0, nodes=None) -> dict:
    """`solve_into` in this process, or on the cluster `nodes` (started by the caller)."""
    cluster = nodes is not None

    def planned(cuts, chunk):
        most = max_task
        if most is None and cluster:
            most = min(MAX_TASK, max(chunk, game.hash_size // (16 * max(2, workers))))
        p = plan(game, max(1, per_task), cuts, chunk, most, max(2, workers) if cluster else 1)
        check_budget(game, p, budget, max(1, workers))
        return p

    # a new store is made only for a plan within the budget: a refusal leaves nothing
    p = planned(None, CHUNK) if fresh or not (partial_path(path) / "zarr.json").exists() else None
    store = PartialStore(path, game, "tiers", remoteness_dtype(game.max_remoteness), fresh)
    attrs = store.attrs
    cuts = attrs.get("task_cuts") if store.resumed else None
    chunk = store.value.chunks[0]
    if p is None or store.resumed or chunk != CHUNK:
        p = planned(cuts, chunk)
    if REACHED not in store.group:
        create_array(store.group, REACHED, (game.hash_size,), np.uint8, chunk=chunk,
                     scratch=True)
    if cuts is None:
        store.set_attrs(task_cuts=p.cuts)
    record = Record(store, p, p.tiers)
    if store.resumed:
        _recheck(store, p, record)
    t0 = time.perf_counter()
    try:
        if cluster:
            from solver.cluster import run_plan

            _reach_while_starting(game, store, p, record, nodes, per_task)
            worker_peak = run_plan(game, str(store.path), p, record, progress, nodes,
                                   per_task)
        else:
            worker_peak = 0
            _run_local(game, store, p, record, progress, per_task,
                       budget - BASE - p.largest)
    except OSError as e:  # a full or failing disk: say that the work done is kept
        raise GsolveError(
            f"{e.strerror or e} writing {store.path}: the tasks finished before it are "
            f"kept; make room (or mend the disk) and rerun `gsolve {command(game, path)}` "
            "to resume") from None
    finally:
        record.flush()  # an interrupted solve keeps every task it finished
        if cluster:
            nodes.close(wait=False)  # while the store is finished
    summary = _summarize(game, store, len(p.tiers), len(p.tasks), record)
    summary["peak_memory_bytes"] = max(peak_rss(), worker_peak)
    summary["threads"] = threads() if not cluster else max(1, workers) * max(
        1, threads() // max(1, workers))
    summary["tier_seconds"] = round(time.perf_counter() - t0, 3)
    if cluster:
        summary["worker_task_seconds"] = round(getattr(record, "busy", 0.0), 3)
    store.finish(summary, drop=(REACHED, *(f"needs-{i}" for i in range(len(p.tasks)))))
    return summary


def _recheck(store: PartialStore, p: Plan, record: Record) -> None:
    """Before a resume trusts the tasks recorded last, read their chunks back (present,
    checksums good). A solve task whose chunks fail runs again (it starts from what its
    children and reach bytes left); damaged reach bytes hold marks that only the parent
    tasks' pushes made, so the resume is refused instead."""
    from solver.chunkio import ChunkGroup

    group = ChunkGroup(store.group, (REACHED, "value", "remoteness"))
    for phase, i in record.recent:
        if i >= len(p.tasks) or i not in record.done[phase] or (
                phase == "reach" and i in record.done["solve"]):  # its bytes are spent
            continue
        task = p.tasks[i]
        for name in (REACHED,) if phase == "reach" else ("value", "remoteness"):
            arr = group[name]
            for c in range(task.a // arr.chunk, (task.b - 1) // arr.chunk + 1):
                what = arr.damage(c)
                if what is None:
                    continue
                if phase == "reach":
                    raise store._damaged(GsolveError(f"chunk {c} of {name} is {what}"))
                record.done["solve"].discard(i)
                record.tally.pop(i, None)
                break


def _reach_while_starting(game: Game, store: PartialStore, p: Plan, record: Record,
                          nodes, limit: int) -> None:
    """Reach tasks run here, parents first, until the cluster is up: a LocalCluster takes
    1.5-2 s to start its processes and load the game's kernels, time in which this
    process is otherwise idle. No worker writes yet, so no cluster lock is needed. Only
    tasks of up to LOCAL_TASK slots (a fraction of a second each), so a started cluster
    never waits long for the last of them."""
    for i in p.run_order[::-1]:
        if nodes.ready() or p.tasks[i].size > LOCAL_TASK:
            return
        if i not in record.done["reach"]:
            tier_worker.run_task("reach", game, store.group, p.tasks[i], limit)
            record.task("reach", i)


def _run_local(game: Game, store: PartialStore, p: Plan, record: Record,
               progress: Progress, limit: int, cache_bytes: int) -> None:
    pause = tier_pause()  # lets tests interrupt a solve
    cache = ChunkCache(cache_bytes)
    writer = None if pause else Writer()  # tests that interrupt a solve write in line
    group = CachedGroup(store.group, cache, writer, fresh=not store.resumed)
    try:
        _run_tasks(game, group, cache, writer, p, record, progress, limit, pause)
    finally:
        if writer is not None:
            writer.close()


def _run_tasks(game, group, cache, writer, p, record, progress, limit, pause) -> None:
    chunk = group.group[REACHED].chunks[0]
    n = len(p.tasks)
    eta = _Eta(p, record)
    for phase, order in (("reach", p.run_order[::-1]), ("solve", p.run_order)):
        t0, found = time.perf_counter(), 0
        if phase == "solve":
            reads = _count_readers(group, cache, p, record, chunk)
        for step, i in enumerate(order):
            if i in record.done[phase]:
                continue
            task = p.tasks[i]
            if phase == "reach":
                found += tier_worker.reach(game, group, task, limit=limit)
                # its solve reads these bytes once, long after: the store serves that, and
                # the cache keeps the values parents read soon (C4 5x5: 580 -> 466 MiB)
                cache.drop_range(REACHED, chunk, task.a, task.b)
            else:
                def piece(t, lo, hi):
                    record.piece(t, lo, hi)
                    if pause:
                        time.sleep(pause)

                tally = np.zeros(9, np.int64)
                found += tier_worker.solve(game, group, task, piece, eager=bool(pause),
                                           limit=limit, tally=tally)
                cache.drop_range(REACHED, chunk, task.a, task.b)  # read once, by this solve
                left = cache.readers["value"]  # remoteness shares it
                for c in reads[i]:  # values no later solve reads are dropped
                    left[c] -= 1
                    if left[c] == 0:
                        cache.drop(("value", c))
                        cache.drop(("remoteness", c))
            done = (phase, i, tally.tolist() if phase == "solve" else None)
            if writer is None:
                record.task(*done)
            else:  # recorded once its queued writes are in the store
                writer.submit(record.task, *done)
            progress.update(phase, step + 1, _rate(step + 1, n, found, t0))
            progress.remaining(*eta.done(phase, i))


def _count_readers(group, cache: ChunkCache, p: Plan, record, chunk: int) -> dict:
    """The value chunks each unsolved task's solve reads outside its own range (the parts
    `tier_worker._load` reads), counted per chunk into the cache, one count for value and
    remoteness: a chunk is kept from its write (or first read) to its last reader, and one
    no later task reads is never kept. Quixo's tasks hold most of their children, so its
    cache holds 0.34x the hash at most instead of every task's values until its parents
    are solved."""
    count = np.zeros(-(-group.group["value"].shape[0] // chunk), np.int32)
    reads: dict[int, list[int]] = {}
    for i, task in enumerate(p.tasks):
        if i in record.done["solve"]:
            continue
        mine: set[int] = set()
        for _, x, y in tier_worker.outside(task, tier_worker.needs(group, task)):
            mine.update(range(x // chunk, (y - 1) // chunk + 1))
        reads[i] = sorted(mine)
        count[reads[i]] += 1
    for name in ("value", "remoteness"):
        cache.readers[name] = count
        for key in [k for k in cache.data if k[0] == name and not cache.wanted(k)]:
            cache.drop(key)
    return reads


def _rate(done: int, n: int, positions: int, t0: float) -> str:
    dt = time.perf_counter() - t0
    speed = positions / dt if dt > 0 else 0.0
    return f"{done}/{n} tasks, {speed:,.0f} positions/s"


LOOPY_SOLVE = 2.0  # a loopy tier's solve (retrograde sweeps) per slot, against a reach


class _Eta:
    """Seconds left of a tiered solve, by the hash slots its tasks have reached and solved
    so far rather than by tasks (one task may hold most of the hash: Teeko 5x5's last)."""

    def __init__(self, p: Plan, record):
        self.work = {
            "reach": {i: float(t.size) for i, t in enumerate(p.tasks)},
            "solve": {i: float(sum((hi - lo) * (LOOPY_SOLVE if loopy else 1.0)
                                   for _, lo, hi, loopy in t.pieces) or t.size)
                      for i, t in enumerate(p.tasks)}}
        self.left = sum(w for phase, ws in self.work.items() for i, w in ws.items()
                        if i not in record.done[phase])
        self.did = 0.0
        self.t0 = time.perf_counter()

    def done(self, phase: str, i: int) -> tuple[float, float]:
        """(seconds left at the rate so far, share of the work done) after task i."""
        w = self.work[phase][i]
        self.did += w
        self.left = max(0.0, self.left - w)
        rate = (time.perf_counter() - self.t0) / max(self.did, 1e-9)
        return rate * self.left, self.did / max(self.did + self.left, 1e-9)


def _summarize(game: Game, store: PartialStore, ntiers: int, ntasks: int,
               record: Record | None = None) -> dict:
    counts = np.zeros(8, np.int64)
    max_rem = 0
    if record is not None and len(record.tally) == ntasks:  # every task counted its own
        for t in record.tally.values():
            counts += np.asarray(t[:8], np.int64)
            max_rem = max(max_rem, int(t[8]))
    else:  # a solve begun by a gsolve that kept no tally: count the store
        for a in range(0, game.hash_size, 1 << 22):
            v, r = store.read(a, min(game.hash_size, a + (1 << 22)))
            counts += np.bincount(v, minlength=8)[:8]
            has = (v == WIN) | (v == LOSE) | (v == TIE)
            if has.any():
                max_rem = max(max_rem, int(r[has].max()))
    sv, sr = store.read(game.start, game.start + 1)
    sv, sr = int(sv[0]), int(sr[0])
    return {
        "positions": int(counts[1:5].sum()),
        "values": {VALUE_WORDS[v]: int(counts[v]) for v in (4, 1, 3, 2) if counts[v]},
        "start_value": VALUE_WORDS[sv],
        "start_remoteness": shown_remoteness(sv, sr, game.puzzle),
        "max_remoteness": max_rem,
        "tiers": ntiers,
        "tasks": ntasks,
    }
