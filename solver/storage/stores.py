"""Where databases live: a local folder (a `pathlib.Path`) or an fsspec store URL
(`s3://bucket/gsolve-db`, `gs://...`, any protocol fsspec knows) that every cluster worker
can reach. `file://` URLs are local folders.

A `Url` answers the few `Path` questions the database code asks (`/`, `name`, `parent`,
`with_name`, `exists`, `read_text`, `read_bytes`), so that code reads the same for both;
what `Path` does through `os` and `shutil` (list, remove, move, open as a zarr store) is
one function here for both. Object stores have no rename: `move` copies every object and
then removes the source, so it is not atomic; a database there is only trusted with its
`complete` attribute, written last, as everywhere.

Credentials and endpoints come from the environment of every process that touches the
store (client and workers): the backend's own variables (for s3fs the standard AWS ones:
AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_ENDPOINT_URL, AWS_DEFAULT_REGION...), or any
fsspec option as FSSPEC_<PROTOCOL>_<OPTION> (e.g. FSSPEC_S3_ENDPOINT_URL).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from games.base import GsolveError

PACKAGES = {"s3": "s3fs", "s3a": "s3fs", "gs": "gcsfs", "gcs": "gcsfs", "az": "adlfs",
            "abfs": "adlfs"}


class Url:
    """An fsspec location `protocol://path` (no trailing slash)."""

    def __init__(self, url: str):
        protocol, sep, rest = str(url).partition("://")
        if not sep or not protocol or not rest.strip("/"):
            raise GsolveError(f"'{url}' is not a store URL (expected PROTOCOL://PATH, "
                              "e.g. s3://bucket/gsolve-db)")
        self.protocol, self.path = protocol.lower(), rest.rstrip("/")

    def __str__(self) -> str:
        return f"{self.protocol}://{self.path}"

    def __repr__(self) -> str:
        return f"Url({str(self)!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Url) and str(other) == str(self)

    def __hash__(self) -> int:
        return hash(str(self))

    @property
    def fs(self):
        """The (synchronous) fsspec filesystem; fsspec keeps one instance per options."""
        import fsspec

        try:
            return fsspec.filesystem(self.protocol)
        except (ImportError, ValueError) as e:
            raise GsolveError(_no_backend(self.protocol, e)) from None

    def __truediv__(self, name: str) -> Url:
        return Url(f"{self}/{name}")

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    @property
    def parent(self) -> Url:
        head = self.path.rsplit("/", 1)[0] if "/" in self.path else self.path
        return Url(f"{self.protocol}://{head}")

    def with_name(self, name: str) -> Url:
        return self.parent / name

    def resolve(self) -> Url:
        return self

    def exists(self) -> bool:
        fs = self.fs
        fs.invalidate_cache(self.path)  # listings are cached; other processes write here
        return fs.exists(self.path)

    def is_dir(self) -> bool:
        fs = self.fs
        fs.invalidate_cache(self.path)
        return fs.isdir(self.path)

    def mkdir(self, parents: bool = False, exist_ok: bool = False) -> None:
        """Object stores have no folders: a prefix exists once something is under it."""

    def read_bytes(self) -> bytes:
        return self.fs.cat_file(self.path)

    def read_text(self) -> str:
        return self.read_bytes().decode()


Location = Path | Url


def location(x: str | os.PathLike | Url) -> Location:
    """A Url for `PROTOCOL://...` (other than file://), else a local Path."""
    if isinstance(x, Url | Path):
        return x
    s = os.fspath(x) if not isinstance(x, str) else x
    if "://" not in s:
        return Path(s).expanduser()
    if s.lower().startswith("file://"):
        return Path(s[len("file://"):]).expanduser()
    return Url(s)


def is_url(x) -> bool:
    return isinstance(x, Url)


def listdir(loc: Location) -> list[str]:
    """Names directly under `loc` ([] when there is nothing)."""
    if isinstance(loc, Url):
        fs = loc.fs
        fs.invalidate_cache(loc.path)
        try:
            return [p.rstrip("/").rsplit("/", 1)[-1] for p in fs.ls(loc.path, detail=False)]
        except FileNotFoundError:
            return []
    try:
        return os.listdir(loc)
    except (FileNotFoundError, NotADirectoryError):
        return []


def remove(loc: Location) -> None:
    """Remove the folder (or prefix) `loc` and everything under it, if there."""
    if isinstance(loc, Url):
        fs = loc.fs
        fs.invalidate_cache(loc.path)
        keys = fs.find(loc.path)
        if keys:
            fs.rm(keys)
        fs.invalidate_cache(loc.path)
    else:
        shutil.rmtree(loc, ignore_errors=True)


def move(src: Location, dst: Location) -> None:
    """Put the folder `src` at `dst` (which must not exist): a rename where the backend
    has one, else a copy of every object and then the removal of the source."""
    if isinstance(src, Url) and isinstance(dst, Url):
        fs = src.fs
        fs.invalidate_cache(src.path)
        keys = fs.find(src.path)
        if keys:
            fs.copy(keys, [dst.path + k[len(src.path):] for k in keys])
            fs.rm(keys)
        fs.invalidate_cache(src.path)
        fs.invalidate_cache(dst.path)
    elif isinstance(src, Path) and isinstance(dst, Path):
        os.replace(src, dst)
    else:
        raise TypeError(f"cannot move {src} to {dst}: one is local, one is a URL")


def tail_bytes(loc: Location, n: int) -> bytes:
    """The last `n` bytes of the file (or object) `loc`."""
    if isinstance(loc, Url):
        data = loc.fs.cat_file(loc.path)
        return data[-n:]
    with open(loc, "rb") as f:
        f.seek(0, os.SEEK_END)
        f.seek(max(0, f.tell() - n))
        return f.read()


def zarr_store(loc: Location, read_only: bool = False):
    """`loc` as a zarr store (FsspecStore for a Url, LocalStore for a folder)."""
    if isinstance(loc, Url):
        from zarr.storage import FsspecStore

        try:
            return FsspecStore.from_url(str(loc), read_only=read_only)
        except (ImportError, ValueError) as e:
            raise GsolveError(_no_backend(loc.protocol, e)) from None
    from zarr.storage import LocalStore

    return LocalStore(str(loc), read_only=read_only)


def open_group(loc: str | Location, mode: str):
    """The zarr v3 group at `loc` (mode as zarr.open_group's). Its arrays store every chunk
    written, zeros too: zarr's test for an all-fill chunk costs more than compressing one,
    and the chunk record then lists every chunk a solve wrote."""
    import zarr

    zarr.config.set({"array.write_empty_chunks": True})
    loc = location(loc)
    return zarr.open_group(store=zarr_store(loc, read_only=mode == "r"), mode=mode,
                           zarr_format=3)


def check_root(text: str) -> Location:
    """The database root a user named, checked as far as is cheap: a URL must have a
    backend installed and be reachable, with something (its bucket) there."""
    loc = location(text)
    if not isinstance(loc, Url):
        return loc
    fs = loc.fs
    try:
        up = loc.path
        while True:
            fs.invalidate_cache(up)
            if fs.exists(up):
                return loc
            if "/" not in up:
                break
            up = up.rsplit("/", 1)[0]
    except GsolveError:
        raise
    except Exception as e:  # the backend's own: connection, credentials, permissions
        raise GsolveError(f"cannot reach {loc}: {_one_line(e)}") from None
    raise GsolveError(f"cannot use {loc}: '{loc.protocol}://{up}' does not exist "
                      "(create the bucket first)")


def _no_backend(protocol: str, e: Exception) -> str:
    pkg = PACKAGES.get(protocol)
    if isinstance(e, ImportError) or pkg:
        return (f"{protocol}:// stores need {pkg or 'its fsspec backend'}"
                + (f": pip install {pkg}" if pkg else "") + f" ({_one_line(e)})")
    return f"unknown store protocol '{protocol}://' ({_one_line(e)})"


def _one_line(e: Exception) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    return text if len(text) <= 200 else text[:197] + "..."
