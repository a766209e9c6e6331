"""The tiered method ("no state: enumerate a stage, spread it out", GamesCrafters notes)
and its manager.

A game with tiers splits its hash numbering into contiguous ranges (e.g. by pieces
placed). The manager runs a tiered solve's tasks in order (solver/engine/plan.py cuts them
on the store's chunk boundaries), in this process (solver/engine/local.py) or on a Dask
cluster (solver/engine/cluster.py), within a memory budget; the worker
(solver/engine/worker.py) runs one task: reachability parents first (reach bytes pushed to
child tiers through the store), then values children first, reading only the task's own
range and its child tiers. Each finished task is recorded in the store (its Record,
below), so an interrupted solve resumes at the first unfinished task and a finished one
never runs again.

This module is the method "tiers" of solver/methods/registry.py (its protocol: `applies`,
`why_not`, `warm_up`, `solve`, `solve_into`, WRITES_AS_IT_GOES)."""

from __future__ import annotations

import bisect
import time
from pathlib import Path

import numpy as np

from games.base import VALUE_WORDS, Game, GsolveError, Tier, shown_remoteness
from solver.engine import borrowing, local, worker
from solver.engine.memory import Strategy, default_budget
from solver.engine.plan import BASE, GIB, LOCAL_TASK, MAX_TASK, Plan, plan
from solver.engine.task import REACHED
from solver.engine.worker import peak_rss
from solver.kernels.records import LOSE, TIE, WIN, record_dtype
from solver.runtime.parallel import threads
from solver.runtime.progress import Progress
from solver.storage.chunks import sync_written
from solver.storage.database import (
    CHUNK,
    command,
    create_array,
    now,
    partial_path,
    remoteness_dtype,
)
from solver.storage.writing import PartialStore

# -- the method protocol (solver/methods/registry.py) ------------------------------------
WRITES_AS_IT_GOES = True  # task by task: resumable, with the options of solve_into


def applies(game) -> bool:
    if isinstance(game, type):  # a game class (gsolve list): does it define tiers at all?
        return game.tiers is not Game.tiers
    return game.tiers() is not None


def why_not(game) -> str:
    return (f"{game.name} does not define tiers, so the tiers method does not apply: use "
            "--method bottomup" + ("" if game.loopy else " or --method dfs"))


def warm_up(game: Game) -> None:
    worker.warm_kernels(game)


def solve(game: Game, progress: Progress | None = None) -> np.ndarray:
    """In-memory records (for benchmarks and comparisons): solve into a temporary store."""
    import tempfile

    from solver.storage.database import Database

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / game.name / game.variant_key
        solve_into(game, path, progress, fresh=True)
        db = Database(path, game)
        rec = np.zeros(game.hash_size, record_dtype(game.max_remoteness))
        for a, v, r in db.chunks():
            rec[a:a + len(v)] = worker.records(v, r, rec.dtype)
        return rec


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
    """Say so when tasks will run a part at a time (engine/paged.py), and what it costs."""
    slow = p.slowdown()
    if slow > 1.0:
        progress.note(f"{game.describe()}: the largest tasks run a part at a time within "
                      f"{p.limit / GIB:,.2f} GiB a task, about {slow:.1f} times the time "
                      "at full speed; more --memory runs them faster")


# -- running ------------------------------------------------------------------------------
def on_cluster(workers: int = 0, scheduler: str | None = None) -> bool:
    """Whether a tiered solve with these options runs its tasks on a Dask cluster."""
    return workers > 1 or scheduler is not None


