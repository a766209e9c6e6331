"""The store arrays of a single-process tiered solve (engine/local.py) read and written
through its chunk cache and background writer: reach chunks raised on the pool and written
once a run of raising tasks ends, values written a chunk at a time, chunks missing from
the cache read on the pool."""

from __future__ import annotations

from collections import deque

import numpy as np

from solver.engine.chunk_cache import ChunkCache, Unread, fetch, lent
from solver.engine.task import REACHED, raise_to, read_part
from solver.engine.writer import Writer
from solver.runtime.parallel import in_order, threads
from solver.storage.chunks import chunk_array, span

# the most tasks whose records wait for a chunk that every one of them raised: what a
# killed solve runs again at most, beside the chunks' own writes
HELD_TASKS = 32


# how a chunk to raise is had (CachedArray._source)
HELD, COPY, PACKED, ZEROS, STORED = range(5)
AHEAD = 4  # chunks being raised on the pool per thread, ahead of their bookkeeping


def _raised(source: tuple, at: int, parts) -> np.ndarray:
    """The chunk `source` (CachedArray._source) gives, raised by `parts` (it starts at
    slot `at`); on any thread."""
    how = source[0]
    if how == HELD:
        x = source[1]
    elif how == COPY:
        x = source[1].copy()
    elif how == PACKED:
        x = lent(source[1])
    elif how == ZEROS:
        x = np.zeros(source[1], source[2])
    else:
        x = read_part(*source[1:])
    raise_to(x, at, parts)
    return x


