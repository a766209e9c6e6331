"""The store of a tiered solve while it is written piece by piece: `<database>.partial`,
resumable, and moved into place as the database once complete."""

from __future__ import annotations

import numpy as np

from games.base import Game
from solver import __version__
from solver.storage import stores
from solver.storage.database import (
    ARRAYS,
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
from solver.storage.index import numbering, write_index
from solver.storage.stores import Location
from solver.storage.writing import seal, swap_in


class PartialStore:
    """A database being written piece by piece (the tier solver), resumable.

    Lives at `<path>.partial` with `complete` unset; records which pieces are done in its
    attributes after each piece is written, and is swapped into place by `finish`. Only
    the holder of the variant's writer lock (solver.storage.lock) may open one.
    """

    def __init__(self, path: Location, game: Game, method: str, rem_dtype, fresh: bool):
        self.final = path
        self.path = partial_path(path)
        self.game = game
        ident = {"format": FORMAT, "game": game.name, "variant": dict(game.variant),
                 "variant_key": game.variant_key, **numbering(game),
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
        for name in ARRAYS:  # chunk files a killed run left half-written (see chunkio.py)
            if not stores.is_url(self.path):
                for stray in (self.path / name / "c").glob("*.partial"):
                    stray.unlink(missing_ok=True)
        seal(self.path, self.group, self.game)
        self.group.attrs["complete"] = True
        swap_in(self.path, self.final)
