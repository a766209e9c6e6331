"""One writer per game variant: a lock file beside the variant's database folder.

Every solve holds `<root>/<game>/<variant key>.lock` for its whole run, whatever the
method (the tiered solve's resumable `<key>.partial` included). It is a `filelock` lock
(an flock, which the kernel drops when the process dies, so a killed solve never leaves
a lock behind). The holder writes its pid into the file, so a refused solve can name it,
and removes the file on leaving when nothing of the database is beside it (`release`).
While holding the lock a solve removes what dead writers left: `<key>.partial-<pid>`
folders, and `<key>.old-<pid>` (a swap cut short between its two renames: the old
database goes back in place if nothing replaced it).

A store URL (solver/storage/stores.py) has no lock files of its own: its lock is a file on this
machine, under ~/.cache/gsolve/locks, named by the URL. So it keeps out a second solve
from this machine only; across machines, the chunks of a cluster solve are protected by
the Dask cluster's locks (distributed.MultiLock, solver/engine/cluster.py), and two clients
must not solve the same variant into one store at once.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from games.base import GsolveError
from solver.storage import stores


def lock_path(path: stores.Location) -> Path:
    if stores.is_url(path):
        import hashlib

        base = os.environ.get("GSOLVE_CACHE") or Path(
            os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gsolve"
        digest = hashlib.sha256(str(path).encode()).hexdigest()[:16]
        return Path(base) / "locks" / f"{path.name}-{digest}.lock"
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
    names = stores.listdir(path.parent)
    for kind in ("old", "partial"):
        for name in sorted(x for x in names if x.startswith(f"{path.name}.{kind}-")):
            p = path.with_name(name)
            pid = name.rsplit("-", 1)[-1]
            if not pid.isdigit() or (int(pid) != os.getpid() and pid_alive(int(pid))):
                continue
            if kind == "old" and not path.exists() and (p / "zarr.json").exists():
                stores.move(p, path)
            else:
                stores.remove(p)
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


def release(lock: FileLock, path: stores.Location) -> None:
    """Release the held lock of the database at `path`, first removing its file when
    nothing of the database is beside it: it guarded nothing (a refused run, a cleaned
    variant). Removed while held, so a waiter's flock lands on the removed file, which
    filelock notices and opens the path again."""
    if not _guarded(path):
        with contextlib.suppress(OSError):
            lock_path(path).unlink()
    lock.release()


def _unwritable(path: stores.Location, e: OSError) -> bool:
    """Whether the lock failed because this process can write nothing where the database
    is: a read-only disk, or a folder it may not write to (and no resumable solve inside,
    whose own folder it might still write into)."""
    if stores.is_url(path):  # the lock is this machine's, not the store's
        return False
    if e.errno == errno.EROFS:
        return True
    return (e.errno in (errno.EACCES, errno.EPERM) and not os.access(path.parent, os.W_OK)
            and not path.with_name(f"{path.name}.partial").exists())


def _guarded(path: stores.Location) -> bool:
    """Whether anything of the database at `path` is there beside its lock file: the
    database, a resumable solve, a writer's leftovers (or it cannot be listed)."""
    try:
        names = stores.listdir(path.parent)
    except OSError:
        return True
    mine = lock_path(path).name if not stores.is_url(path) else None
    return any(n == path.name or (n.startswith(f"{path.name}.") and n != mine)
               for n in names)


def _missing_folders(path: stores.Location) -> list[Path]:
    """The folders a lock of the database at `path` would make, deepest first."""
    if stores.is_url(path):
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
