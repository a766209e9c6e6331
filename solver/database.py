"""Solved databases: one zarr v3 group per game variant, `<root>/<game>/<variant key>`.

Arrays `value` (uint8 codes) and `remoteness` (smallest unsigned type that holds the
largest remoteness), indexed by position hash, chunked and compressed. Attributes say
what was solved and how; `complete` is written last, so a group without it is an
unfinished solve and never answers a query.

A monolithic solve writes into a sibling folder and swaps it in at the end, so a crash or
a `--force` re-solve never destroys the database that was there.
"""

from __future__ import annotations

import datetime as _dt
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import zarr

from games.base import Game, GsolveError

FORMAT = 1
CHUNK = 1 << 18
# bump when what a partial (tiered) store keeps between runs changes meaning: a resume
# then starts over instead of misreading it
PARTIAL_FORMAT = 2


def _compressors():
    """Bit-shuffled zstd at level 1: value and remoteness use few bits, so this packs them
    tighter than plain zstd and writes about twice as fast."""
    from zarr.codecs import BloscCodec

    return [BloscCodec(cname="zstd", clevel=1, shuffle="bitshuffle")]


class DatabaseError(GsolveError):
    pass


def default_root() -> Path:
    return Path(os.environ.get("GSOLVE_DB", "gsolve-db"))


def group_path(root: str | Path | None, game: Game) -> Path:
    return Path(root if root is not None else default_root()) / game.name / game.variant_key


def now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def remoteness_dtype(max_remoteness: int) -> np.dtype:
    for dt in (np.uint8, np.uint16, np.uint32):
        if max_remoteness <= np.iinfo(dt).max:
            return np.dtype(dt)
    return np.dtype(np.uint64)


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("gsolve")
    except Exception:
        return "unknown"


