"""Writing a complete database: the arrays, then the seal (the chunk record and digests,
the attributes' digest), `complete` last, and the swap into place."""

from __future__ import annotations

import os

import numpy as np

from games.base import Game
from solver import __version__
from solver.storage import stores
from solver.storage.database import FORMAT, create_array, now, remoteness_dtype
from solver.storage.index import numbering, write_index
from solver.storage.sealing import (
    ARRAYS,
    ATTRIBUTES_DIGEST,
    DIGESTS,
    attributes_digest,
    bound_arrays,
    chunk_digest,
    present_chunks,
    runs,
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
            **numbering(game),
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
    puts back: see solver.storage.lock.)"""
    old = path.with_name(f"{path.name}.old-{os.getpid()}")
    if path.exists():
        stores.move(path, old)
    stores.move(tmp, path)
    stores.remove(old)