def solve_into(game: Game, path: Path, progress: Progress | None = None, fresh: bool = False,
               memory: int | None = None, workers: int = 0, scheduler: str | None = None,
               max_task: int | None = None, run: dict | None = None,
               borrow: str | None = None, check=None,
               strategy: Strategy | None = None, method: str | None = None,
               started: str | None = None) -> dict:
    """Solve tier by tier into the database at `path` (resuming a partial one), holding at
    most `memory` bytes (default: most of what is available). With `workers` or a
    `scheduler`, the tasks run on a Dask cluster (solver/engine/cluster.py), cut smaller so that
    tiers of one stage run side by side. `run["share"]`, when given, follows the share of
    the whole solve's work this call has done (in this process: what a resumed or stopped
    solve measured of this machine's speed). `borrow`: a store of the same game whose
    records a task takes where it holds all of the task's reached positions
    (solver/engine/borrowing.py). `check(group, summary)`: run on the finished arrays before
    the store is marked complete (PartialStore.finish); what it raises leaves it unfinished.
    `strategy`: the modes every task runs in, in this process (tests: memory.Strategy).
    `method` and `started` go unused: the store records its method and each run's start
    itself."""
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
            local.run_local(game, store, p, record, progress, per_task,
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
    progress.stage("every task solved: checking the store before it is marked complete "
                   "(each value chunk counted, 10,000 positions re-derived)")
    store.finish(summary, drop=(REACHED, *(f"needs-{i}" for i in range(len(p.tasks)))),
                 check=check)
    return summary


# -- the record of finished tasks -------------------------------------------------------
RECENT = 16  # tasks recorded last, whose chunks a resume reads back before trusting them
# the record is stored at most every second, and its storing takes at most this share of
# the time: zarr writes the store's attributes whole (the tally of every solved task), and
# with Connect-4 6x6's 18,558 tasks that took 0.4 s holding the GIL, 40 % of a core
RECORD_SHARE = 0.05


def _bits(done: set[int], n: int) -> str:
    b = np.zeros(n, bool)
    b[list(done)] = True
    return np.packbits(b).tobytes().hex()


def _unbits(text: str | None, n: int) -> set[int]:
    if not text:
        return set()
    b = np.unpackbits(np.frombuffer(bytes.fromhex(text), np.uint8))[:n]
    return set(np.flatnonzero(b).tolist())


class Record:
    """The finished tasks of each phase, in the store's attributes (only the manager
    writes them), flushed at most every second; beside them each run's wall and CPU time
    (of this process: a cluster's workers count theirs in `worker_task_seconds`), peak
    memory and tasks finished, so a solve resumed across sessions reports its whole cost."""

    def __init__(self, store: PartialStore, p: Plan, tiers: list[Tier]):
        self.store, self.n = store, len(p.tasks)
        attrs = store.attrs
        self.done = {ph: _unbits(attrs.get(f"{ph}_done"), self.n) for ph in ("reach", "solve")}
        # per solved task: positions by value code and the largest remoteness (a summary
        # without reading the store again)
        self.tally = {int(i): t for i, t in (attrs.get("task_tally") or {}).items()}
        self.recent = [list(x) for x in attrs.get("recent_tasks") or []]  # last recorded
        self.tiers_left = {}
        for task in p.tasks:
            for t, lo, hi, _ in task.pieces:
                self.tiers_left[t] = self.tiers_left.get(t, 0) + hi - lo
        self.tiers_done = [t for t in sorted(attrs.get("tiers_done", []))]
        self.small = len(tiers) <= 2000  # the tiers_done list is only kept when short
        self.last, self.every = 0.0, 1.0  # seconds between stores (RECORD_SHARE)
        # each run (this one last): a solve that spans sessions reports its whole time
        self.runs = [dict(r) for r in attrs.get("runs") or []]
        self.runs.append({"started": now(), "wall_seconds": 0.0, "cpu_seconds": 0.0,
                          "peak_bytes": 0, "tasks": 0})
        self.clock = (time.monotonic(), time.process_time())
        self.cuts = [t.a for t in p.tasks] + [p.tasks[-1].b] if p.tasks else [0]
        self.spent: set[int] = set()  # solved tasks whose reach bytes are deleted

    def piece(self, t: int, lo: int, hi: int) -> None:
        self.tiers_left[t] -= hi - lo
        if self.tiers_left[t] == 0 and self.small:
            self.tiers_done.append(t)
            self.flush(False)

    def borrowed(self, donor) -> None:
        """A task of this run took its records from the store `donor` (engine/borrowing.py):
        its cost was paid there."""
        run = self.runs[-1]
        run["borrowed_tasks"] = run.get("borrowed_tasks", 0) + 1
        run["borrowed_from"] = str(donor)

    def task(self, phase: str, i: int, tally: list[int] | None = None) -> None:
        """Task i's phase is finished: called once its writes are in the store, never
        before (a Writer job queued after them, or a cluster worker's result). It is
        stored by the next `flush`, which syncs its chunk files first."""
        self.done[phase].add(i)
        self.runs[-1]["tasks"] += 1
        self.recent = [*self.recent[-(RECENT - 1):], [phase, i]]
        if tally is not None:
            self.tally[i] = tally
        self.flush(False)

    def flush(self, now: bool = True) -> None:
        """The record stored (unless `now`, at most every second and RECORD_SHARE of the
        time), after the chunk files this process wrote are on disk: one sync a second,
        not one a task (6x6's late reach tasks, several a second: 11 % of the writer
        thread's time). Its tasks' files were all written before the record is taken, so
        the sync after it covers them."""
        if not now and time.monotonic() - self.last < self.every:
            return
        self.last = time.monotonic()
        self.runs[-1].update(wall_seconds=round(self.last - self.clock[0], 1),
                             cpu_seconds=round(time.process_time() - self.clock[1], 1),
                             peak_bytes=peak_rss())
        done = {ph: set(d) for ph, d in self.done.items()}  # what this record holds
        attrs = {f"{ph}_done": _bits(d, self.n) for ph, d in done.items()}
        attrs["runs"] = self.runs
        attrs["task_tally"] = {str(i): t for i, t in sorted(self.tally.items())}
        attrs["recent_tasks"] = recent = [list(x) for x in self.recent]
        if self.small:
            attrs["tiers_done"] = sorted(set(self.tiers_done))
        # the chunk files of every task in this record on disk before it is stored: a task
        # recorded on the writer thread after the record was taken waits for the next one
        sync_written()
        t0 = time.monotonic()
        self.store.set_attrs(**attrs)
        self.every = max(1.0, (time.monotonic() - t0) / RECORD_SHARE)
        self._spend(done["solve"], {i for ph, i in recent if ph == "solve"})

    def _spend(self, solved: set[int], recent: set[int]) -> None:
        """Delete the reach bytes of the tasks `solved` in the record just stored but not
        among its `recent` ones (`_recheck` may run those again, from their reach bytes),
        chunk by chunk where every task a chunk holds is solved: only a task's own solve
        reads them, and a big solve's take about as much disk as its database (Connect-4
        7x5: 25 GB at a quarter of the reach), which the solve phase writes beside them."""
        new = sorted(solved - recent - self.spent)
        if not new or REACHED not in self.store.group:
            return
        from solver.storage.chunks import chunk_array

        self.store.sync_attrs()  # the record on disk before what only it says is spent
        arr = chunk_array(self.store.group[REACHED])
        for i in new:
            for c in range(self.cuts[i] // arr.chunk, (self.cuts[i + 1] - 1) // arr.chunk + 1):
                lo, hi = c * arr.chunk, min(arr.n, (c + 1) * arr.chunk)
                first = bisect.bisect_right(self.cuts, lo) - 1
                last = bisect.bisect_left(self.cuts, hi) - 1
                if all(t in solved and t not in recent for t in range(first, last + 1)):
                    arr.drop_chunk(c)
        self.spent.update(new)


def _recheck(store: PartialStore, p: Plan, record: Record) -> None:
    """Before a resume trusts the tasks recorded last, read their chunks back (present,
    checksums good). A solve task whose chunks fail runs again (it starts from what its
    children and reach bytes left); damaged reach bytes hold marks that only the parent
    tasks' pushes made, so the resume is refused instead."""
    from solver.storage.chunks import ChunkGroup

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