def write_arrays(path: Path, game: Game, method: str, started: str, chunks, max_rem: int,
                 extra: dict | None = None) -> None:
    """Write a complete database from an iterator of (start, value, remoteness) pieces.

    Written to `<path>.partial-<pid>` and renamed into place when complete.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.partial-{os.getpid()}")
    if tmp.exists():
        shutil.rmtree(tmp)
    try:
        group = zarr.open_group(store=str(tmp), mode="w", zarr_format=3)
        n = game.hash_size
        chunk = max(1, min(CHUNK, n))
        varr = group.create_array("value", shape=(n,), dtype=np.uint8, chunks=(chunk,),
                                  fill_value=0, compressors=_compressors())
        rdt = remoteness_dtype(max_rem)
        rarr = group.create_array("remoteness", shape=(n,), dtype=rdt, chunks=(chunk,),
                                  fill_value=0, compressors=_compressors())
        for start, value, rem in chunks:
            varr[start:start + len(value)] = value
            rarr[start:start + len(rem)] = rem.astype(rdt, copy=False)
        attrs = {
            "format": FORMAT,
            "game": game.name,
            "variant": dict(game.variant),
            "variant_key": game.variant_key,
            "hash_size": int(n),
            "method": method,
            "gsolve_version": _version(),
            "started": started,
            "finished": now(),
        }
        attrs.update(extra or {})
        group.attrs.update(attrs)
        group.attrs["complete"] = True
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    old = path.with_name(f"{path.name}.old-{os.getpid()}")
    if path.exists():
        os.replace(path, old)
    os.replace(tmp, path)
    shutil.rmtree(old, ignore_errors=True)


class Database:
    """Read access to one solved game variant (the same for every method's output)."""

    def __init__(self, path: Path, game: Game):
        self.path = path
        self.game = game
        if not (path / "zarr.json").exists():
            raise DatabaseError(
                f"no database for {game.describe()} at {path}: solve it first with "
                f"`gsolve {game.name}" + (f" --variant {game.variant_key}`"
                                          if game.variant else "`"))
        try:
            group = zarr.open_group(store=str(path), mode="r", zarr_format=3)
            attrs = dict(group.attrs)
            self.value_array = group["value"]
            self.remoteness_array = group["remoteness"]
        except Exception as e:
            raise DatabaseError(f"corrupt database at {path}: {type(e).__name__}: {e}") from None
        if attrs.get("game") != game.name:
            raise DatabaseError(
                f"database at {path} holds game '{attrs.get('game')}', not '{game.name}'")
        if attrs.get("variant") != dict(game.variant):
            raise DatabaseError(
                f"database at {path} holds variant {attrs.get('variant')}, not {game.variant}")
        if not attrs.get("complete"):
            raise DatabaseError(
                f"database at {path} is unfinished (the solve was interrupted): "
                f"run `gsolve {game.name}` again to finish it")
        if (attrs.get("hash_size") != game.hash_size
                or self.value_array.shape != (game.hash_size,)
                or self.remoteness_array.shape != (game.hash_size,)):
            raise DatabaseError(f"corrupt database at {path}: its size does not match the game")
        self.attrs = attrs
        self._cache: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._chunk = self.value_array.chunks[0]

    @classmethod
    def open(cls, game: Game, root: str | Path | None = None) -> Database:
        return cls(group_path(root, game), game)

    def _block(self, c: int) -> tuple[np.ndarray, np.ndarray]:
        got = self._cache.get(c)
        if got is None:
            a, b = c * self._chunk, min((c + 1) * self._chunk, self.game.hash_size)
            try:
                got = (self.value_array[a:b], self.remoteness_array[a:b])
            except Exception as e:
                raise DatabaseError(f"corrupt database at {self.path}: {e}") from None
            if len(self._cache) > 16:
                self._cache.clear()
            self._cache[c] = got
        return got

    def lookup(self, h: int) -> tuple[int, int]:
        """(value code, remoteness) of hash h; value 0 when h is not reachable."""
        if not 0 <= h < self.game.hash_size:
            raise DatabaseError(f"hash {h} is outside 0..{self.game.hash_size - 1}")
        v, r = self._block(h // self._chunk)
        i = h % self._chunk
        return int(v[i]), int(r[i])

    def chunks(self) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        """(first hash, values, remoteness) for each stored chunk, in hash order."""
        n = self.game.hash_size
        for a in range(0, n, self._chunk):
            v, r = self._block(a // self._chunk)
            yield a, v, r
            self._cache.pop(a // self._chunk, None)


def is_complete(root: str | Path | None, game: Game) -> bool:
    try:
        Database.open(game, root)
        return True
    except DatabaseError:
        return False


class PartialStore:
    """A database being written piece by piece (the tier solver), resumable.

    Lives at `<path>.partial` with `complete` unset; records which pieces are done in its
    attributes after each piece is written, and is swapped into place by `finish`.
    """

    def __init__(self, path: Path, game: Game, method: str, rem_dtype, fresh: bool):
        self.final = path
        self.path = path.with_name(f"{path.name}.partial")
        self.game = game
        ident = {"format": FORMAT, "game": game.name, "variant": dict(game.variant),
                 "variant_key": game.variant_key, "hash_size": int(game.hash_size),
                 "method": method, "partial_format": PARTIAL_FORMAT,
                 "gsolve_version": _version()}
        self.group = None
        if not fresh and (self.path / "zarr.json").exists():
            try:
                group = zarr.open_group(store=str(self.path), mode="r+", zarr_format=3)
                attrs = dict(group.attrs)
                if all(attrs.get(k) == v for k, v in ident.items()):
                    group["value"], group["remoteness"]  # noqa: B018 - both must open
                    self.group = group
            except Exception:
                self.group = None
        self.resumed = self.group is not None
        if self.group is None:
            shutil.rmtree(self.path, ignore_errors=True)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            group = zarr.open_group(store=str(self.path), mode="w", zarr_format=3)
            n = game.hash_size
            chunk = max(1, min(CHUNK, n))
            group.create_array("value", shape=(n,), dtype=np.uint8, chunks=(chunk,),
                               fill_value=0, compressors=_compressors())
            group.create_array("remoteness", shape=(n,), dtype=rem_dtype, chunks=(chunk,),
                               fill_value=0, compressors=_compressors())
            group.attrs.update({**ident, "started": now()})
            self.group = group
        self.value = self.group["value"]
        self.remoteness = self.group["remoteness"]

    @property
    def attrs(self) -> dict:
        return dict(self.group.attrs)

    def set_attrs(self, **kw) -> None:
        self.group.attrs.update(kw)

    def save_bytes(self, name: str, data: np.ndarray) -> None:
        """An auxiliary uint8 array (e.g. reach marks) kept until the store is finished."""
        arr = self.group.create_array(name, shape=data.shape, dtype=np.uint8,
                                      chunks=(max(1, min(CHUNK * 4, data.shape[0])),),
                                      fill_value=0, overwrite=True)
        arr[:] = data

    def load_bytes(self, name: str) -> np.ndarray:
        return self.group[name][:]

    def write(self, start: int, value: np.ndarray, rem: np.ndarray) -> None:
        self.value[start:start + len(value)] = value
        self.remoteness[start:start + len(rem)] = rem.astype(self.remoteness.dtype, copy=False)

    def read(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        return self.value[start:stop], self.remoteness[start:stop]

    def finish(self, attrs: dict, drop: tuple[str, ...] = ()) -> None:
        """Drop auxiliary arrays, fit the remoteness dtype, mark complete, swap in."""
        for name in drop:
            if name in self.group:
                del self.group[name]
        want = remoteness_dtype(attrs["max_remoteness"])
        if self.remoteness.dtype != want:
            old = self.remoteness
            new = self.group.create_array("remoteness-fit", shape=old.shape, dtype=want,
                                          chunks=old.chunks, fill_value=0, overwrite=True,
                                          compressors=_compressors())
            for a in range(0, old.shape[0], CHUNK):
                new[a:a + CHUNK] = old[a:a + CHUNK].astype(want)
            del self.group["remoteness"]
            os.replace(self.path / "remoteness-fit", self.path / "remoteness")
        self.group.attrs.update({**attrs, "finished": now()})
        self.group.attrs["complete"] = True
        old = self.final.with_name(f"{self.final.name}.old-{os.getpid()}")
        if self.final.exists():
            os.replace(self.final, old)
        os.replace(self.path, self.final)
        shutil.rmtree(old, ignore_errors=True)
