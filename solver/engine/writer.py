"""The background writer of a single-process tiered solve (engine/local.py): store writes
on one thread, in order, so that compressing them overlaps the next task's kernels."""

from __future__ import annotations

import numpy as np


class Writer:
    """Store writes of a single-process solve on one background thread, in order, so that
    compressing them overlaps the next task's kernels. It knows which chunks have writes
    queued, so a read waits only for those.

    A task is recorded finished by a job queued after its writes (`record`), so a killed
    solve never claims an unwritten task; and the first write that fails ends the queue:
    no job after it runs, so no task whose bytes did not reach the store is recorded, and
    the error is raised to the solve at its next submit or wait (a full disk stops the
    solve at once, resumable from the tasks before it).

    A queued write holds its caller's arrays until it runs, so the queue is bounded by
    their bytes (`capacity`, the share of the budget the manager gives it) as well as by
    `depth` jobs; one job is always let in, however large."""

    def __init__(self, depth: int = 8, capacity: int = 1 << 62):
        from collections import deque
        from concurrent.futures import ThreadPoolExecutor

        self.pool = ThreadPoolExecutor(1, thread_name_prefix="gsolve-write")
        self.pending: deque = deque()
        self.depth, self.capacity, self.held = depth, capacity, 0
        self.queued: dict = {}  # (array name, chunk) -> writes queued
        self.error: BaseException | None = None  # the first failure: nothing runs after

    def _run(self, fn, args):
        if self.error is not None:
            return None
        try:
            return fn(*args)
        except BaseException as e:
            self.error = e
            raise

    def submit(self, fn, *args, keys=(), then=None) -> None:
        """Queue fn(*args), a write of the chunks `keys`; then(its result) is called in
        this thread once it is done (it is when no write of them is held)."""
        if self.error is not None:
            raise self.error
        size = sum(a.nbytes for a in args if isinstance(a, np.ndarray))
        while self.pending and (len(self.pending) >= self.depth
                                or self.held + size > self.capacity):
            self._finish(*self.pending.popleft())
        for k in keys:
            self.queued[k] = self.queued.get(k, 0) + 1
        self.held += size
        self.pending.append((self.pool.submit(self._run, fn, args), keys, size, then))

    def holds(self, key) -> bool:
        """Whether a write of chunk `key` is queued or running (the finished ones let go
        first)."""
        while self.pending and self.pending[0][0].done():
            self._finish(*self.pending.popleft())
        return key in self.queued

    def _finish(self, future, keys, size, then) -> None:
        self.held -= size
        try:
            result = future.result()
        finally:
            for k in keys:
                left = self.queued.pop(k) - 1
                if left:
                    self.queued[k] = left
        if self.error is not None:  # an earlier job failed: this one was skipped
            raise self.error
        if then is not None:
            then(result)

    def wait(self, keys=None) -> None:
        """Every queued write done (raising the first error, if any), or only until none
        of `keys` has one queued."""
        while self.pending and (keys is None or any(k in self.queued for k in keys)):
            self._finish(*self.pending.popleft())

    def close(self) -> None:
        try:
            self.wait()
        finally:
            self.pool.shutdown()
