"""The chunk cache of a single-process tiered solve, and the store arrays read through it
(solver/engine/manager.py): a task reads its own pending reach bytes and its child ranges
without going through the store."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from solver.engine.task import REACHED
from solver.storage.chunkio import chunk_array, span

if TYPE_CHECKING:
    from solver.engine.writer import Writer

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
