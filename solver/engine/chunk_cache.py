"""The chunk cache of a single-process tiered solve (engine/local.py): store chunks held
in memory, sparse ones packed, the least recently used dropped past a capacity."""

from __future__ import annotations

import numpy as np

from solver.runtime.allocator import LARGE, mapping_limit

SPARSE = 4  # a chunk with under 1/SPARSE of its bytes nonzero is cached packed
STRIDE = 61  # the elements a large chunk's density is judged by (a prime: no aliasing)
# a sparse chunk stays unpacked while the cache holds under this share of its capacity:
# its next read or raise then needs no unpacking (Connect-4 6x6's late reach tasks, each
# raising child chunks that the tasks before it raised: +28 % tasks, 2026-12-06)
ROOM = 0.75


def sparse(x: np.ndarray) -> bool:
    """Whether under 1/SPARSE of `x` is nonzero, judged by every STRIDE-th element of a
    large chunk (a pass over the whole chunk cost as much as the merge that wrote it)."""
    sample = x[::STRIDE] if x.size >= STRIDE << 8 else x
    return np.count_nonzero(sample) * SPARSE < sample.size


class Unread:
    """A chunk the cache does not hold, to read from the store on any thread (`fetch`): its
    reader hands it to the cache after, on the cache's thread."""

    __slots__ = ("read", "pack")

    def __init__(self, read, pack):
        self.read = read  # read() -> a new array of the chunk
        self.pack = pack  # ChunkCache.pack where the cache was past ROOM when lent, or None


def fetch(got) -> tuple[np.ndarray, object]:
    """An Unread chunk read, on any thread, and packed where the cache would pack it:
    (its array, the pack or None) for the cache's `put`."""
    x = got.read()
    return x, (got.pack(x) if got.pack is not None else None)


def lent(got, out: np.ndarray | None = None) -> np.ndarray:
    """A chunk as ChunkCache.lend gave it: its array, or the packed one unpacked into `out`
    where given (a buffer used again). An Unread is read by `fetch`."""
    if isinstance(got, np.ndarray):
        return got
    packed, dtype, n, unpack = got
    out = np.empty(n, dtype) if out is None or out.size != n else out
    unpack(packed, out)
    return out


def _nbytes(got) -> int:
    return got.nbytes if isinstance(got, np.ndarray) else len(got[0])


