"""What a tiered solve keeps between its tasks: the record of finished tasks (in the
store, so a solve resumes), and in a single process the chunk cache, the background
writer and the store arrays read through them.
"""

from __future__ import annotations

import time

import numpy as np

from games.base import Tier
from solver.engine.plan import Plan
from solver.engine.taskio import REACHED
from solver.engine.worker import peak_rss
from solver.storage.chunkio import chunk_array, span, sync_written
from solver.storage.database import now
from solver.storage.partial import PartialStore

RECENT = 16  # tasks recorded last, whose chunks a resume reads back before trusting them


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
    writes them), flushed at most every second; beside them each run's wall and CPU time
    (of this process: a cluster's workers count theirs in `worker_task_seconds`), peak
    memory and tasks finished, so a solve resumed across sessions reports its whole cost."""

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
        # each run (this one last): a solve that spans sessions reports its whole time
        self.runs = [dict(r) for r in attrs.get("runs") or []]
        self.runs.append({"started": now(), "wall_seconds": 0.0, "cpu_seconds": 0.0,
                          "peak_bytes": 0, "tasks": 0})
        self.clock = (time.monotonic(), time.process_time())

    def piece(self, t: int, lo: int, hi: int) -> None:
        self.tiers_left[t] -= hi - lo
        if self.tiers_left[t] == 0 and self.small:
            self.tiers_done.append(t)
            self.flush(False)

    def borrowed(self, donor) -> None:
        """A task of this run took its records from the store `donor` (engine/borrowing.py):
        its cost was paid there."""
        run = self.runs[-1]
        run["borrowed_tasks"] = run.get("borrowed_tasks", 0) + 1
        run["borrowed_from"] = str(donor)

    def task(self, phase: str, i: int, tally: list[int] | None = None) -> None:
        """Task i's phase is finished: called once its writes are in the store, never
        before (a Writer job queued after them, or a cluster worker's result)."""
        sync_written()  # its chunk files on disk before any record of them
        self.done[phase].add(i)
        self.runs[-1]["tasks"] += 1
        self.recent = [*self.recent[-(RECENT - 1):], [phase, i]]
        if tally is not None:
            self.tally[i] = tally
        self.flush(False)

    def flush(self, now: bool = True) -> None:
        if not now and time.monotonic() - self.last < 1.0:
            return
        self.last = time.monotonic()
        self.runs[-1].update(wall_seconds=round(self.last - self.clock[0], 1),
                             cpu_seconds=round(time.process_time() - self.clock[1], 1),
                             peak_bytes=peak_rss())
        attrs = {f"{ph}_done": _bits(d, self.n) for ph, d in self.done.items()}
        attrs["runs"] = self.runs
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
        self.drop(key)  # an older copy must never outlive a newer write, kept or not
        if _nbytes(got) > self.capacity:
            return
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
    solve at once, resumable from the tasks before it).

    A queued write holds its caller's arrays until it runs, so the queue is bounded by
    their bytes (`capacity`, the share of the budget the manager gives it) as well as by
    `depth` jobs; one job is always let in, however large."""

    def __init__(self, depth: int = 8, capacity: int = 1 << 62):
        from collections import deque
        from concurrent.futures import ThreadPoolExecutor

        self.pool = ThreadPoolExecutor(1, thread_name_prefix="gsolve-write")
        self.pending: deque = deque()
        self.depth, self.capacity, self.held = depth, capacity, 0
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
        size = sum(a.nbytes for a in args if isinstance(a, np.ndarray))
        while self.pending and (len(self.pending) >= self.depth
                                or self.held + size > self.capacity):
            self._finish(*self.pending.popleft())
        for k in keys:
            self.queued[k] = self.queued.get(k, 0) + 1
        self.held += size
        self.pending.append((self.pool.submit(self._run, fn, args), keys, size))

    def _finish(self, future, keys, size) -> None:
        self.held -= size
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
