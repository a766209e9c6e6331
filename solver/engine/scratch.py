"""A paged task's scratch: its arrays as flat files in $GSOLVE_SCRATCH (default: the
system's temporary folder), one folder per task, and the parts of a range held in memory
one at a time (engine/paged.py). A killed run's folder is removed
by the next paged task that finds its process gone."""

from __future__ import annotations

import os
import shutil
import tempfile

import numpy as np

from solver.engine.task import Task
from solver.storage import chunks


class Scratch:
    """A task's scratch folder: named arrays as flat files, read and written in ranges
    (their writes are fault points, as the store's chunk writes: storage/chunks.py)."""

    def __init__(self, task: Task):
        root = os.environ.get("GSOLVE_SCRATCH") or tempfile.gettempdir()
        os.makedirs(root, exist_ok=True)
        remove_orphans(root, "gsolve-paged-")
        self.path = tempfile.mkdtemp(prefix=f"gsolve-paged-{os.getpid()}-t{task.index}-",
                                     dir=root)
        self.files: dict[str, int] = {}
        self.ends: dict[str, int] = {}

    def fd(self, name: str) -> int:
        fd = self.files.get(name)
        if fd is None:
            fd = self.files[name] = os.open(os.path.join(self.path, name),
                                            os.O_RDWR | os.O_CREAT, 0o600)
            self.ends[name] = 0
        return fd

    def read(self, name: str, at: int, out: np.ndarray) -> None:
        fd, view, off = self.fd(name), memoryview(out).cast("B"), at * out.itemsize
        while view:
            got = os.preadv(fd, [view], off)
            if got <= 0:
                raise OSError(f"scratch file {name} of {self.path} is short")
            view, off = view[got:], off + got

    def write(self, name: str, at: int, data: np.ndarray) -> None:
        try:
            self._write(name, at, data)
        except OSError as e:  # say which disk: the scratch may not be the store's
            raise OSError(e.errno, f"{e.strerror} (a paged task's scratch, on "
                          "$GSOLVE_SCRATCH's disk)", self.path) from None

    def _write(self, name: str, at: int, data: np.ndarray) -> None:
        fd, view = self.fd(name), memoryview(np.ascontiguousarray(data)).cast("B")
        off = at * data.itemsize
        self.ends[name] = max(self.ends[name], off + len(view))
        hook = chunks.fault_hook  # tests break a write here (storage/chunks.py)
        if hook is not None:
            os.lseek(fd, off, os.SEEK_SET)
            rest = hook("write", fd, view)
            off += len(view) - len(rest)
            view = rest
        while view:
            n = os.pwrite(fd, view, off)
            view, off = view[n:], off + n

    def size(self, name: str) -> int:
        """Bytes written to a file (0: none)."""
        return self.ends.get(name, 0)

    def append(self, name: str, data: np.ndarray) -> None:
        self.fd(name)
        self.write(name, self.ends[name] // data.itemsize, data)

    def drop(self, name: str) -> None:
        fd = self.files.pop(name, None)
        self.ends.pop(name, None)
        if fd is not None:
            os.close(fd)
        try:
            os.remove(os.path.join(self.path, name))
        except FileNotFoundError:
            pass

    def close(self) -> None:
        for fd in self.files.values():
            os.close(fd)
        self.files.clear()
        shutil.rmtree(self.path, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def remove_orphans(root: str, prefix: str) -> None:
    """Scratch folders `<prefix><pid>-...` under `root` whose process is gone (killed runs:
    paged tasks, verifies)."""
    for name in os.listdir(root):
        if not name.startswith(prefix):
            continue
        try:
            pid = int(name.split("-")[2])
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)
        except (ValueError, IndexError, PermissionError):
            pass


class Parts:
    """The parts [lo + j * size, ...) of a range, one held in memory at a time: a part's
    named arrays (in scratch files, at the part's offset there plus `at`), read when the
    part is taken and written back when another is taken or at `flush`."""

    def __init__(self, sc: Scratch, lo: int, hi: int, size: int, arrays: dict,
                 unchanged: tuple = ()):
        self.sc, self.lo, self.hi, self.size = sc, lo, hi, size
        self.arrays = arrays  # name -> (buffer, file name, file offset of lo)
        self.unchanged = unchanged  # arrays only read: never written back
        self.n = max(1, -(-(hi - lo) // size))
        self.held = -1

    def bounds(self, j: int) -> tuple[int, int]:
        return self.lo + j * self.size, min(self.hi, self.lo + (j + 1) * self.size)

    def take(self, j: int, fresh: tuple = ()) -> dict:
        """Part j's arrays (views of its length); those named in `fresh` are zeroed, not read."""
        a, b = self.bounds(j)
        if self.held != j:
            self.flush()
            for name, (buf, fname, at) in self.arrays.items():
                if name not in fresh:
                    self.sc.read(fname, at + a - self.lo, buf[:b - a])
            self.held = j
        for name in fresh:
            self.arrays[name][0][:b - a] = 0
        return {name: buf[:b - a] for name, (buf, _, _) in self.arrays.items()}

    def flush(self) -> None:
        """Write the held part back; the next `take` reads afresh."""
        if self.held >= 0:
            a, b = self.bounds(self.held)
            for name, (buf, fname, at) in self.arrays.items():
                if name not in self.unchanged:
                    self.sc.write(fname, at + a - self.lo, buf[:b - a])
        self.held = -1
