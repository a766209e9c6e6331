"""A tiered solve's tasks run in this process (solver/engine/manager.py runs them here
unless a cluster is asked for): parents first, then children first, through a chunk cache
and a background writer.

The chunk cache holds the store chunks a task reads again soon: its own pending reach
bytes and its child ranges, without going through the store. The writer runs the store
writes on one thread, in order, so that compressing them overlaps the next task; a task is
recorded finished by a job queued after its writes. A reach chunk raised by a run of
consecutive tasks is written once, when the run ends (cached_array.py)."""

from __future__ import annotations

import time

import numpy as np

from games.base import Game
from solver.engine import borrowing, memory, worker
from solver.engine import window as windowed
from solver.engine.cached_array import CachedGroup
from solver.engine.chunk_cache import ChunkCache
from solver.engine.memory import Strategy
from solver.engine.plan import Plan
from solver.engine.task import REACHED, expand, needs, outside, window
from solver.engine.writer import Writer
from solver.runtime.progress import Progress, TaskEta
from solver.storage.writing import PartialStore

QUEUE = 256 << 20  # the most bytes of writes queued behind a single-process solve
# the most writes queued: enough that a task's pushes (hundreds of chunks) wait for the
# writer only when QUEUE bytes are, and it writes them on while the next task's kernels run
QUEUE_JOBS = 1024

# Called as hook(tier, lo, hi) after each piece of a solve task run in this process is
# recorded: tests install a pause here to stop a solve midway (tests/hooked.py). The solve
# runs the same with or without one.
piece_hooks: list = []


