"""Running a tier plan on a Dask cluster: a task per planned task, depending on its child
tasks' futures, so the scheduler runs independent tiers side by side.

`--workers N` starts a distributed.LocalCluster of N worker processes, one task at a time
each, with numba threads per worker = cores / N (so the cores are not oversubscribed);
`--scheduler ADDRESS` uses a running cluster whose workers reach the same store. Workers
read child tiers from the store and write only their own task's chunks (reach marks into
other tasks' chunks are OR-ed under a cluster lock), so a task that is retried after its
worker died writes the same bytes again. The client records each finished task in the
store, so finished tasks are never run again, and an interrupted cluster solve resumes
like a local one.
"""

from __future__ import annotations

import os
import time

from games.base import Game, GsolveError
from solver import tier_worker
from solver.parallel import threads
from solver.progress import Progress

RETRIES = 3


def client_for(workers: int, scheduler: str | None, memory: int):
    """(client, cluster or None): a LocalCluster of `workers` processes, or a connection
    to the scheduler at `scheduler`."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise GsolveError("--workers and --scheduler need dask[distributed]: "
                          "pip install 'dask[distributed]'") from None
    if scheduler:
        try:
            return Client(scheduler, timeout=30), None
        except (OSError, TimeoutError) as e:
            raise GsolveError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None
    per = max(1, threads() // workers)
    env = {"GSOLVE_THREADS": str(per), "NUMBA_NUM_THREADS": str(per),
           "OMP_NUM_THREADS": "1"}
    for k in ("GSOLVE_CACHE", "XDG_CACHE_HOME"):
        if k in os.environ:
            env[k] = os.environ[k]
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                           memory_limit=max(1, memory // workers), dashboard_address=":0",
                           env=env)
    return Client(cluster), cluster


def run_plan(game: Game, store: str, p, record, progress: Progress, workers: int,
             scheduler: str | None, limit: int) -> int:
    """Run the unfinished tasks of plan `p`, each within `limit` bytes; return the workers'
    peak memory (bytes)."""
    from distributed import as_completed

    client, cluster = client_for(workers, scheduler, limit * max(1, workers))
    try:
        n = len(p.tasks)
        futures = {}
        key = f"{game.name}-{game.variant_key}"
        reach_deps: list[list[int]] = [[] for _ in range(n)]
        for i, d in enumerate(p.deps):
            for j in d:
                reach_deps[j].append(i)  # a task's reach waits for its parents' pushes
        for phase, order, deps in (("reach", p.run_order[::-1], reach_deps),
                                   ("solve", p.run_order, p.deps)):
            for i in order:
                if i in record.done[phase]:
                    continue
                waits = [futures[(phase, j)] for j in deps[i] if (phase, j) in futures]
                if phase == "solve" and ("reach", i) in futures:
                    waits.append(futures[("reach", i)])
                futures[(phase, i)] = client.submit(
                    tier_worker.run, phase, game.name, game.variant_key, store, p.tasks[i],
                    limit, *waits, key=f"gsolve-{phase}-{key}-{i}", retries=RETRIES, pure=False)
        total = len(futures)
        t0 = time.perf_counter()
        found, busy = 0, 0.0
        for step, fut in enumerate(as_completed(list(futures.values())), 1):
            out = fut.result()
            busy += out["seconds"]
            record.task(out["phase"], out["task"])
            found += out["positions"]
            dt = time.perf_counter() - t0
            eta = dt / step * (total - step)
            progress.update("cluster", step, f"{step}/{total} tasks, {found / dt:,.0f} "
                            f"positions/s, ETA {eta:,.0f} s")
        record.busy = busy  # seconds the workers spent inside tasks
        try:
            peaks = client.run(_peak)
            return max(peaks.values()) if peaks else 0
        except Exception:
            return 0
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _peak() -> int:
    from solver.tier_manager import peak_rss

    return peak_rss()
