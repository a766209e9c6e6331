"""Run a nogil kernel over a hash range in blocks on a thread pool, summing its counts."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

_pool: ThreadPoolExecutor | None = None


def threads() -> int:
    env = os.environ.get("GSOLVE_THREADS")
    if env:
        return max(1, int(env))
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def _executor() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=threads(), thread_name_prefix="gsolve")
    return _pool


def run_blocks(kernel, first_args: tuple, lo: int, hi: int, *rest, min_block: int = 1 << 14):
    """sum(kernel(*first_args, a, b, *rest)) over blocks [a, b) that cover [lo, hi)."""
    n = hi - lo
    t = threads()
    if t == 1 or n <= min_block:
        return int(kernel(*first_args, lo, hi, *rest))
    nblocks = min(8 * t, max(1, n // min_block))
    size = -(-n // nblocks)
    bounds = [(a, min(hi, a + size)) for a in range(lo, hi, size)]
    futures = [_executor().submit(kernel, *first_args, a, b, *rest) for a, b in bounds]
    return sum(int(f.result()) for f in futures)