class CachedArray:
    """A 1-d store array read through a ChunkCache by whole chunks; writes go to the store
    as before and refresh the cached copies of the chunks they cover. A write keeps the
    caller's array (queued without a copy), so the caller must not change it after. In a
    store created
    by this run (`fresh`), a chunk never written reads as zeros without asking the store."""

    def __init__(self, arr, name: str, cache: ChunkCache, writer: Writer | None = None,
                 fresh: bool = False, keeps_writes: bool = True):
        self.arr, self.name, self.cache, self.writer = arr, name, cache, writer
        self.keeps_writes = keeps_writes  # else a write drops the chunks it covers
        self.chunk, self.n = arr.chunks[0], arr.shape[0]
        self.unwritten = np.ones(-(-self.n // self.chunk), bool) if fresh else None
        # raised chunks written late (see `settle`): chunk -> [the last task that raised
        # it, the first since its last write, its array]; the tasks that wait to be recorded
        self.defer = writer is not None and hasattr(arr, "write_chunk")
        self.dirty: dict[int, list] = {}
        self.dirty_bytes = 0
        self.lifted: dict[int, int] = {}  # chunks being raised: their held-back writes' `since`
        self.serial = 0
        self.waiting: deque = deque()

    def __getattr__(self, attr):
        return getattr(self.arr, attr)

    def __getitem__(self, sl):
        lo, hi = span(sl, self.n)
        return self.read_into(lo, hi, np.empty(hi - lo, self.arr.dtype))

    def read_into(self, lo: int, hi: int, out: np.ndarray) -> np.ndarray:
        """The slots [lo, hi) into `out`."""
        for c in range(lo // self.chunk, (hi - 1) // self.chunk + 1 if hi > lo else 0):
            self._copy(out, lo, hi, c, self.read_chunk(c))
        return out

    def read_chunk(self, c: int, out: np.ndarray | None = None) -> np.ndarray:
        """Chunk `c`, to read only: the cache's own array where it holds one unpacked; one
        held packed unpacked into `out` where given (the caller's buffer, used again); one
        read from the store in a new array, which the cache keeps."""
        return lent(self.lend(c), out)

    def lend(self, c: int):
        """Chunk `c` as the cache holds it (chunk_cache.lent reads it, on any thread), or
        read from the store in a new array, which the cache keeps."""
        got = self.lend_or_unread(c)
        if isinstance(got, Unread):
            got = self.keep(c, *fetch(got))
        return got

    def lend_or_unread(self, c: int):
        """Chunk `c` as the cache holds it, or where it holds none, an Unread to read it by
        on any thread (chunk_cache.fetch), whose result the caller then gives to `keep`:
        the store's reads, their unpacking and packing on the cache's thread alone were
        two thirds of its time in Connect-4 6x6's solve phase (2026-12-07)."""
        key = (self.name, c)
        got = self.cache.lend(key)
        if got is not None:
            self.cache.hits += 1
            return got
        if self.unwritten is not None and self.unwritten[c]:
            return self.keep(c, self._load(c))  # zeros: no store read
        self.cache.misses += 1
        if self.writer is not None:
            self.writer.wait([key])
        return Unread(lambda: read_part(self.arr, c, self.n),
                      self.cache.pack if self.cache.full() else None)

    def keep(self, c: int, x: np.ndarray, packed=None) -> np.ndarray:
        """Chunk `c` as read from the store (chunk_cache.fetch), for the cache to keep."""
        self.cache.put((self.name, c), x, owned=True, packed=packed)
        return x

    def read_once(self, lo: int, hi: int) -> np.ndarray:
        """The slots [lo, hi), read once (a solve's own reach bytes): a chunk the cache does
        not hold is read from the store straight into the result and not kept (kept, it was
        packed for the cache and dropped unread: 14 % of 6x6's solve phase)."""
        out = np.empty(hi - lo, self.arr.dtype)
        for c in range(lo // self.chunk, (hi - 1) // self.chunk + 1 if hi > lo else 0):
            s, e = c * self.chunk, min(self.n, (c + 1) * self.chunk)
            got = self.cache.lend((self.name, c))
            if got is None and lo <= s and e <= hi:
                self._load(c, out[s - lo:e - lo])
            else:
                self._copy(out, lo, hi, c, self._load(c) if got is None else lent(got))
        return out

    def _load(self, c: int, out: np.ndarray | None = None) -> np.ndarray:
        """Chunk `c` from the store (zeros where this run never wrote it), in `out` where
        given, else in a new array (unpacked straight into it: no copy)."""
        if self.unwritten is not None and self.unwritten[c]:
            size = min(self.n, (c + 1) * self.chunk) - c * self.chunk
            if out is None:
                return np.zeros(size, self.arr.dtype)
            out[:] = 0
            return out
        self.cache.misses += 1
        if self.writer is not None:
            self.writer.wait([(self.name, c)])
        return read_part(self.arr, c, self.n, out)

    def _copy(self, out, lo, hi, c, x) -> None:
        s = c * self.chunk
        x0, x1 = max(lo, s), min(hi, s + x.size)
        out[x0 - lo:x1 - lo] = x[x0 - s:x1 - s]

    def __setitem__(self, sl, data) -> None:
        lo, hi = span(sl, self.n)
        data = np.asarray(data, self.arr.dtype)  # the caller's: queued, never changed
        ch = self.chunk
        for c in [c for c in self.dirty if lo // ch <= c <= (hi - 1) // ch]:
            self._flush(c)  # its raises written first: this write may cover part of it
        if self.unwritten is not None and hi > lo:
            self.unwritten[lo // ch:(hi - 1) // ch + 1] = False
        if self.writer is None:
            self.arr[lo:hi] = data
        elif self.defer and self.keeps_writes:
            self._write_chunks(lo, hi, data)
            return
        else:
            keys = [(self.name, c) for c in range(lo // ch, -(-hi // ch))]
            self.writer.submit(self.arr.__setitem__, slice(lo, hi), data, keys=keys)
        if not self.keeps_writes:
            for c in range(lo // ch, (hi - 1) // ch + 1 if hi > lo else lo // ch):
                self.cache.drop((self.name, c))
            return
        for c in range(lo // ch, (hi - 1) // ch + 1 if hi > lo else lo // ch):
            s, e = c * ch, min(self.n, (c + 1) * ch)
            if lo <= s and e <= hi:
                self.cache.put((self.name, c), data[s - lo:e - lo])
            else:
                x = self.cache.get((self.name, c))
                if x is not None:
                    if self.shared((self.name, c)):
                        x = x.copy()
                    x0, x1 = max(lo, s), min(hi, e)
                    x[x0 - s:x1 - s] = data[x0 - lo:x1 - lo]
                    self.cache.put((self.name, c), x, owned=True)

    def _write_chunks(self, lo: int, hi: int, data: np.ndarray) -> None:
        """data written to [lo, hi) a chunk at a time: a chunk it covers whole is held by
        the cache as it is until its write hands the stored bytes to `repack` (compressed
        once, on the writer's thread: packing it here was a fifth of this thread's time in
        Connect-4 6x6's solve phase), one it covers in part written as __setitem__ does."""
        ch = self.chunk
        for c in range(lo // ch, (hi - 1) // ch + 1 if hi > lo else lo // ch):
            s, e = c * ch, min(self.n, (c + 1) * ch)
            x0, x1 = max(lo, s), min(hi, e)
            part, key = data[x0 - lo:x1 - lo], (self.name, c)
            if x0 == s and x1 == e:
                if self.cache.wanted(key):
                    part = part.copy()  # the cache's own: not the caller's buffer
                    self.cache.put(key, part, owned=True, packed_later=True)
                self._write(c, part)
                continue
            self.writer.submit(self.arr.__setitem__, slice(x0, x1), part, keys=[key])
            x = self.cache.get(key)
            if x is not None:
                if self.shared(key):
                    x = x.copy()
                x[x0 - s:x1 - s] = part
                self.cache.put(key, x, owned=True)

    def shared(self, key) -> bool:
        """Whether the cache's array of chunk `key` may be one queued to write (held as
        written, without a copy, by raise_chunk), so it must not change in place."""
        return self.writer is not None and self.writer.holds(key)

    def raise_chunk(self, c: int, parts) -> None:
        """Chunk `c` raised to at least the bytes of each (start, bytes) of `parts` and
        written (raise_chunks)."""
        self.raise_chunks([(c, parts)])

    def raise_chunks(self, jobs) -> None:
        """Each chunk `c` of (c, parts) of `jobs` (distinct chunks) raised to at least the
        bytes of each (start, bytes) of its parts and written. In place where the cache
        holds it as it is and no write of it is queued: a new chunk costs its page faults
        (allocations this large are mapped fresh, solver/runtime/allocator.py), a copy
        and a count, as much as the marks it takes. The merges, and the unpacking or
        reading they need, run on the pool, up to AHEAD chunks ahead of the bookkeeping
        here (Connect-4 6x6's late reach tasks: 28 % of the time, on this thread alone,
        2026-12-07)."""
        def calls():
            for c, parts in jobs:
                yield self._source(c), c * self.chunk, parts

        for (c, _), x in zip(jobs, in_order(_raised, calls(), AHEAD * threads()),
                             strict=True):
            self._keep(c, x)

    def _source(self, c: int) -> tuple:
        """Where chunk `c` comes from to be raised on the pool (`_raised`): the cache's
        array, to change in place or to copy where a queued write holds it; held packed;
        read from the store; or zeros. A held-back write of it waits for the raise, so
        no write queued meanwhile (`_keep`'s) reads it half raised."""
        key = (self.name, c)
        held = self.dirty.pop(c, None)
        if held is not None:
            self.dirty_bytes -= held[2].nbytes
            self.lifted[c] = held[1]
        x = self.cache.held(key)
        if x is not None:
            self.cache.hits += 1
            return (COPY if self.shared(key) else HELD), x
        got = self.cache.lend(key)
        if got is not None:  # held packed: unpacked into a new array
            self.cache.hits += 1
            return PACKED, got
        if self.unwritten is not None and self.unwritten[c]:
            return ZEROS, min(self.n, (c + 1) * self.chunk) - c * self.chunk, self.arr.dtype
        self.cache.misses += 1
        if self.writer is not None:
            self.writer.wait([key])
        return STORED, self.arr, c, self.n

    def _keep(self, c: int, x: np.ndarray) -> None:
        """Chunk `c`, raised as `x`, held and written."""
        ch, key = self.chunk, (self.name, c)
        s, e = c * ch, min(self.n, (c + 1) * ch)
        if self.unwritten is not None:
            self.unwritten[c] = False
        if self.defer:
            self.cache.put(key, x, owned=True, packed_later=True)
            since = self.lifted.pop(c, None)
            if self.cache.held(key) is x:  # held: written once the tasks raising it end
                self.cache.pinned.add(key)
                self.dirty_bytes += x.nbytes
                self.dirty[c] = [self.serial, self.serial if since is None else since, x]
                while self.dirty_bytes > self.cache.capacity // 2:
                    self._flush(next(iter(self.dirty)))  # the longest unraised first
                return
            if since is not None:  # no longer held back: written now
                self.cache.pinned.discard(key)
                self._write(c, x)
                return
        if self.writer is None:
            self.arr[s:e] = x
            self.cache.put(key, x, owned=True)
        elif hasattr(self.arr, "write_chunk"):
            self._write(c, x)
            self.cache.put(key, x, owned=True, packed_later=True)
        else:
            self.writer.submit(self.arr.__setitem__, slice(s, e), x, keys=[key])
            self.cache.put(key, x, owned=True)

    def _write(self, c: int, x: np.ndarray) -> None:
        """Queue chunk `c`'s write; it waits unpacked until its write gives the stored
        bytes to repack."""
        key = (self.name, c)
        self.writer.submit(self.arr.write_chunk, c, x, keys=[key],
                           then=lambda stored: stored is None or self.cache.repack(
                               key, x, stored, lambda p, out: self.arr.decode(p, c, out)))

    def _flush(self, c: int) -> None:
        """Queue the write of raised chunk `c`, no longer held back."""
        _, _, x = self.dirty.pop(c)
        self.dirty_bytes -= x.nbytes
        self.cache.pinned.discard((self.name, c))
        self._write(c, x)

    def settle(self, record) -> None:
        """A task ended: `record()` runs once the writes of every chunk it raised are
        queued (so the writer records it after them). The chunks it did not raise are
        written now; those it did wait for the next task, which mostly raises them again
        (Connect-4 6x6's late reach tasks: a chunk raised by 13.5 tasks in a row on
        average, each raise a whole chunk compressed and written)."""
        self.waiting.append((self.serial, record))
        for c in [c for c, (last, since, _) in self.dirty.items()
                  if last < self.serial or self.serial - since + 1 >= HELD_TASKS]:
            self._flush(c)
        self.serial += 1
        self._release()

    def flush(self) -> None:
        """Every held-back chunk's write queued, and every waiting task recorded after."""
        for c in list(self.dirty):
            self._flush(c)
        self._release()

    def _release(self) -> None:
        first = min((since for _, since, _ in self.dirty.values()), default=self.serial)
        while self.waiting and self.waiting[0][0] < first:
            self.waiting.popleft()[1]()


class CachedGroup:
    """The partial store's group as a single-process worker sees it: the reach bytes and
    the values read through the cache, everything else (the needs lists) as stored. The
    reach bytes a task writes over its own range are not kept: its solve reads them once,
    long after, from the store (copying or packing them here, to drop them once the task
    was done, was 4 % of Connect-4 6x6's reach phase); the marks pushed to its children
    are."""

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
                                            self.writer, self.fresh, name != REACHED)
        return self.arrays[name]

    def __contains__(self, name) -> bool:
        return name in self.group

    def __getattr__(self, attr):  # creating a needs array: no queued write touches it
        return getattr(self.group, attr)
