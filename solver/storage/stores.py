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

One writer per game variant: a lock file beside the variant's database folder.

Every solve holds `<root>/<game>/<variant key>.lock` for its whole run, whatever the
method (the tiered solve's resumable `<key>.partial` included). It is a `filelock` lock
(an flock, which the kernel drops when the process dies, so a killed solve never leaves
a lock behind). The holder writes its pid into the file, so a refused solve can name it,
and removes the file on leaving when nothing of the database is beside it (`release`).
While holding the lock a solve removes what dead writers left: `<key>.partial-<pid>`
folders, and `<key>.old-<pid>` (a swap cut short between its two renames: the old
database goes back in place if nothing replaced it).

A store URL has no lock files of its own: its lock is a file on this
machine, under ~/.cache/gsolve/locks, named by the URL. So it keeps out a second solve
from this machine only; across machines, the chunks of a cluster solve are protected by
the Dask cluster's locks (distributed.MultiLock, solver/engine/cluster.py), and two clients
must not solve the same variant into one store at once.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from games.base import GsolveError
from hashing.numba_cache import cache_base

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


# -- one writer per variant

def lock_path(path: Location) -> Path:
    if is_url(path):
        import hashlib

        digest = hashlib.sha256(str(path).encode()).hexdigest()[:16]
        return cache_base() / "locks" / f"{path.name}-{digest}.lock"
    return path.with_name(f"{path.name}.lock")


def pid_alive(pid: int) -> bool:
    """Whether process `pid` exists and is not a zombie (a killed child not yet reaped)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def running_writer(path: Path) -> int | None:
    """The pid of a live solve of the database at `path` (from the lock file), if any."""
    try:
        text = lock_path(path).read_text().strip()
    except OSError:
        return None
    if text.isdigit() and int(text) != os.getpid() and pid_alive(int(text)):
        return int(text)
    return None


def holder(path: Path) -> str:
    """Who holds the lock of the database at `path`: 'pid N (command)', as far as known."""
    try:
        text = lock_path(path).read_text().strip()
    except OSError:
        text = ""
    if not text.isdigit():
        return "another process"
    pid = int(text)
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            args = [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
        if len(args) > 1 and Path(args[0]).name.startswith("python"):
            args = args[1:]  # the interpreter of a script or of `-m solver`
            if args[:2] == ["-m", "solver"]:
                args = ["gsolve", *args[2:]]
        cmd = " ".join(Path(a).name if i == 0 else a for i, a in enumerate(args))
        if len(cmd) > 80:
            cmd = cmd[:77] + "..."
        return f"pid {pid} ({cmd})" if cmd else f"pid {pid}"
    except OSError:
        return f"pid {pid}"


def remove_stale(path: Path) -> list[Path]:
    """Remove the leftovers of dead writers of the database at `path` (call with the lock
    held). Returns what was removed or put back."""
    done = []
    names = listdir(path.parent)
    for kind in ("old", "partial"):
        for name in sorted(x for x in names if x.startswith(f"{path.name}.{kind}-")):
            p = path.with_name(name)
            pid = name.rsplit("-", 1)[-1]
            if not pid.isdigit() or (int(pid) != os.getpid() and pid_alive(int(pid))):
                continue
            if kind == "old" and not path.exists() and (p / "zarr.json").exists():
                move(p, path)
            else:
                remove(p)
            done.append(p)
    return done


@contextmanager
def writer_lock(path: Path, what: str, wait: bool = False,
                waiting: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the one-writer lock of the database at `path` (`what` names it in messages).

    Taken: a GsolveError naming the holder, or with `wait`, block until it is free
    (`waiting` hears who is waited for). A local place this process cannot write to
    (`_unwritable`) is entered without the lock: nothing it does there can write, and
    reading a solved database needs none. On leaving, the lock file goes when nothing of
    its database is beside it (`release`), and so do the folders this call made for it."""
    made = _missing_folders(path)
    lock, held = None, False
    for attempt in range(3):  # (another run may remove an empty folder meanwhile)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            lock_path(path).parent.mkdir(parents=True, exist_ok=True)
            lock = FileLock(str(lock_path(path)), thread_local=False)
        except OSError as e:
            _remove_folders(made)
            raise GsolveError(f"cannot create the database folder {path.parent}: "
                              f"{e.strerror or e}") from None
        try:
            lock.acquire(blocking=False)
            held = True
        except Timeout:
            who = holder(path)
            if not wait:
                raise GsolveError(f"{what} is being solved by {who} into {path}: wait for "
                                  "it to finish, or rerun with --wait") from None
            if waiting is not None:
                waiting(who)
            lock.acquire()
            held = True
        except FileNotFoundError:
            if attempt < 2:
                continue
            raise GsolveError(f"cannot lock {lock_path(path)}: its folder went away") from None
        except OSError as e:
            if not _unwritable(path, e):
                _remove_folders(made)
                raise GsolveError(f"cannot lock {lock_path(path)}: {e.strerror or e}") from None
        break
    if not held:
        yield
        return
    try:
        _write(lock_path(path), str(os.getpid()))
        remove_stale(path)
        yield
    finally:
        _write(lock_path(path), "")
        release(lock, path)
        _remove_folders(made)


def release(lock: FileLock, path: Location) -> None:
    """Release the held lock of the database at `path`, first removing its file when
    nothing of the database is beside it: it guarded nothing (a refused run, a cleaned
    variant). Removed while held, so a waiter's flock lands on the removed file, which
    filelock notices and opens the path again."""
    if not _guarded(path):
        with contextlib.suppress(OSError):
            lock_path(path).unlink()
    lock.release()


def _unwritable(path: Location, e: OSError) -> bool:
    """Whether the lock failed because this process can write nothing where the database
    is: a read-only disk, or a folder it may not write to (and no resumable solve inside,
    whose own folder it might still write into)."""
    if is_url(path):  # the lock is this machine's, not the store's
        return False
    if e.errno == errno.EROFS:
        return True
    return (e.errno in (errno.EACCES, errno.EPERM) and not os.access(path.parent, os.W_OK)
            and not path.with_name(f"{path.name}.partial").exists())


def _guarded(path: Location) -> bool:
    """Whether anything of the database at `path` is there beside its lock file: the
    database, a resumable solve, a writer's leftovers (or it cannot be listed)."""
    try:
        names = listdir(path.parent)
    except OSError:
        return True
    mine = lock_path(path).name if not is_url(path) else None
    return any(n == path.name or (n.startswith(f"{path.name}.") and n != mine)
               for n in names)


def _missing_folders(path: Location) -> list[Path]:
    """The folders a lock of the database at `path` would make, deepest first."""
    if is_url(path):
        return []
    out, up = [], path.parent
    while not up.exists() and up != up.parent:
        out.append(up)
        up = up.parent
    return out


def _remove_folders(folders: list[Path]) -> None:
    """Remove these folders, deepest first, while they are empty."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return


def _write(file: Path, text: str) -> None:
    try:
        with open(file, "r+") as f:
            f.truncate(0)
            f.write(text)
    except OSError:
        pass
