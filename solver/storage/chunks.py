"""A store array's chunk files: read and written whole in the calling thread, and sealed.

Reads and writes. A tiered solve moves its data through the store a chunk at a time,
thousands of times (a task's own range, its child ranges, the reach marks it pushes).
zarr's array indexing runs each chunk through its async pipeline: a hop to the event
loop, then to a thread for the store and one per codec. On a 256 Ki-slot chunk that
measured 1.8 ms a read and 3.5 ms a write, of which decoding is 0.25 ms. Here the array's
own codec objects run synchronously (zarr's `SupportsSyncCodec`) and a local store is
read and written through its sync methods: 0.5 ms a read, 1.5 ms a write, and the stored
bytes are the ones zarr writes (the codecs are zarr's, with the array's chunk spec). A
chunk of blosc and a crc32c, as gsolve stores every array, is read back without them:
checked and unpacked straight into the caller's array (`unpack`).

The seal: what binds a database to what its solve wrote, the record of its chunk files,
each chunk's digest and the digest of the attributes readers trust (written by
solver/storage/writing.py `seal`, checked by solver/storage/database.py on open and read)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading

import numpy as np

from games.base import Game
from solver.kernels.numbering import INDEX
from solver.storage import stores
from solver.storage.stores import Location


def span(sl, n: int) -> tuple[int, int]:
    """(lo, hi) of a contiguous slice of an array of n: what the tier code reads and
    writes by (a step or an index is a bug there, not a request to serve)."""
    if not isinstance(sl, slice):
        raise IndexError("chunked arrays take contiguous slices only")
    lo, hi, step = sl.indices(n)
    if step != 1:
        raise IndexError("chunked arrays take contiguous slices only")
    return lo, max(lo, hi)


def _sync_call(codec, what: str):
    """A codec's one-chunk `what` ("decode" or "encode") as a plain call: zarr 3.1.6's
    synchronous method, else (zarr 3.1.0-3.1.5) its coroutine run on zarr's event loop.
    Both are private to zarr, hence its pinned range (pyproject.toml), tested at both ends
    in CI (.ci/run)."""
    fast = getattr(codec, f"_{what}_sync", None)
    if fast is not None:
        return fast
    single = getattr(codec, f"_{what}_single", None)
    if single is None:
        raise TypeError(f"ChunkArray: codec {type(codec).__name__} has no one-chunk {what}")
    from zarr.core.sync import sync

    return lambda x, spec: sync(single(x, spec))


class ChunkArray:
    """A 1-d zarr array read and written by contiguous slices, chunk by chunk. A chunk the
    slice covers in part is read, merged and written whole (as zarr does); the caller
    locks what other writers share."""

    def __init__(self, arr):
        from zarr.core.buffer import default_buffer_prototype

        self.arr = arr
        aa = arr._async_array
        self.meta = aa.metadata
        self.proto = default_buffer_prototype()
        config = aa.config if hasattr(aa, "config") else aa._config  # zarr 3.1.0: private
        self.spec = self.meta.get_chunk_spec((0,), config, prototype=self.proto)
        self.store, self.base = aa.store_path.store, aa.store_path.path
        self.chunk, self.n = int(arr.chunks[0]), int(arr.shape[0])
        self.dtype = arr.dtype
        self.fill = np.asarray(self.spec.fill_value, self.dtype)
        if len(arr.shape) != 1:
            raise TypeError("ChunkArray: a 1-d array only")
        self._decoders = [_sync_call(c, "decode") for c in reversed(self.meta.codecs)]
        self._direct = direct_codecs(self.meta.codecs, self.dtype)
        self._encoders = [_sync_call(c, "encode") for c in self.meta.codecs]
        local = _local_files(self.store, self.proto)
        if local is not None:
            self._get, self._set = local
        elif hasattr(self.store, "get_sync") and hasattr(self.store, "set_sync"):
            self._get, self._set = self.store.get_sync, self.store.set_sync
        else:  # a store without sync calls (object storage): through zarr's event loop
            from zarr.core.sync import sync

            self._get = lambda key, prototype: sync(self.store.get(key, prototype=prototype))
            self._set = lambda key, value: sync(self.store.set(key, value))

    def __getattr__(self, attr):
        return getattr(self.arr, attr)

    def _key(self, c: int) -> str:
        key = self.meta.encode_chunk_key((c,))
        return f"{self.base}/{key}" if self.base else key

    def read_raw(self, c: int):
        """The stored bytes of chunk `c` (a zarr Buffer), None where there is no file."""
        return self._get(self._key(c), prototype=self.proto)

    def _size(self, c: int) -> int:
        return min(self.n, (c + 1) * self.chunk) - c * self.chunk

    def drop_chunk(self, c: int) -> None:
        """Chunk `c`'s stored bytes deleted (it then reads as the fill value); none is fine."""
        from zarr.storage import LocalStore

        key = self._key(c)
        if type(self.store) is LocalStore:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{self.store.root}/{key}")
        else:
            from zarr.core.sync import sync

            sync(self.store.delete(key))

    def decode(self, raw, c: int, out: np.ndarray | None = None) -> np.ndarray:
        """Chunk `c`'s in-bounds values from its stored bytes (a zarr Buffer, or what
        write_chunk returned), in `out` where given
        (raising where its checksum fails). Blosc with a crc32c, as every gsolve array is
        stored, is unpacked straight into the result: zarr's codecs made three more
        copies of a chunk, each in fresh pages (the page faults of Connect-4 6x6's reads)."""
        n = self._size(c)
        if self._direct is None:
            x = raw
            for decode in self._decoders:
                x = decode(x, self.spec)
            x = x.as_numpy_array()[:n]
            if out is None:
                return x if x.flags.writeable else x.copy()
            out[:] = x
            return out
        if out is None:
            out = np.empty(n, self.dtype)
        unpack(raw if isinstance(raw, np.ndarray) else raw.as_numpy_array(), self._direct,
               self.chunk, out)
        return out

    def read_chunk(self, c: int, out: np.ndarray | None = None) -> np.ndarray:
        """Chunk `c` (its in-bounds part), in `out` where given; the fill value where it
        was never written. Without `out`, a new array nobody else holds."""
        raw = self.read_raw(c)
        if raw is None:
            if out is None:
                return np.full(self._size(c), self.fill, self.dtype)
            out[:] = self.fill
            return out
        return self.decode(raw, c, out)

    def damage(self, c: int) -> str | None:
        """What is wrong with stored chunk `c` ('missing', or why it does not decode), or
        None when it reads back."""
        raw = self.read_raw(c)
        if raw is None:
            return "missing"
        try:
            self.decode(raw, c)
        except Exception as e:
            return ("failing its checksum" if "checksum" in str(e).lower()
                    else f"unreadable ({type(e).__name__})")
        return None

    def write_chunk(self, c: int, data: np.ndarray) -> np.ndarray | None:
        """Store chunk `c` whole from its in-bounds part `data` (padded with the fill value,
        as zarr pads an edge chunk). Returns the bytes stored where `decode` reads them
        back without zarr (a chunk cache may hold them as its packed copy)."""
        from zarr.core.buffer.cpu import NDBuffer

        if data.size < self.chunk:
            full = np.full(self.chunk, self.fill, self.dtype)
            full[:data.size] = data
            data = full
        x = NDBuffer.from_numpy_array(np.ascontiguousarray(data, self.dtype))
        for encode in self._encoders:
            x = encode(x, self.spec)
        self._set(self._key(c), x)
        return None if self._direct is None else x.as_numpy_array()

    def __getitem__(self, sl) -> np.ndarray:
        lo, hi = span(sl, self.n)
        out = np.empty(hi - lo, self.dtype)
        ch = self.chunk
        for c in range(lo // ch, -(-hi // ch)):
            s = c * ch
            x0, x1 = max(lo, s), min(hi, s + ch)
            if x0 == s and x1 == s + self._size(c):  # whole: unpacked in place
                self.read_chunk(c, out[x0 - lo:x1 - lo])
            else:
                out[x0 - lo:x1 - lo] = self.read_chunk(c)[x0 - s:x1 - s]
        return out

    def __setitem__(self, sl, data) -> None:
        lo, hi = span(sl, self.n)
        data = np.broadcast_to(np.asarray(data, self.dtype), (hi - lo,))
        ch = self.chunk
        for c in range(lo // ch, -(-hi // ch)):
            s, e = c * ch, min(self.n, (c + 1) * ch)
            if lo <= s and e <= hi:
                self.write_chunk(c, data[s - lo:e - lo])
            else:
                cur = self.read_chunk(c).copy()
                x0, x1 = max(lo, s), min(hi, e)
                cur[x0 - s:x1 - s] = data[x0 - lo:x1 - lo]
                self.write_chunk(c, cur)


def direct_codecs(codecs, dtype) -> bool | None:
    """Whether an array's codecs are bytes in this machine's order, blosc and a crc32c
    (checked: True) or none (False), which `unpack` decodes without zarr; None for any
    other chain, left to zarr's codecs."""
    import sys

    from zarr.codecs import BloscCodec, BytesCodec, Crc32cCodec

    cs = list(codecs)
    if len(cs) not in (2, 3) or type(cs[0]) is not BytesCodec or type(cs[1]) is not BloscCodec:
        return None
    endian = getattr(cs[0].endian, "value", cs[0].endian)
    if np.dtype(dtype).itemsize > 1 and endian not in (None, sys.byteorder):
        return None
    if len(cs) == 3 and type(cs[2]) is not Crc32cCodec:
        return None
    return len(cs) == 3


def unpack(stored: np.ndarray, checked: bool, chunk: int, out: np.ndarray) -> None:
    """A stored chunk (blosc, then its crc32c where `checked`) of `chunk` values into `out`
    (its in-bounds part), raising ValueError where its checksum fails or it holds another
    size. What zarr's codecs do, the bytes checked the same way."""
    from google_crc32c import value as crc32c
    from numcodecs import blosc

    payload = stored[:-4] if checked else stored
    if checked and crc32c(payload) != int.from_bytes(stored[-4:].tobytes(), "little"):
        raise ValueError("Stored and computed checksum do not match")
    head = payload[:16].tobytes()  # blosc's header: sizes at bytes 4..8 and 12..16
    nbytes = int.from_bytes(head[4:8], "little")
    if len(head) < 16 or int.from_bytes(head[12:16], "little") != payload.size:
        raise ValueError("not a whole blosc chunk")
    if nbytes != chunk * out.itemsize:
        raise ValueError(f"a chunk of {nbytes} bytes, not {chunk * out.itemsize}")
    if out.size == chunk and out.flags.c_contiguous:
        blosc.decompress(payload, out)
        return
    full = np.empty(chunk, out.dtype)
    blosc.decompress(payload, full)
    out[:] = full[:out.size]


# A hook for tests (tests/hooked.py, benchmarks/faults.py): None, or `hook(step, fd, view)`
# called at each step of writing a chunk file of this process: ("write", fd, the bytes
# to write) before they are written, returning what is left of them to write (it may write
# a part first, a torn write), and ("rename", None, None) before the file is put in place.
# It fails the step by raising OSError (ENOSPC, EIO...) or kills the process there: faults
# at a known point, on any filesystem. Paged scratch writes call it too (engine/scratch.py).
fault_hook = None


_written: set[str] = set()  # chunk files written by this process, not yet synced
_lock = threading.Lock()


def sync_written() -> None:
    """fsync every chunk file this process wrote since the last call, and their folders
    (the renames): after it, those bytes survive a power cut, so a task is recorded
    finished only after it (solver/engine/manager.py Record.task)."""
    with _lock:
        paths = sorted(_written)
        _written.clear()
    folders = set()
    for path in paths:
        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:  # rewritten under another name since, or dropped
            continue
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        folders.add(os.path.dirname(path))
    for folder in sorted(folders):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _local_files(store, proto):
    """(get, set) of a writable zarr LocalStore's keys, straight on its files: what its own
    get_sync and set_sync do (a missing file reads as None; a write goes to a temporary file
    renamed over the key, so a reader never sees half of one), without their pathlib and
    checks: 0.21 against 0.34 ms a chunk write, 0.03 against 0.05 ms a read. None for any
    other store."""
    import contextlib

    from zarr.storage import LocalStore

    if type(store) is not LocalStore or store.read_only:
        return None
    root = str(store.root)
    made: set[str] = set()

    def get(key, prototype=None):
        try:
            with open(f"{root}/{key}", "rb") as f:
                return proto.buffer.from_bytes(f.read())
        except FileNotFoundError:
            return None

    def put(key, value):
        path = f"{root}/{key}"
        folder = os.path.dirname(path)
        if folder not in made:
            os.makedirs(folder, exist_ok=True)
            made.add(folder)
        tmp = f"{path}.{os.getpid()}-{threading.get_ident()}.partial"
        view = memoryview(value.as_buffer_like()).cast("B")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            try:
                if fault_hook is not None:
                    view = fault_hook("write", fd, view)
                while view:
                    view = view[os.write(fd, view):]
            finally:
                os.close(fd)
            if fault_hook is not None:
                fault_hook("rename", None, None)
            os.replace(tmp, path)
            with _lock:
                _written.add(path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    return get, put


def chunk_array(arr):
    """`arr` as a ChunkArray, or as it is where its store or codecs do not allow one."""
    try:
        return ChunkArray(arr)
    except (AttributeError, TypeError):
        return arr


class ChunkGroup:
    """A store group whose named 1-d arrays are ChunkArrays; anything else as stored."""

    def __init__(self, group, names):
        self.group, self.names = group, tuple(names)
        self.arrays: dict = {}

    def __getitem__(self, name):
        if name not in self.names:
            return self.group[name]
        if name not in self.arrays:
            self.arrays[name] = chunk_array(self.group[name])
        return self.arrays[name]

    def __contains__(self, name) -> bool:
        return name in self.group

    def __getattr__(self, attr):
        return getattr(self.group, attr)


# -- the seal ---------------------------------------------------------------------------
ARRAYS = ("value", "remoteness")


def present_chunks(array_dir: Location) -> list[int]:
    """Indices of the chunk files of a 1-D array, from one directory listing."""
    return sorted(int(x) for x in stores.listdir(array_dir / "c") if x.isdigit())


def runs(idx: list[int]) -> list[list[int]]:
    """[[first, stop), ...] of consecutive indices: compact for the usual dense listing."""
    out: list[list[int]] = []
    for i in idx:
        if out and out[-1][1] == i:
            out[-1][1] = i + 1
        else:
            out.append([i, i + 1])
    return out


DIGESTS = "digests"  # the array of chunk digests (see chunk_digest)


def chunk_digest(game: Game, name: str, c: int, crc: bytes) -> int:
    """A chunk file's digest: the crc32c its codec stored (its last 4 bytes, over its
    compressed data) bound to its game, variant, array and index, so a chunk file moved,
    swapped or copied from another database fails the record although its own checksum
    holds. Never 0 (0 records that no file was written)."""
    import google_crc32c  # zarr's own crc32c

    where = f"{game.name}/{game.variant_key}/{name}/{c}:".encode()
    return int(google_crc32c.value(where + bytes(crc))) or 1


ATTRIBUTES_DIGEST = "attributes_digest"  # the digest of BOUND and the arrays' metadata


# the attributes readers trust (what "already solved" prints, how the arrays are numbered,
# what the chunks and their digests are), sealed by ATTRIBUTES_DIGEST; the others (times,
# runs, version) are the solve's story, not answers
BOUND = ("format", "game", "variant", "variant_key", "hash_size", "index", "stored",
         "index_digest", "symmetry", "method", "positions", "values", "start_value",
         "start_remoteness", "max_remoteness", "chunks", "digests")


def bound_arrays(attrs: dict) -> tuple[str, ...]:
    """The arrays whose metadata (shape, chunks, type, fill) ATTRIBUTES_DIGEST binds."""
    return (*ARRAYS, DIGESTS, *((INDEX,) if attrs.get("index") == "canonical" else ()))


def attributes_digest(game: Game, attrs: dict, arrays: dict, digests: np.ndarray) -> str:
    """SHA-256 of a canonical JSON of the BOUND attributes (those present), the metadata of
    `arrays` (name to zarr array: the remoteness type among it) and the chunk digests'
    bytes, bound to the game and variant like chunk_digest: an edited attribute, a changed
    chunk shape or a database copied from another variant fails it."""
    meta = {n: {"shape": [int(x) for x in a.shape], "chunks": [int(x) for x in a.chunks],
                "dtype": np.dtype(a.dtype).name, "fill_value": int(a.fill_value)}
            for n, a in arrays.items()}
    body = {"attributes": {k: attrs[k] for k in BOUND if k in attrs}, "arrays": meta,
            "digests": hashlib.sha256(np.ascontiguousarray(digests, "<u4").tobytes()
                                      ).hexdigest()}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False)
    return hashlib.sha256(f"{game.name}/{game.variant_key}:{text}".encode()).hexdigest()


def chunk_damage(path: Location, attrs: dict, chunk: int,
                 names: tuple[str, ...] = ARRAYS) -> list[tuple[str, int, str]]:
    """(array, chunk index, what) for each chunk file missing or unexpected against the
    record: a directory listing per array, no chunk read."""
    record = attrs.get("chunks")
    if not isinstance(record, dict):
        return [(n, -1, "no record of its chunks") for n in names]
    out = []
    for n in names:
        want = {i for a, b in record.get(n, []) for i in range(a, b)}
        have = set(present_chunks(path / n))
        out += [(n, i, "missing") for i in sorted(want - have)]
        out += [(n, i, "not written by the solve") for i in sorted(have - want)]
    return out
