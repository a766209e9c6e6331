"""Writing a database, whole or piece by piece.

Whole: the arrays, then the seal (the chunk record and digests, the attributes' digest),
`complete` last, and the swap into place. Piece by piece (the tier solver): the store
`<database>.partial`, resumable, sealed and moved into place the same way once complete."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from games.base import Game
from solver import __version__
from solver.kernels.numbering import index_attrs, write_index
from solver.storage import stores
from solver.storage.chunks import (
    ARRAYS,
    ATTRIBUTES_DIGEST,
    DIGESTS,
    attributes_digest,
    bound_arrays,
    chunk_digest,
    present_chunks,
    runs,
)
from solver.storage.database import (
    CHUNK,
    FORMAT,
    FORMATS_READ,
    PARTIAL_FORMAT,
    DatabaseError,
    command,
    create_array,
    now,
    partial_path,
    remoteness_dtype,
)
from solver.storage.stores import Location


def seal(path: Location, group, game: Game, names: tuple[str, ...] = ARRAYS) -> None:
    """Record which chunk files each array has (zarr writes no file for a chunk of zeros),
    so that a chunk file lost later is noticed on open, and each one's digest (the array
    DIGESTS, names x chunks), so one that is not where it was written is noticed on read;
    then the format and, last, ATTRIBUTES_DIGEST over what a reader will read back, so an
    attribute or an array's metadata changed later is noticed on open."""
    present = {n: present_chunks(path / n) for n in names}
    nchunks = -(-group[names[0]].shape[0] // group[names[0]].chunks[0])
    digests = np.zeros(len(names) * nchunks, np.uint32)
    for k, n in enumerate(names):
        for c in present[n]:
            crc = stores.tail_bytes(path / n / "c" / str(c), 4)
            digests[k * nchunks + c] = chunk_digest(game, n, c, crc)
    create_array(group, DIGESTS, digests.shape, np.uint32, overwrite=True)[:] = digests
    group.update_attributes({"format": FORMAT, "chunks": {n: runs(present[n]) for n in names},
                             "digests": True})
    stored = stores.open_group(path, "r")  # the attributes and metadata as stored
    attrs = dict(stored.attrs)
    arrays = {n: stored[n] for n in bound_arrays(attrs)}
    group.update_attributes({ATTRIBUTES_DIGEST: attributes_digest(game, attrs, arrays,
                                                                  digests)})


def write_arrays(path: Location, game: Game, method: str, started: str, chunks, max_rem: int,
                 extra: dict | None = None, check=None) -> None:
    """Write a complete database from an iterator of (start, value, remoteness) pieces.

    Written to `<path>.partial-<pid>` and renamed into place when complete. `check(group,
    extra)`, when given, reads the written arrays back before anything is sealed: what it
    raises removes the folder, so the database that was there stays.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.partial-{os.getpid()}")
    if tmp.exists():
        stores.remove(tmp)
    try:
        group = stores.open_group(tmp, "w")
        n = game.hash_size
        write_index(group, game, create_array)
        varr = create_array(group, "value", (n,), np.uint8)
        rdt = remoteness_dtype(max_rem)
        rarr = create_array(group, "remoteness", (n,), rdt)
        for start, value, rem in chunks:
            varr[start:start + len(value)] = value
            rarr[start:start + len(rem)] = rem.astype(rdt, copy=False)
        if check is not None:
            check(group, extra or {})
        attrs = {
            "format": FORMAT,
            "game": game.name,
            "variant": dict(game.variant),
            "variant_key": game.variant_key,
            **index_attrs(game),
            "method": method,
            "symmetry": bool(game.symmetry),  # canonical positions only (kernels/symmetry.py)
            "gsolve_version": __version__,
            "started": started,
            "finished": now(),
        }
        attrs.update(extra or {})
        group.update_attributes(attrs)  # one metadata write, not one a key
        seal(tmp, group, game)
        group.attrs["complete"] = True
    except BaseException:
        stores.remove(tmp)
        raise
    swap_in(tmp, path)


def swap_in(tmp: Location, path: Location) -> None:
    """Put the finished folder `tmp` at `path`; the database it replaces is removed after.
    (A solve killed between the two renames leaves `<key>.old-<pid>`, which the next solve
    puts back: see solver.storage.stores.)"""
    old = path.with_name(f"{path.name}.old-{os.getpid()}")
    if path.exists():
        stores.move(path, old)
    stores.move(tmp, path)
    stores.remove(old)


# -- piece by piece ----------------------------------------------------------------------
class PartialStore:
    """A database being written piece by piece (the tier solver), resumable.

    Lives at `<path>.partial` with `complete` unset; records which pieces are done in its
    attributes after each piece is written, and is swapped into place by `finish`. Only
    the holder of the variant's writer lock (solver.storage.stores) may open one.
    """

    def __init__(self, path: Location, game: Game, method: str, rem_dtype, fresh: bool):
        self.final = path
        self.path = partial_path(path)
        self.game = game
        ident = {"format": FORMAT, "game": game.name, "variant": dict(game.variant),
                 "variant_key": game.variant_key, **index_attrs(game),
                 "method": method, "symmetry": bool(game.symmetry),
                 "partial_format": PARTIAL_FORMAT,
                 "gsolve_version": __version__}
        self.group = None
        if not fresh and (self.path / "zarr.json").exists():
            try:
                group = stores.open_group(self.path, "r+")
                attrs = dict(group.attrs)
                # (`format` is the database's, which seal writes: a store begun under
                # format 2 holds the same arrays and is finished as this one)
                if all(attrs.get(k) == v for k, v in ident.items() if k != "format") \
                        and attrs.get("format") in FORMATS_READ:
                    group["value"], group["remoteness"]  # noqa: B018 - both must open
                    self.group = group
            except Exception:
                self.group = None
        self.resumed = self.group is not None
        if self.resumed:  # the index is the game's (its digest is in `ident`): a damaged
            write_index(self.group, game, create_array)  # copy is put right, not kept
        if self.group is None:
            stores.remove(self.path)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            group = stores.open_group(self.path, "w")
            n = game.hash_size
            write_index(group, game, create_array)
            create_array(group, "value", (n,), np.uint8)
            create_array(group, "remoteness", (n,), rem_dtype)
            group.update_attributes({**ident, "started": now()})
            self.group = group
        self.value = self.group["value"]
        self.remoteness = self.group["remoteness"]

    @property
    def attrs(self) -> dict:
        return dict(self.group.attrs)

    def set_attrs(self, **kw) -> None:
        self.group.update_attributes(kw)

    def sync_attrs(self) -> None:
        """The attributes stored last on disk (an fsync of the group's metadata), where the
        store is a local folder (an object store's write is whole once it returns)."""
        if isinstance(self.path, Path):
            fd = os.open(self.path / "zarr.json", os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)

    def damaged(self, e: Exception) -> DatabaseError:
        return DatabaseError(
            f"the unfinished solve at {self.path} is damaged ({type(e).__name__}: {e}): "
            f"solve again with `gsolve {command(self.game, self.final)} --force`")

    def write(self, start: int, value: np.ndarray, rem: np.ndarray) -> None:
        self.value[start:start + len(value)] = value
        self.remoteness[start:start + len(rem)] = rem.astype(self.remoteness.dtype, copy=False)

    def read(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        try:
            return self.value[start:stop], self.remoteness[start:stop]
        except Exception as e:
            raise self.damaged(e) from None

    def finish(self, attrs: dict, drop: tuple[str, ...] = (), check=None) -> None:
        """Drop auxiliary arrays, fit the remoteness dtype, seal, mark complete, swap in.
        `check(group, attrs)`, when given, reads the arrays back first: what it raises
        leaves the store unfinished."""
        for name in drop:
            if name in self.group:
                del self.group[name]
        want = remoteness_dtype(attrs["max_remoteness"])
        if self.remoteness.dtype != want:
            old = self.remoteness
            new = create_array(self.group, "remoteness-fit", old.shape, want,
                               chunk=old.chunks[0], overwrite=True)
            for a in range(0, old.shape[0], CHUNK):
                try:
                    part = old[a:a + CHUNK]
                except Exception as e:
                    raise self.damaged(e) from None
                new[a:a + CHUNK] = part.astype(want)
            del self.group["remoteness"]
            stores.move(self.path / "remoteness-fit", self.path / "remoteness")
        if check is not None:
            check(self.group, attrs)
        self.group.update_attributes({**attrs, "finished": now()})
        for name in ARRAYS:  # chunk files a killed run left half-written (see chunks.py)
            if not stores.is_url(self.path):
                for stray in (self.path / name / "c").glob("*.partial"):
                    stray.unlink(missing_ok=True)
        seal(self.path, self.group, self.game)
        self.group.attrs["complete"] = True
        swap_in(self.path, self.final)