def run_local(game: Game, store: PartialStore, p: Plan, record,
              progress: Progress, limit: int, cache_bytes: int, run: dict | None,
               donor=None, strategy: Strategy | None = None) -> None:
    """Run plan `p`'s unfinished tasks into `store`, each recorded in `record` (the
    manager's Record) once its writes are in the store; `cache_bytes` what the budget leaves
    beside the largest task."""
    # what the budget leaves beside the largest task: a quarter (up to QUEUE) for the
    # writes queued behind the solve, the rest for the chunk cache
    queue = min(QUEUE, max(0, cache_bytes) // 4)
    cache = ChunkCache(cache_bytes - queue)
    writer = Writer(depth=QUEUE_JOBS, capacity=queue)
    group = CachedGroup(store.group, cache, writer, fresh=not store.resumed)
    try:
        _run_tasks(game, group, cache, writer, p, record, progress, limit,
                   {} if run is None else run, donor, strategy)
    finally:
        writer.close()


def _run_tasks(game, group, cache, writer, p, record, progress, limit, run,
               donor=None, strategy: Strategy | None = None) -> None:
    chunk = group.group[REACHED].chunks[0]
    reached = group[REACHED]
    n = len(p.tasks)
    eta = TaskEta(p.tasks, record, {i for i, t in enumerate(p.tasks)
                                    if donor is not None and donor.holds(t.a, t.b)})
    progress.left_of_plan(eta.left / eta.total)  # resumed, or borrowing: a part is left
    run["share"] = 0.0
    spare = windowed.Spare()  # one window's bytes, kept from task to task
    # the cache was sized beside the plan's largest task; a reach window kept larger (the
    # plan counts a task that fits at full speed by its far children: Connect-4 6x6 kept a
    # 7.95 GiB window beside a 23 MiB plan and peaked at 16.75 GiB under --memory 16), or
    # a solve task whose measured child ranges make it larger (6x6: 653 M child slots read
    # by a 17 M slot task), takes its excess from the cache while it is held
    beside, largest = cache.capacity, p.largest
    for phase, order in (("reach", p.run_order[::-1]), ("solve", p.run_order)):
        t0, found = time.perf_counter(), 0
        if phase == "solve":
            reached.flush()
            spare.drop()
            reads = _count_readers(group, cache, p, record, chunk)
        for step, i in enumerate(order):
            if i in record.done[phase]:
                continue
            task = p.tasks[i]
            donated = False  # its records taken from the donor
            if phase == "reach":
                held = _window_held(spare, game, task, limit, strategy)
                cache.resize(beside - max(0, held - largest))
                found += worker.reach(game, group, task, limit=limit, strategy=strategy,
                                      spare=spare)
                # its solve reads these bytes once, long after: the store serves that, and
                # the cache keeps the values parents read soon (C4 5x5: 580 -> 466 MiB)
                cache.drop_range(REACHED, chunk, task.a, task.b)
            else:
                def piece(t, lo, hi):
                    record.piece(t, lo, hi)
                    for hook in piece_hooks:
                        hook(t, lo, hi)

                segments = needs(group, task)
                mode = worker.choose(game, task, limit, segments, strategy)
                need = mode.bytes + worker.solve_held(game, task, segments, mode, spare)
                cache.resize(beside - max(0, need - largest))
                tally = np.zeros(9, np.int64)
                got = None if donor is None else borrowing.borrow(game, group, task, donor,
                                                                  tally=tally)
                if got is None:
                    got = worker.solve(game, group, task, piece, limit=limit,
                                       tally=tally, strategy=strategy, spare=spare)
                else:
                    record.borrowed(donor.path)
                    donated = True
                    for t, lo, hi, _ in task.pieces:
                        piece(t, lo, hi)
                found += got
                cache.drop_range(REACHED, chunk, task.a, task.b)  # read once, by this solve
                left = cache.readers["value"]  # remoteness shares it
                left[reads[i]] -= 1  # values no later solve reads are dropped
                for c in reads[i][left[reads[i]] == 0].tolist():
                    cache.drop(("value", c))
                    cache.drop(("remoteness", c))
            # recorded once its queued writes are in the store
            if phase == "reach":
                reached.settle(lambda i=i: writer.submit(record.task, "reach", i, None))
            else:
                writer.submit(record.task, phase, i, tally.tolist())
            progress.update(phase, step + 1, _rate(step + 1, n, found, t0))
            progress.remaining(*eta.done(phase, i, donated))
            run["share"] = eta.did / eta.total


def _window_held(spare: windowed.Spare, game: Game, task, limit: int, forced) -> int:
    """The bytes `spare` holds once `task`'s reach has run (worker.reach keeps it for a
    window, drops it for the other modes)."""
    if worker.choose(game, task, limit, forced=forced).reach != memory.WINDOW:
        return 0
    return spare.held(window(task)[4])


def _count_readers(group, cache: ChunkCache, p: Plan, record, chunk: int) -> dict:
    """The value chunks each unsolved task's solve reads outside its own range (the parts
    `task.load_records` reads), counted per chunk into the cache, one count for value and
    remoteness: a chunk is kept from its write (or first read) to its last reader, and one
    no later task reads is never kept. Quixo's tasks hold most of their children, so its
    cache holds 0.34x the hash at most instead of every task's values until its parents
    are solved."""
    count = np.zeros(-(-group.group["value"].shape[0] // chunk), np.int32)
    reads: dict[int, np.ndarray] = {}
    for i, task in enumerate(p.tasks):
        if i in record.done["solve"]:
            continue
        parts = np.array([(x, y) for _, x, y in outside(task, needs(group, task))],
                         np.int64).reshape(-1, 2)
        first, last = parts[:, 0] // chunk, (parts[:, 1] - 1) // chunk
        reads[i] = np.unique(expand(first, last - first + 1)).astype(np.int32)
        count[reads[i]] += 1
    for name in ("value", "remoteness"):
        cache.readers[name] = count
        for key in [k for k in cache.data if k[0] == name and not cache.wanted(k)]:
            cache.drop(key)
    return reads


def _rate(done: int, n: int, positions: int, t0: float) -> str:
    dt = time.perf_counter() - t0
    speed = positions / dt if dt > 0 else 0.0
    return f"{done}/{n} tasks, {speed:,.0f} positions/s"
