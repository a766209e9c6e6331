"""Solved databases: one zarr v3 group per game variant, `<root>/<game>/<variant key>`.

Arrays `value` (uint8 codes) and `remoteness` (smallest unsigned type that holds the
largest remoteness), indexed by position hash, chunked and compressed. Attributes say
what was solved and how; `complete` is written last, so a group without it is an
unfinished solve and never answers a query.

A monolithic solve writes into a sibling folder and swaps it in at the end, so a crash or
a `--force` re-solve never destroys the database that was there.

The root is a local folder or an fsspec store URL (solver/storage/stores.py: `s3://bucket/db`);
paths here are `Path`s or `stores.Url`s, and everything beyond what both answer (list,
remove, move, open as a zarr store) goes through solver.storage.stores. On an object store the
swap is a copy and a removal (no rename there): not atomic, but a database is only read
once its `complete` attribute is set.

Damage is never read as data: every chunk carries a crc32c checksum (a flipped or cut
chunk fails to decode), and the attribute `chunks` records which chunk files each array
had when the database was sealed, so a missing chunk is an error, not zeros (zarr reads a
missing chunk as its fill value). The attributes readers trust and the arrays' metadata
are sealed too, by a digest (`attributes_digest`), so an edited count, start or chunk
shape is an error, not an answer. Opening checks what is cheap (attributes and their
digest, format, the chunk listing against the record); reading a chunk checks its
checksum and digest; `gsolve verify` checks the rest.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from collections.abc import Iterator

import numpy as np

from games.base import Game, GsolveError
from solver.kernels.numbering import KINDS, Numbering, numbered_game, read_index
from solver.storage import stores
from solver.storage.chunks import (
    ARRAYS,
    ATTRIBUTES_DIGEST,
    DIGESTS,
    attributes_digest,
    bound_arrays,
    chunk_damage,
    chunk_digest,
    present_chunks,
)
from solver.storage.stores import Location

# 2: crc32c on every chunk and the `chunks` record (format 1 databases cannot be trusted:
# a missing chunk read as zeros); chunk digests when written after they came.
# 3: the chunk digests always, and the attributes readers trust with the arrays' metadata
# sealed by `attributes_digest`. Format 2 still reads as before (its attributes unbound):
# databases of tens of GB stay usable; a format 3 one without either digest is damaged.
FORMAT = 3
FORMATS_READ = (2, 3)
CHUNK = 1 << 20
# bump when what a partial (tiered) store keeps between runs changes meaning: a resume
# then starts over instead of misreading it
PARTIAL_FORMAT = 2


def codecs(scratch: bool = False) -> list:
    """Bit-shuffled zstd at level 1 (value and remoteness use few bits, so this packs them
    tighter than plain zstd and writes about twice as fast), then a crc32c of the
    compressed bytes, so a damaged chunk fails to decode instead of reading as data.
    `scratch` arrays (a tiered solve's reach bytes, rewritten often and dropped at the
    end) trade size for speed: plain lz4."""
    from zarr.codecs import BloscCodec, Crc32cCodec

    if scratch:
        return [BloscCodec(cname="lz4", clevel=1, shuffle="noshuffle"), Crc32cCodec()]
    return [BloscCodec(cname="zstd", clevel=1, shuffle="bitshuffle"), Crc32cCodec()]


def create_array(group, name: str, shape: tuple[int, ...], dtype, chunk: int | None = None,
                 overwrite: bool = False, scratch: bool = False):
    """A checksummed, compressed array of zeros in `group`: how every gsolve array is made
    (databases, partial stores, tier stores), so none lacks the checksum. `chunk`
    positions a chunk (default CHUNK). Every chunk written is stored, zeros too: zarr's
    test for an all-fill chunk costs more than compressing one."""
    n = shape[0]
    chunk = chunk or CHUNK
    return group.create_array(name, shape=shape, dtype=dtype,
                              chunks=(max(1, min(chunk, n)),) + tuple(shape[1:]),
                              fill_value=0, compressors=codecs(scratch), overwrite=overwrite,
                              config={"write_empty_chunks": True})


def has_checksums(array) -> bool:
    return any(type(c).__name__ == "Crc32cCodec" for c in array.metadata.codecs)


class DatabaseError(GsolveError):
    pass


class DamagedDatabase(DatabaseError):
    """A database that exists but cannot be trusted (missing or failing chunks...)."""


def default_root() -> Location:
    return stores.location(os.environ.get("GSOLVE_DB", "gsolve-db"))


def group_path(root: str | Location | None, game: Game) -> Location:
    """`<root>/<game>/<variant key>`: a Path, or a stores.Url for a store URL."""
    base = stores.location(root) if root is not None else default_root()
    return base / game.name / game.variant_key


def partial_path(path: Location) -> Location:
    """The resumable store of a tiered solve of the database at `path`."""
    return path.with_name(f"{path.name}.partial")


def verify_path(path: Location) -> Location:
    """What a stopped tier-by-tier verify of the database at `path` resumes from."""
    return path.with_name(f"{path.name}.verify")


def command(game: Game, path: Location, *extra: str) -> str:
    """The `gsolve ...` words that name this database again (variant, --db when not the
    default root), for messages that tell the user what to run."""
    words = [game.name]
    if game.variant:
        words += ["-V", game.variant_key]
    root = path.parent.parent
    if root.resolve() != default_root().resolve():
        words += ["--db", str(root)]
    return " ".join([*words, *extra])


def now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def remoteness_dtype(max_remoteness: int) -> np.dtype:
    for dt in (np.uint8, np.uint16, np.uint32):
        if max_remoteness <= np.iinfo(dt).max:
            return np.dtype(dt)
    return np.dtype(np.uint64)




def _describe_chunk(name: str, c: int, chunk: int, n: int, what: str) -> str:
    if c < 0:
        return f"{name} has {what}"
    return f"chunk {c} of {name} (positions {c * chunk:,}..{min(n, (c + 1) * chunk) - 1:,}) " \
           f"is {what}"


class Database:
    """Read access to one solved game variant (the same for every method's output).

    Opening refuses what is cheap to find wrong (a foreign, unfinished, old or damaged
    database); with `check=False` (for `gsolve verify`) it opens anything with both arrays
    and lists what is wrong in `problems`."""

    def __init__(self, path: Location, game: Game, check: bool = True):
        self.path = path
        game = game.game if isinstance(game, Numbering) else game  # answered by slot
        self.game = game
        if not (path / "zarr.json").exists():
            raise _missing(path, game)
        try:
            group = stores.open_group(path, "r")
            attrs = dict(group.attrs)
            self.value_array = group["value"]
            self.remoteness_array = group["remoteness"]
        except Exception as e:
            raise self.damaged(f"it does not open ({type(e).__name__}: {e})",
                               word="corrupt") from None
        if attrs.get("game") != game.name:
            raise DatabaseError(
                f"database at {path} holds game '{attrs.get('game')}', not '{game.name}'")
        if attrs.get("variant") != dict(game.variant):
            raise DatabaseError(
                f"database at {path} holds variant {attrs.get('variant')}, not {game.variant}")
        self.index = None  # compact: positions by canonical index (solver/kernels/compact.py)
        self.size = game.hash_size
        if attrs.get("index") in KINDS and attrs.get("hash_size") == game.hash_size:
            try:
                self.index = read_index(group, attrs, game)
            except Exception as e:
                raise self.damaged(f"its index does not read ({type(e).__name__}: {e})"
                                   ) from None
            self.size = self.index.count
        if (attrs.get("hash_size") != game.hash_size
                or self.value_array.shape != (self.size,)
                or self.remoteness_array.shape != (self.size,)):
            raise self.damaged("its size does not match the game")
        self.attrs = attrs
        # solved on canonical positions only: every lookup goes to the canonical slot
        self.symmetric = bool(attrs.get("symmetry", False))
        if self.symmetric and not game.has_symmetry:
            raise DatabaseError(f"database at {path} was solved with symmetry reduction, "
                                f"which {game.name} no longer declares")
        self._chunk = self.value_array.chunks[0]
        self._cache: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.cache_chunks = 16  # decoded chunks kept (`gsolve serve` keeps more)
        self._check_layout()
        self.digests = None  # chunk digests, names x chunks (older databases have none)
        # (the array read where it is, whatever the attribute says: a renamed attribute
        # never unbinds the chunks)
        if attrs.get("digests") or (path / DIGESTS / "zarr.json").exists():
            try:
                self.digests = group[DIGESTS][:].reshape(len(ARRAYS), -1)
            except Exception as e:
                raise self.damaged(f"its chunk digests do not read ({type(e).__name__})"
                                   ) from None
            if self.digests.shape[1] != self.nchunks:
                raise self.damaged("its chunk digests do not match its size")
        self.sealed_digest = None  # ATTRIBUTES_DIGEST of what is stored (format 3)
        if attrs.get("format") == 3 and self.digests is not None:
            try:
                arrays = {n: group[n] for n in bound_arrays(attrs)}
                self.sealed_digest = attributes_digest(game, attrs, arrays, self.digests)
            except Exception as e:
                raise self.damaged(f"its arrays' metadata does not read ({type(e).__name__}: "
                                   f"{e})") from None
        from solver.storage.chunks import chunk_array

        self._chunked = [chunk_array(self.value_array), chunk_array(self.remoteness_array)]
        self.problems = self._cheap_problems()
        if check and self.problems:
            kind, text, _ = self.problems[0]
            if kind == "unfinished":
                raise DatabaseError(
                    f"database at {path} is unfinished (the solve was interrupted): "
                    f"run `gsolve {command(game, path)} --force` to solve it again")
            if kind == "format":
                raise DatabaseError(
                    f"database at {path} {text}: solve it again with "
                    f"`gsolve {command(game, path)} --force`")
            raise self.damaged(text)

    def _check_layout(self) -> None:
        """What any format's arrays must be for a chunk to decode as the solve wrote it:
        both chunked alike, value uint8, remoteness unsigned (an array's zarr.json edited
        would otherwise fail only the read of a chunk, after "already solved")."""
        v, r = self.value_array, self.remoteness_array
        if v.chunks != r.chunks or not 0 < self._chunk <= max(1, self.size):
            raise self.damaged(f"its arrays' chunk shapes ({v.chunks[0]:,} positions a chunk "
                               f"of value, {r.chunks[0]:,} of remoteness) are not the ones "
                               "solved")
        if v.dtype != np.uint8 or np.dtype(r.dtype).kind != "u":
            raise self.damaged(f"its arrays' types (value {v.dtype}, remoteness {r.dtype}) "
                               "are not the ones solved")

    def _cheap_problems(self) -> list[tuple[str, str, int]]:
        """(kind, text, chunk index or -1) for what the attributes and one listing per
        array show wrong."""
        attrs, out = self.attrs, []
        if not attrs.get("complete"):
            out.append(("unfinished", "it is unfinished (no `complete` attribute)", -1))
        fmt = attrs.get("format")
        if fmt not in FORMATS_READ:
            newer = isinstance(fmt, int) and not isinstance(fmt, bool) and fmt > FORMAT
            out.append(("format", f"has format {fmt}, written by "
                                  f"{'a newer' if newer else 'an older'} gsolve (this one "
                                  f"reads formats {' and '.join(map(str, FORMATS_READ))}: "
                                  "checksummed chunks)", -1))
            return out
        for name, arr in (("value", self.value_array), ("remoteness", self.remoteness_array)):
            if not has_checksums(arr):
                out.append(("damage", f"{name} has no chunk checksums", -1))
        if fmt == 3 and (self.digests is None or attrs.get("digests") is not True):
            out.append(("damage", "it lacks its chunk digests (the attribute `digests` or "
                                  "the array), which every format 3 database has", -1))
        n = self.size
        for name, c, what in chunk_damage(self.path, attrs, self._chunk):
            out.append(("damage", _describe_chunk(name, c, self._chunk, n, what), c))
        if fmt == 3 and self.digests is not None:
            want = attrs.get(ATTRIBUTES_DIGEST)
            if not want:
                out.append(("damage", f"it has no digest of its attributes (attribute "
                                      f"`{ATTRIBUTES_DIGEST}`, which every format 3 "
                                      "database has)", -1))
            elif want != self.sealed_digest:
                out.append(("damage", "its attributes or its arrays' metadata are not the "
                                      "ones sealed (a count, the start, the chunk record or "
                                      "an array's shape, chunks or type changed since the "
                                      "solve)", -1))
        return out

    def damaged(self, what: str, chunk: int = -1, word: str = "damaged") -> DamagedDatabase:
        e = DamagedDatabase(
            f"{word} database for {self.game.describe()} at {self.path}: {what}; "
            f"`gsolve verify {command(self.game, self.path)}` checks it in full, "
            f"`gsolve {command(self.game, self.path)} --force` solves it again")
        e.what = what
        e.chunk = chunk
        return e

    @classmethod
    def open(cls, game: Game, root: str | Location | None = None) -> Database:
        return cls(group_path(root, game), game)

    def read_chunk(self, c: int, into: tuple[np.ndarray, np.ndarray] | None = None
                   ) -> tuple[np.ndarray, np.ndarray]:
        """Values and remoteness of chunk c, uncached (in `into`'s arrays of the chunk's
        in-bounds size, where given); a checksum failure is a DatabaseError naming the
        chunk."""
        a, b = c * self._chunk, min((c + 1) * self._chunk, self.size)
        out = []
        for k, (name, arr) in enumerate(zip(ARRAYS, self._chunked, strict=True)):
            dest = None if into is None else into[k]
            try:
                if hasattr(arr, "read_raw"):
                    out.append(self._read_bound(k, name, arr, c, dest))
                elif dest is None:
                    out.append(arr[a:b])
                else:
                    dest[:] = arr[a:b]
                    out.append(dest)
            except DamagedDatabase:
                raise
            except Exception as e:
                what = ("failing its checksum" if "checksum" in str(e)
                        else f"unreadable ({type(e).__name__}: {e})")
                raise self.damaged(_describe_chunk(name, c, self._chunk, self.size,
                                                   what), c) from None
        return out[0], out[1]

    def _read_bound(self, k: int, name: str, arr, c: int, out: np.ndarray | None = None
                    ) -> np.ndarray:
        """Chunk `c` of array ARRAYS[k], checked against its digest when there is one, and a
        chunk file lost since the database was opened (a recorded one) is an error, never
        zeros."""
        raw = arr.read_raw(c)
        if self.digests is not None:
            want = int(self.digests[k, c])
            got = 0 if raw is None else chunk_digest(
                self.game, name, c, raw.as_numpy_array()[-4:].tobytes())
            if got != want:
                what = ("missing" if raw is None else
                        "not the chunk solved there (moved, swapped or copied from another "
                        "database)")
                raise self.damaged(_describe_chunk(name, c, self._chunk, self.size,
                                                   what), c)
        if raw is None:  # zarr would read it as zeros: only a chunk never written may be
            if any(a <= c < b for a, b in (self.attrs.get("chunks") or {}).get(name, [])):
                raise self.damaged(_describe_chunk(name, c, self._chunk, self.size,
                                                   "missing"), c)
            if out is not None:
                out[:] = 0
                return out
            return np.zeros(min(self.size, (c + 1) * self._chunk) - c * self._chunk,
                            arr.dtype)
        return arr.decode(raw, c, out)

    def _block(self, c: int) -> tuple[np.ndarray, np.ndarray]:
        got = self._cache.get(c)
        if got is None:
            got = self.read_chunk(c)
            if len(self._cache) > self.cache_chunks:
                self._cache.clear()
            self._cache[c] = got
        return got

    def lookup(self, h: int) -> tuple[int, int]:
        """(value code, remoteness) of hash h; value 0 when h is not reachable."""
        if not 0 <= h < self.game.hash_size:
            raise DatabaseError(f"hash {h} is outside 0..{self.game.hash_size - 1}")
        if self.symmetric:
            h = self.game.canonical(h)
        if self.index is not None:
            if not self.index.has(h):
                raise self.damaged(f"its index lacks the canonical position {h}")
            h = self.index.rank(h)
        v, r = self._block(h // self._chunk)
        i = h % self._chunk
        return int(v[i]), int(r[i])

    @property
    def chunk_size(self) -> int:
        """Positions a stored chunk holds (chunk c starts at index c * chunk_size)."""
        return self._chunk

    @property
    def nchunks(self) -> int:
        return -(-self.size // self._chunk)

    def numbered_game(self) -> Numbering:
        """The numbering of the arrays: by slot, canonical slots, or compact."""
        return numbered_game(self.game, self.symmetric, self.index)

    def chunks(self) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        """(first index, values, remoteness) for each stored chunk, in index order (a
        hash, or a canonical index: `numbered_game`)."""
        for c in range(self.nchunks):
            v, r = self._block(c)
            yield c * self._chunk, v, r
            self._cache.pop(c, None)

    def check_start(self) -> None:
        """Decode the start's chunks and compare its value and remoteness with the
        attributes "already solved" prints: DamagedDatabase when they differ (a decode
        failing is one too, like a query's)."""
        from games.base import VALUE_WORDS, shown_remoteness

        v, r = self.lookup(self.game.start)
        if v not in (1, 2, 3, 4):
            raise self.damaged(f"its start position holds value code {v}, not a solved one")
        got = {"start_value": VALUE_WORDS[v],
               "start_remoteness": shown_remoteness(v, r, self.game.puzzle)}
        for key, have in got.items():
            if self.attrs.get(key) != have:
                raise self.damaged(f"its attribute {key} is {self.attrs.get(key)!r}, the "
                                   f"start position it stores has {have!r}")

    def check_all_chunks(self) -> None:
        """Check the checksum of every chunk file (their compressed bytes, not decoded):
        DamagedDatabase at the first bad one. What a solve does before it answers
        "already solved"; with the chunk record checked on open, every stored byte is."""
        import google_crc32c  # zarr's own crc32c

        n = self.size
        for k, name in enumerate(ARRAYS):
            for c in present_chunks(self.path / name):
                data = (self.path / name / "c" / str(c)).read_bytes()
                crc = np.uint32(google_crc32c.value(data[:-4])).tobytes()
                if len(data) < 4 or crc != data[-4:]:
                    raise self.damaged(_describe_chunk(name, c, self._chunk, n,
                                                       "failing its checksum"), c)
                if (self.digests is not None
                        and chunk_digest(self.game, name, c, crc) != self.digests[k, c]):
                    raise self.damaged(_describe_chunk(
                        name, c, self._chunk, n, "not the chunk solved there (moved, swapped "
                        "or copied from another database)"), c)


class UnfinishedSolve(DatabaseError):
    """No database, but the resumable store of an interrupted tiered solve: its message
    says to resume it. A caller that can plan (solver/use/api.py) turns it into `refused` where
    a resume would be refused here, so no message suggests a resume that cannot run."""

    def __init__(self, game: Game, path: Location, done: str):
        self.game, self.path, self.partial, self.done = game, path, partial_path(path), done
        super().__init__(f"unfinished solve of {game.describe()} at {self.partial}{done}: "
                         f"rerun `gsolve {command(game, path, '--method', 'tiers')}` to "
                         "resume it")

    def refused(self, why: Exception) -> DatabaseError:
        return DatabaseError(
            f"unfinished solve of {self.game.describe()} at {self.partial}{self.done}, "
            f"which cannot be resumed here ({why}); `gsolve clean "
            f"{command(self.game, self.path)}` removes it")


def _missing(path: Location, game: Game) -> DatabaseError:
    from solver.storage.stores import running_writer

    pid = running_writer(path)
    if pid is not None:
        return DatabaseError(f"{game.describe()} is being solved now by pid {pid} into "
                             f"{path}: try again when it has finished")
    partial = partial_path(path)
    if (partial / "zarr.json").exists():
        done = ""
        try:
            attrs = json.loads((partial / "zarr.json").read_text()).get("attributes", {})
            if "tiers_done" in attrs:
                done = f" ({len(attrs['tiers_done'])} tiers done)"
        except (OSError, ValueError):
            pass
        return UnfinishedSolve(game, path, done)
    return DatabaseError(f"no database for {game.describe()} at {path}: solve it first with "
                         f"`gsolve {command(game, path)}`")
