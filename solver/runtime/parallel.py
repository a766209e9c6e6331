"""Run a nogil kernel over a hash range in blocks on a thread pool, summing its counts.

Kernels called from the main thread run on the pool, even with one thread: the main
thread then waits on a future, where Python runs its signal handlers, so SIGTERM and
Ctrl-C stop a solve at once (solver/command/cli.py ends the process once the solve has recorded
what it finished). A nopython call in the main thread would hold them off until it
returned: minutes, on a large tier. Only calls bounded to milliseconds run in the main
thread (`Shared`'s, and the retrograde's apply of a batch of its frontier). A wait that
is interrupted (or a call that fails) cancels the calls not yet started, so the pool does
not run a sweep's queued blocks on for seconds after a stop (a Python program's Ctrl-C;
the command itself ends the process).
"""

from __future__ import annotations

import itertools
import os
import threading
from collections import deque
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import contextmanager

_pool: ThreadPoolExecutor | None = None
_here = threading.local()  # .alone: this thread runs one of `run_apart`'s calls


def threads() -> int:
    """The threads a kernel call may spread over: 1 inside a `run_apart` call."""
    return 1 if getattr(_here, "alone", False) else _pool_size()


def _pool_size() -> int:
    from solver.runtime.env import threads_setting

    n = threads_setting()
    if n is not None:
        return n
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def executor() -> ThreadPoolExecutor:
    """The process's one pool of worker threads (threads() of them, started on first use),
    for callers that map Python functions over it (reads, far-child blocks); kernels over
    ranges go through `call`, `run_blocks` and `run_each`."""
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=_pool_size(), thread_name_prefix="gsolve")
    return _pool


@contextmanager
def _cancelled_on_exit(futures: list):
    """Cancel the futures not yet started when the block is left by an exception."""
    try:
        yield futures
    except BaseException:
        for f in futures:
            f.cancel()
        raise


def in_order(fn, calls, ahead: int):
    """fn(*args) of each args of the iterable `calls` (taken from it in the caller's
    thread, one at a time) on the pool, at most `ahead` submitted and not yet read;
    yields the results in order. Once it ends, or fails, no call still runs."""
    pending: deque = deque()
    try:
        for args in calls:
            if len(pending) >= ahead:
                yield pending.popleft().result()
            pending.append(executor().submit(fn, *args))
        while pending:
            yield pending.popleft().result()
    finally:
        for f in pending:
            f.cancel()
        wait(pending)


def run_apart(fn, calls: list[tuple]) -> list:
    """[fn(*args) for args in calls], side by side on the pool, each call on one thread:
    every kernel it runs runs in its thread (`threads()` is 1 there). For work that
    shares out poorly in small pieces (Quixo's small tiers, several at once)."""
    def alone(args):
        _here.alone = True
        try:
            return fn(*args)
        finally:
            _here.alone = False

    if len(calls) == 1 or _pool_size() == 1 or _inline():
        return [fn(*args) for args in calls]
    with _cancelled_on_exit([executor().submit(alone, args) for args in calls]) as futures:
        wait(futures)  # all ended, even when one failed: none still writes once this returns
        return [f.result() for f in futures]


def _inline() -> bool:
    """Whether a kernel call runs in the calling thread: a pool thread's (waiting on the
    pool from inside it could deadlock), never the main thread's."""
    return threading.current_thread() is not threading.main_thread()


def call(kernel, *args):
    """kernel(*args), on the pool when called from the main thread (see the module)."""
    if _inline():
        return kernel(*args)
    return executor().submit(kernel, *args).result()


def blocks(lo: int, hi: int, min_block: int = 1 << 14) -> list[tuple[int, int]]:
    """The blocks [a, b) that cover [lo, hi) for the pool: 8 per thread, or 4M slots each
    where that makes more, none under `min_block` slots."""
    n = hi - lo
    if n <= min_block:
        return [(lo, hi)]
    nblocks = min(max(8 * threads(), n // (1 << 22)), max(1, n // min_block))
    size = -(-n // nblocks)
    return [(a, min(hi, a + size)) for a in range(lo, hi, size)]


def run_each(kernel, calls: list[tuple]) -> list:
    """[kernel(*args) for args in calls], side by side on the pool."""
    if _inline() and (threads() == 1 or len(calls) == 1):
        return [kernel(*args) for args in calls]
    with _cancelled_on_exit([executor().submit(kernel, *args) for args in calls]) as futures:
        return [f.result() for f in futures]


class Shared:
    """kernel(*args) for each of `calls`, started at once on threads() - 1 pool threads,
    each taking the next call not yet taken; `join` has the calling thread take calls too,
    then waits for the rest. Meanwhile the caller may do other work on the core the
    helpers leave it. For short calls only (milliseconds): signals wait for those the
    main thread takes."""

    def __init__(self, kernel, calls: list[tuple]):
        self.kernel, self.calls = kernel, calls
        self.taken = itertools.count()
        helpers = 0 if _inline() else min(threads(), len(calls)) - 1
        self.futures = [executor().submit(self._take) for _ in range(helpers)]

    def _take(self) -> None:
        while (i := next(self.taken)) < len(self.calls):
            self.kernel(*self.calls[i])

    def join(self) -> None:
        with _cancelled_on_exit(self.futures):
            self._take()
            for f in self.futures:
                f.result()


def run_blocks(kernel, first_args: tuple, lo: int, hi: int, *rest,
               min_block: int = 1 << 14, progress=None, descending: bool = False):
    """sum(kernel(*first_args, a, b, *rest)) over blocks [a, b) that cover [lo, hi), started
    from the top block down when `descending`.

    `progress.fraction(x)` hears how much of the range is done, when given."""
    if hi - lo <= min_block:
        return int(call(kernel, *first_args, lo, hi, *rest))
    bounds = blocks(lo, hi, min_block)
    if descending:
        bounds.reverse()
    if threads() == 1 and _inline():
        total = 0
        for i, (a, b) in enumerate(bounds):
            total += int(kernel(*first_args, a, b, *rest))
            if progress is not None:
                progress.fraction((i + 1) / len(bounds))
        return total
    futures = [executor().submit(kernel, *first_args, a, b, *rest) for a, b in bounds]
    total = 0
    with _cancelled_on_exit(futures):
        for i, f in enumerate(futures):
            total += int(f.result())
            if progress is not None:
                progress.fraction((i + 1) / len(futures))
    return total