def own_size(packed) -> np.ndarray:
    """Packed bytes in a block of their own size. A codec packs into a block of the whole
    chunk's size and shrinks it, and glibc shrinks a block it mapped apart (over LARGE)
    where it lies, so each packed chunk kept a mapping of its own: Connect-4 6x6's solve
    held 23,000 such 4-124 KiB mappings within minutes, and past vm.max_map_count
    (65,530) every large block came from the heap, whose holes are kept (16.48 GiB
    resident under `--memory 16`)."""
    return np.frombuffer(packed, np.uint8).copy()


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
        # (name, chunk) -> the array, or packed: (bytes, dtype, size, unpack(bytes, out))
        self.data: OrderedDict = OrderedDict()
        self.hits = self.misses = 0
        self.readers: dict[str, np.ndarray] = {}  # name -> later reads left per chunk
        self.pinned: set = set()  # chunks held changed and not yet written: never evicted
        # held blocks of LARGE bytes or more, each a mapping of its own: at most half the
        # process's limit, so its other large blocks are mapped too (a byte budget of
        # packed chunks could hold far more of them)
        self.mapped, self.most_mapped = 0, mapping_limit() // 2

    def wanted(self, key) -> bool:
        """Whether a later task reads the chunk (every chunk of an array without counts)."""
        r = self.readers.get(key[0])
        return r is None or r[key[1]] > 0

    def __contains__(self, key) -> bool:
        return key in self.data

    def get(self, key, out: np.ndarray | None = None) -> np.ndarray | None:
        """The chunk, or None: the cached array itself when it is held unpacked, so a
        caller that changes it puts it back; one held packed is unpacked into `out` where
        given (a buffer used again: a new array a chunk cost its page faults)."""
        got = self.lend(key)
        return None if got is None else lent(got, out)

    def lend(self, key):
        """The chunk as held, or None: its array (to read only), or packed, which `lent`
        unpacks; lent thus, another thread can unpack it while this one goes on."""
        got = self.data.get(key)
        if got is not None:
            self.data.move_to_end(key)
        return got

    def held(self, key) -> np.ndarray | None:
        """The cache's own array of the chunk where it is held as it is (unpacked), to
        change in place and put back; else None."""
        got = self.data.get(key)
        if not isinstance(got, np.ndarray):
            return None
        self.data.move_to_end(key)
        return got

    def full(self) -> bool:
        """Whether the cache is past ROOM: sparse chunks put now are packed."""
        return self.used >= ROOM * self.capacity

    def pack(self, x: np.ndarray):
        """Chunk `x` packed as `put` holds it where it is sparse, else None; on any thread
        (the chunks a solve reads from the store are packed where they are read: on the
        cache's thread, packing was 40 % of it in Connect-4 6x6's solve phase)."""
        if not sparse(x):
            return None
        return (own_size(self.codec.encode(np.ascontiguousarray(x))), x.dtype, x.size,
                self.codec.decode)

    def put(self, key, x: np.ndarray, owned: bool = False, packed_later: bool = False,
            packed=None) -> None:
        """Hold chunk `x` (a copy, unless `owned`: the caller gives it up and nobody
        changes it after, so it is kept as it is). A sparse one is packed once the cache
        is past ROOM (each read of a packed chunk unpacks it: Connect-4 6x6's solve phase
        spent 35 % of its CPU in LZ4 with the cache a third full), unless `packed_later`:
        its store write will hand its stored bytes to `repack`; `packed`: x as `pack`
        packed it, where the caller did."""
        if not self.wanted(key) or self.data.get(key) is x:  # x: changed in place
            return
        got = None
        if not packed_later and self.used + x.nbytes > ROOM * self.capacity:
            got = packed if packed is not None else self.pack(x)
        if got is None:
            got = x if owned else x.copy()
        self.drop(key)  # an older copy must never outlive a newer write, kept or not
        self._hold(key, got)

    def repack(self, key, x: np.ndarray, stored: np.ndarray, unpack) -> None:
        """Chunk `x`, still held as it is, now stored as `stored` (read back by
        unpack(stored, out)): held so where it is sparse and the cache is past ROOM. The
        writer's compression is the pack, so this thread does not compress the chunk a
        second time (Connect-4 6x6: packing was 17 % of the reach phase's time)."""
        if (self.data.get(key) is not x or not sparse(x)
                or self.used < ROOM * self.capacity):
            return  # changed or replaced since, worth holding as it is, or room for it
        self.drop(key)
        self._hold(key, (own_size(stored), x.dtype, x.size, unpack))

    def _hold(self, key, got) -> None:
        if _nbytes(got) > self.capacity:
            return
        self.data[key] = got
        self._count(got, 1)
        self._evict()

    def resize(self, capacity: int) -> None:
        """Hold at most `capacity` bytes from now on (the least recently used go first)."""
        self.capacity = max(0, capacity)
        self._evict()

    def _count(self, got, sign: int) -> None:
        n = _nbytes(got)
        self.used += sign * n
        self.mapped += sign * (n >= LARGE)

    def _evict(self) -> None:
        moved = 0
        while (self.used > self.capacity or self.mapped > self.most_mapped) and self.data:
            k, y = self.data.popitem(last=False)
            if k in self.pinned:  # not yet written: to the back, evictable once it is
                self.data[k] = y
                moved += 1
                if moved > len(self.pinned):  # nothing but pinned chunks left
                    break
                continue
            self._count(y, -1)

    def drop(self, key) -> None:
        x = self.data.pop(key, None)
        if x is not None:
            self._count(x, -1)

    def drop_range(self, name: str, chunk: int, a: int, b: int) -> None:
        """Forget the chunks of `name` that lie wholly inside [a, b)."""
        for c in range(-(-a // chunk), b // chunk):
            self.drop((name, c))
