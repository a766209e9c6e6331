"""The tier manager: runs a tiered solve's tasks in order (solver/engine/plan.py cuts them),
locally or on a Dask cluster (solver/engine/cluster.py), within a memory budget, and resumes
them: each finished task is recorded in the store (solver/engine/record.py), so an
interrupted solve resumes at the first unfinished task and a finished one never runs
again.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from games.base import VALUE_WORDS, Game, GsolveError, shown_remoteness
from solver.engine import borrowing, worker
from solver.engine.chunk_cache import CachedGroup, ChunkCache
from solver.engine.memory import Strategy, default_budget
from solver.engine.plan import BASE, GIB, LOCAL_TASK, MAX_TASK, Plan, plan
from solver.engine.record import Record
from solver.engine.task import REACHED, needs, outside
from solver.engine.worker import peak_rss
from solver.engine.writer import Writer
from solver.kernels.records import LOSE, TIE, WIN
from solver.runtime.parallel import threads
from solver.runtime.progress import Progress
from solver.storage.database import (
    CHUNK,
    command,
    create_array,
    partial_path,
    remoteness_dtype,
)
from solver.storage.writing import PartialStore


# -- memory -------------------------------------------------------------------------------
def check_budget(game: Game, p: Plan, budget: int, workers: int) -> None:
    need = p.largest * workers + BASE * max(1, workers)
    if need > budget:
        raise GsolveError(
            f"{game.describe()} needs at least {need / GIB:,.2f} GiB for a tiered solve "
            f"(its largest task holds {p.largest / GIB:,.2f} GiB"
            + (f", {workers} workers at once" if workers > 1 else "")
            + f"), more than the budget of {budget / GIB:,.2f} GiB: raise --memory")


def paged_note(game: Game, p: Plan, progress: Progress) -> None:
    """Say so when tasks will run a part at a time (engine/solve_paged.py), and what it costs."""
    slow = p.slowdown()
    if slow > 1.0:
        progress.note(f"{game.describe()}: the largest tasks run a part at a time within "
                      f"{p.limit / GIB:,.2f} GiB a task, about {slow:.1f} times the time "
                      "at full speed; more --memory runs them faster")


# -- running ------------------------------------------------------------------------------
QUEUE = 256 << 20  # the most bytes of writes queued behind a single-process solve

# Called as hook(tier, lo, hi) after each piece of a solve task run in this process is
# recorded: tests install a pause here to stop a solve midway (tests/hooked.py). The solve
# runs the same with or without one.
piece_hooks: list = []


def on_cluster(workers: int = 0, scheduler: str | None = None) -> bool:
    """Whether a tiered solve with these options runs its tasks on a Dask cluster."""
    return workers > 1 or scheduler is not None


def solve_into(game: Game, path: Path, progress: Progress | None = None, fresh: bool = False,
               memory: int | None = None, workers: int = 0, scheduler: str | None = None,
               max_task: int | None = None, run: dict | None = None,
               borrow: str | None = None, check=None,
               strategy: Strategy | None = None) -> dict:
    """Solve tier by tier into the database at `path` (resuming a partial one), holding at
    most `memory` bytes (default: most of what is available). With `workers` or a
    `scheduler`, the tasks run on a Dask cluster (solver/engine/cluster.py), cut smaller so that
    tiers of one stage run side by side. `run["share"]`, when given, follows the share of
    the whole solve's work this call has done (in this process: what a resumed or stopped
    solve measured of this machine's speed). `borrow`: a store of the same game whose
    records a task takes where it holds all of the task's reached positions
    (solver/engine/borrowing.py). `check(group, summary)`: run on the finished arrays before
    the store is marked complete (PartialStore.finish); what it raises leaves it unfinished.
    `strategy`: the modes every task runs in, in this process (tests: memory.Strategy)."""
    progress = progress or Progress()
    budget = memory or default_budget()
    per_task = (budget - BASE * max(1, workers)) // max(1, workers)
    if not on_cluster(workers, scheduler):
        return _solve_into(game, path, progress, fresh, budget, per_task, max_task,
                           run=run, borrow=borrow, check=check, strategy=strategy)
    if borrow:
        raise GsolveError("--borrow runs on this machine only: leave out --workers and "
                          "--scheduler")
    from solver.engine.cluster import Cluster

    nodes = Cluster(game, workers, scheduler, per_task * max(1, workers))
    try:
        summary = _solve_into(game, path, progress, fresh, budget, per_task, max_task,
                              workers, nodes, check=check)
    except BaseException:  # a stop or an error: what finished is recorded; don't wait
        nodes.kill()
        nodes.close(wait=False)
        raise
    nodes.close()
    return summary


def _solve_into(game: Game, path: Path, progress: Progress, fresh: bool, budget: int,
                per_task: int, max_task: int | None, workers: int = 0, nodes=None,
                run: dict | None = None, borrow: str | None = None, check=None,
                strategy: Strategy | None = None) -> dict:
    """`solve_into` in this process, or on the cluster `nodes` (started by the caller)."""
    cluster = nodes is not None

    def planned(cuts, chunk):
        most = max_task
        if most is None and cluster:
            most = min(MAX_TASK, max(chunk, game.hash_size // (16 * max(2, workers))))
        p = plan(game, max(1, per_task), cuts, chunk, most, max(2, workers) if cluster else 1)
        check_budget(game, p, budget, max(1, workers))
        return p

    donor = borrowing.Donor(game, borrow) if borrow else None  # checked before any write
    # a new store is made only for a plan within the budget: a refusal leaves nothing
    p = planned(None, CHUNK) if fresh or not (partial_path(path) / "zarr.json").exists() else None
    store = PartialStore(path, game, "tiers", remoteness_dtype(game.max_remoteness), fresh)
    attrs = store.attrs
    cuts = attrs.get("task_cuts") if store.resumed else None
    chunk = store.value.chunks[0]
    if p is None or store.resumed or chunk != CHUNK:
        p = planned(cuts, chunk)
    if REACHED not in store.group:
        create_array(store.group, REACHED, (game.hash_size,), np.uint8, chunk=chunk,
                     scratch=True)
    if cuts is None:
        store.set_attrs(task_cuts=p.cuts)
    record = Record(store, p, p.tiers)
    if store.resumed:
        _recheck(store, p, record)
    paged_note(game, p, progress)
    t0 = time.perf_counter()
    try:
        if cluster:
            from solver.engine.cluster import run_plan

            _reach_while_starting(game, store, p, record, nodes, per_task)
            worker_peak = run_plan(game, str(store.path), p, record, progress, nodes,
                                   per_task)
        else:
            worker_peak = 0
            _run_local(game, store, p, record, progress, per_task,
                       budget - BASE - p.largest, run, donor, strategy)
    except OSError as e:  # a full or failing disk: say that the work done is kept
        raise GsolveError(
            f"{e.strerror or e} writing {e.filename or store.path}: the tasks finished "
            f"before it are kept; make room (or mend the disk) and rerun "
            f"`gsolve {command(game, path)}` to resume") from None
    finally:
        record.flush()  # an interrupted solve keeps every task it finished
        if cluster:
            nodes.close(wait=False)  # while the store is finished
    summary = _summarize(game, store, len(p.tiers), len(p.tasks), record)
    summary["peak_memory_bytes"] = max(peak_rss(), worker_peak)
    summary["threads"] = threads() if not cluster else max(1, workers) * max(
        1, threads() // max(1, workers))
    summary["tier_seconds"] = round(time.perf_counter() - t0, 3)
    summary["runs"] = record.runs
    summary["wall_seconds_all_runs"] = round(sum(r["wall_seconds"] for r in record.runs), 1)
    summary["cpu_seconds_all_runs"] = round(sum(r["cpu_seconds"] for r in record.runs), 1)
    summary["peak_memory_bytes_all_runs"] = max(
        summary["peak_memory_bytes"], *(r["peak_bytes"] for r in record.runs))
    if cluster:
        summary["worker_task_seconds"] = round(getattr(record, "busy", 0.0), 3)
    store.finish(summary, drop=(REACHED, *(f"needs-{i}" for i in range(len(p.tasks)))),
                 check=check)
    return summary


def _recheck(store: PartialStore, p: Plan, record: Record) -> None:
    """Before a resume trusts the tasks recorded last, read their chunks back (present,
    checksums good). A solve task whose chunks fail runs again (it starts from what its
    children and reach bytes left); damaged reach bytes hold marks that only the parent
    tasks' pushes made, so the resume is refused instead."""
    from solver.storage.chunkio import ChunkGroup

    group = ChunkGroup(store.group, (REACHED, "value", "remoteness"))
    for phase, i in record.recent:
        if i >= len(p.tasks) or i not in record.done[phase] or (
                phase == "reach" and i in record.done["solve"]):  # its bytes are spent
            continue
        task = p.tasks[i]
        for name in (REACHED,) if phase == "reach" else ("value", "remoteness"):
            arr = group[name]
            for c in range(task.a // arr.chunk, (task.b - 1) // arr.chunk + 1):
                what = arr.damage(c)
                if what is None:
                    continue
                if phase == "reach":
                    raise store.damaged(GsolveError(f"chunk {c} of {name} is {what}"))
                record.done["solve"].discard(i)
                record.tally.pop(i, None)
                break


def _reach_while_starting(game: Game, store: PartialStore, p: Plan, record: Record,
                          nodes, limit: int) -> None:
    """Reach tasks run here, parents first, until the cluster is up: a LocalCluster takes
    1.5-2 s to start its processes and load the game's kernels, time in which this
    process is otherwise idle. No worker writes yet, so no cluster lock is needed. Only
    tasks of up to LOCAL_TASK slots (a fraction of a second each), so a started cluster
    never waits long for the last of them."""
    for i in p.run_order[::-1]:
        if nodes.ready() or p.tasks[i].size > LOCAL_TASK:
            return
        if i not in record.done["reach"]:
            worker.run_task("reach", game, store.group, p.tasks[i], limit)
            record.task("reach", i)


def _run_local(game: Game, store: PartialStore, p: Plan, record: Record,
               progress: Progress, limit: int, cache_bytes: int, run: dict | None,
               donor=None, strategy: Strategy | None = None) -> None:
    # what the budget leaves beside the largest task: a quarter (up to QUEUE) for the
    # writes queued behind the solve, the rest for the chunk cache
    queue = min(QUEUE, max(0, cache_bytes) // 4)
    cache = ChunkCache(cache_bytes - queue)
    writer = Writer(capacity=queue)
    group = CachedGroup(store.group, cache, writer, fresh=not store.resumed)
    try:
        _run_tasks(game, group, cache, writer, p, record, progress, limit,
                   {} if run is None else run, donor, strategy)
    finally:
        writer.close()


def _run_tasks(game, group, cache, writer, p, record, progress, limit, run,
               donor=None, strategy: Strategy | None = None) -> None:
    chunk = group.group[REACHED].chunks[0]
    n = len(p.tasks)
    eta = _Eta(p, record, {i for i, t in enumerate(p.tasks)
                           if donor is not None and donor.holds(t.a, t.b)})
    progress.left_of_plan(eta.left / eta.total)  # resumed, or borrowing: a part is left
    run["share"] = 0.0
    for phase, order in (("reach", p.run_order[::-1]), ("solve", p.run_order)):
        t0, found = time.perf_counter(), 0
        if phase == "solve":
            reads = _count_readers(group, cache, p, record, chunk)
        for step, i in enumerate(order):
            if i in record.done[phase]:
                continue
            task = p.tasks[i]
            lent = False  # its records taken from the donor
            if phase == "reach":
                found += worker.reach(game, group, task, limit=limit, strategy=strategy)
                # its solve reads these bytes once, long after: the store serves that, and
                # the cache keeps the values parents read soon (C4 5x5: 580 -> 466 MiB)
                cache.drop_range(REACHED, chunk, task.a, task.b)
            else:
                def piece(t, lo, hi):
                    record.piece(t, lo, hi)
                    for hook in piece_hooks:
                        hook(t, lo, hi)

                tally = np.zeros(9, np.int64)
                got = None if donor is None else borrowing.borrow(game, group, task, donor,
                                                                  tally=tally)
                if got is None:
                    got = worker.solve(game, group, task, piece, limit=limit,
                                       tally=tally, strategy=strategy)
                else:
                    record.borrowed(donor.path)
                    lent = True
                    for t, lo, hi, _ in task.pieces:
                        piece(t, lo, hi)
                found += got
                cache.drop_range(REACHED, chunk, task.a, task.b)  # read once, by this solve
                left = cache.readers["value"]  # remoteness shares it
                for c in reads[i]:  # values no later solve reads are dropped
                    left[c] -= 1
                    if left[c] == 0:
                        cache.drop(("value", c))
                        cache.drop(("remoteness", c))
            # recorded once its queued writes are in the store
            writer.submit(record.task, phase, i, tally.tolist() if phase == "solve" else None)
            progress.update(phase, step + 1, _rate(step + 1, n, found, t0))
            progress.remaining(*eta.done(phase, i, lent))
            run["share"] = eta.did / eta.total


def _count_readers(group, cache: ChunkCache, p: Plan, record, chunk: int) -> dict:
    """The value chunks each unsolved task's solve reads outside its own range (the parts
    `task.load_records` reads), counted per chunk into the cache, one count for value and
    remoteness: a chunk is kept from its write (or first read) to its last reader, and one
    no later task reads is never kept. Quixo's tasks hold most of their children, so its
    cache holds 0.34x the hash at most instead of every task's values until its parents
    are solved."""
    count = np.zeros(-(-group.group["value"].shape[0] // chunk), np.int32)
    reads: dict[int, list[int]] = {}
    for i, task in enumerate(p.tasks):
        if i in record.done["solve"]:
            continue
        mine: set[int] = set()
        for _, x, y in outside(task, needs(group, task)):
            mine.update(range(x // chunk, (y - 1) // chunk + 1))
        reads[i] = sorted(mine)
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


LOOPY_SOLVE = 2.0  # a loopy tier's solve (retrograde sweeps) per slot, against a reach


class _Eta:
    """Seconds left of a tiered solve, by the hash slots its tasks have reached and solved
    so far rather than by tasks (one task may hold most of the hash: Teeko 5x5's last)."""

    def __init__(self, p: Plan, record, lent: set[int] | None = None):
        self.lent = lent or set()  # solve tasks the donor holds (--borrow): work not left
        self.work = {
            "reach": {i: float(t.size) for i, t in enumerate(p.tasks)},
            "solve": {i: float(sum((hi - lo) * (LOOPY_SOLVE if loopy else 1.0)
                                   for _, lo, hi, loopy in t.pieces) or t.size)
                      for i, t in enumerate(p.tasks)}}
        self.total = sum(w for ws in self.work.values() for w in ws.values()) or 1.0
        self.left = sum(w for phase, ws in self.work.items() for i, w in ws.items()
                        if i not in record.done[phase]
                        and not (phase == "solve" and i in self.lent))
        self.did = 0.0
        self.t0 = time.perf_counter()

    def done(self, phase: str, i: int, borrowed: bool = False) -> tuple[float, float]:
        """(seconds left at the rate so far, share of the work done) after task i. A
        borrowed task's work was paid in its donor: it is no longer left, but not done
        here either (Nine's movement tasks are 40% of its work: counted as done, they
        would make the rate, the ETA and the share `record_speed` scales by far too
        fast)."""
        w = self.work[phase][i]
        self.did += 0.0 if borrowed else w
        if not (phase == "solve" and i in self.lent):  # (one expected lent: never left)
            self.left = max(0.0, self.left - w)
        rate = (time.perf_counter() - self.t0) / max(self.did, 1e-9)
        return rate * self.left, self.did / max(self.did + self.left, 1e-9)


def _summarize(game: Game, store: PartialStore, ntiers: int, ntasks: int,
               record: Record | None = None) -> dict:
    counts = np.zeros(8, np.int64)
    max_rem = 0
    if record is not None and len(record.tally) == ntasks:  # every task counted its own
        for t in record.tally.values():
            counts += np.asarray(t[:8], np.int64)
            max_rem = max(max_rem, int(t[8]))
    else:  # a solve begun by a gsolve that kept no tally: count the store
        for a in range(0, game.hash_size, 1 << 22):
            v, r = store.read(a, min(game.hash_size, a + (1 << 22)))
            counts += np.bincount(v, minlength=8)[:8]
            has = (v == WIN) | (v == LOSE) | (v == TIE)
            if has.any():
                max_rem = max(max_rem, int(r[has].max()))
    sv, sr = store.read(game.start, game.start + 1)
    sv, sr = int(sv[0]), int(sr[0])
    return {
        "positions": int(counts[1:5].sum()),
        "values": {VALUE_WORDS[v]: int(counts[v]) for v in (4, 1, 3, 2) if counts[v]},
        "start_value": VALUE_WORDS[sv],
        "start_remoteness": shown_remoteness(sv, sr, game.puzzle),
        "max_remoteness": max_rem,
        "tiers": ntiers,
        "tasks": ntasks,
    }
