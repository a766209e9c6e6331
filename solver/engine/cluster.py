"""Running a tier plan on a Dask cluster: a task per planned task, depending on its child
tasks' futures, so the scheduler runs independent tiers side by side.

`--workers N` starts a distributed.LocalCluster of N worker processes, one task at a time
each, with numba threads per worker = cores / N (so the cores are not oversubscribed),
forked from a forkserver that has gsolve and the game's kernels loaded;
`--scheduler ADDRESS` uses a running cluster whose workers reach the same store (a shared
folder or a store URL, solver/storage/stores.py). Workers read child tiers from the store and
write only their own task's chunks (reach marks into other tasks' chunks are OR-ed under
a cluster lock), so a task that is retried after its worker died writes the same bytes
again.

A killed worker: Dask runs its unfinished task again on another worker (the nanny of a
LocalCluster starts a new worker), and the cluster locks it held are released
(`_FreeLocks`), so that retry cannot wait forever on them. Finished tasks are never run
again: the client submits a task only once every task it depends on is recorded finished
in the store, so no task takes another's result as an argument, and a result lost with
its worker is never needed (Dask would recompute it). The same record makes an
interrupted cluster solve resume like a local one.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time

from games.base import Game, GsolveError
from solver.engine import worker
from solver.runtime.parallel import threads
from solver.runtime.progress import Progress

RETRIES = 3
FORKSERVER_GAME = "GSOLVE_FORKSERVER_GAME"  # "name|variant|symmetric": solver/engine/forkserver.py


def client_for(workers: int, scheduler: str | None, memory: int, game: Game | None = None):
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
        except Exception as e:  # something answers there, but not as a Dask scheduler
            raise GsolveError(f"{scheduler} does not answer as a Dask scheduler "
                              f"({type(e).__name__})") from None
    per = max(1, threads() // workers)
    env = {"GSOLVE_THREADS": str(per), "NUMBA_NUM_THREADS": str(per),
           "OMP_NUM_THREADS": "1"}
    for k in ("GSOLVE_CACHE", "XDG_CACHE_HOME"):
        if k in os.environ:
            env[k] = os.environ[k]
    import dask

    # Dask's nannies start workers with MALLOC_TRIM_THRESHOLD_ set, which turns off glibc's
    # adaptive mmap threshold: every window a task allocates is then mapped and faulted in
    # afresh (C4 5x5: 4x the system time, tasks 1.4x slower). Task memory is bounded by the
    # plan, so workers keep glibc's defaults, as the threaded solve does.
    spawn = dict(dask.config.get("distributed.nanny.pre-spawn-environ", {}))
    spawn.pop("MALLOC_TRIM_THRESHOLD_", None)
    dask.config.set({"distributed.nanny.pre-spawn-environ": spawn})
    _fork_workers(game)
    # a stopped solve leaves at once, without waiting for its workers to close (what
    # finished is recorded): the semaphores they held are freed by multiprocessing's
    # resource tracker, which would warn about each at length
    os.environ.setdefault("PYTHONWARNINGS", "ignore:resource_tracker:UserWarning")
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                           memory_limit=max(1, memory // workers), dashboard_address=":0",
                           env=env, silence_logs=logging.ERROR)  # gsolve reports itself
    return Client(cluster), cluster


def _fork_workers(game: Game | None) -> None:
    """Have the LocalCluster fork its workers from a forkserver that has imported gsolve
    and loaded `game`'s kernels (solver/engine/forkserver.py), where the platform has one. Only
    the first cluster of a process starts the forkserver; a later one (another game)
    still gets the imports, and its workers load their kernels themselves."""
    import multiprocessing

    import dask

    if "forkserver" not in multiprocessing.get_all_start_methods():
        return
    dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"})
    from distributed.utils import get_mp_context

    if game is not None:  # the environment the forkserver starts with
        os.environ[FORKSERVER_GAME] = f"{game.name}|{game.variant_key}|{int(game.symmetry)}"
    get_mp_context().set_forkserver_preload(["solver.engine.forkserver"])


class Cluster:
    """The cluster of a solve, started on a thread as soon as the solve begins, so that its
    processes start and load the game's kernels (`worker.warm`) while the client plans;
    and closed on a thread while the client finishes the store."""

    def __init__(self, game: Game, workers: int, scheduler: str | None, memory: int):
        import multiprocessing
        import threading

        self.client = self.cluster = self.error = None
        self._closing = None
        self._others = set(multiprocessing.active_children())  # not this cluster's
        self._forkserver = _forkserver_pid()

        def start():
            try:
                self.client, self.cluster = client_for(workers, scheduler, memory, game)
                _free_locks_of_dead_workers(self.client)
                if self.cluster is not None:
                    _leave_interrupts_to_the_client(self.client)
                self.client.run(worker.warm, game.name, game.variant_key, game.symmetry)
            except BaseException as e:  # raised where the client is needed
                self.error = e

        self._start = threading.Thread(target=start, name="gsolve-cluster", daemon=True)
        self._start.start()

    def ready(self) -> bool:
        """Whether the cluster has started (or failed to: `get` raises why)."""
        return not self._start.is_alive()

    def get(self):
        self._start.join()
        if self.error is not None:
            raise self.error
        return self.client

    def kill(self) -> None:
        """End the processes of a LocalCluster at once, even one still starting (a stopped
        solve: what finished is recorded, and a worker left to notice the lost scheduler
        lingers for seconds, holding the command's output open): this process's
        multiprocessing children that were not there when the cluster began, and the
        forkserver if it started since (one still importing for its workers ends only
        once it is done; a later cluster starts another), with the folder of its socket.
        Dask's errors about the processes lost are not shown: the solve was stopped."""
        import multiprocessing
        import signal

        logging.getLogger("distributed").setLevel(logging.CRITICAL)
        pids = [p.pid for p in multiprocessing.active_children() if p not in self._others]
        forkserver = _forkserver_pid()
        if forkserver != self._forkserver:
            pids.append(forkserver)
        for pid in pids:
            if pid:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
        if forkserver != self._forkserver:
            _remove_temp_dir()

    def close(self, wait: bool = True) -> None:
        """Close the client and the cluster it started (on a thread unless `wait`)."""
        import threading

        if self._closing is None:

            def stop():
                self._start.join()  # here, not in the caller: a stop never waits on it
                if self.client is not None:
                    self.client.close()
                if self.cluster is not None:
                    self.cluster.close()

            self._closing = threading.Thread(target=stop, name="gsolve-cluster-close")
            self._closing.start()
        if wait:
            self._closing.join()


def _forkserver_pid() -> int | None:
    """The pid of the forkserver that multiprocessing started, if any (a private name)."""
    from multiprocessing import forkserver

    return getattr(getattr(forkserver, "_forkserver", None), "_forkserver_pid", None)


def _remove_temp_dir() -> None:
    """Remove multiprocessing's temporary folder (/tmp/pymp-*, the forkserver's socket)
    now, as the interpreter's exit would: a stopped command ends without it
    (solver/command/cli.py). A later forkserver makes another."""
    from multiprocessing import util

    for f in list(getattr(util, "_finalizer_registry", {}).values()):
        if getattr(f, "_callback", None) is getattr(util, "_remove_temp_dir", False):
            with contextlib.suppress(Exception):
                f()


def run_plan(game: Game, store: str, p, record, progress: Progress, cluster: Cluster,
             limit: int) -> int:
    """Run the unfinished tasks of plan `p` on `cluster`, each within `limit` bytes; return
    the workers' peak memory (bytes)."""
    from distributed import as_completed

    client = cluster.get()
    n = len(p.tasks)
    key = f"{game.name}-{game.variant_key}"
    reach_deps: list[list[int]] = [[] for _ in range(n)]
    for i, d in enumerate(p.deps):
        for j in d:
            reach_deps[j].append(i)  # a task's reach waits for its parents' pushes
    waits: dict[tuple[str, int], set] = {}  # unfinished task -> unfinished prerequisites
    for phase, deps in (("reach", reach_deps), ("solve", p.deps)):
        for i in range(n):
            if i not in record.done[phase]:
                need = {(phase, j) for j in deps[i] if j not in record.done[phase]}
                if phase == "solve" and i not in record.done["reach"]:
                    need.add(("reach", i))
                waits[(phase, i)] = need
    users: dict[tuple[str, int], list] = {}
    for k, need in waits.items():
        for d in need:
            users.setdefault(d, []).append(k)
    rank = {("reach", i): r for r, i in enumerate(p.run_order[::-1])}
    rank.update({("solve", i): n + r for r, i in enumerate(p.run_order)})

    def submit(k):
        phase, i = k
        return client.submit(
            worker.run, phase, game.name, game.variant_key, store, p.tasks[i],
            limit, symmetric=game.symmetry, key=f"gsolve-{phase}-{key}-{i}",
            retries=RETRIES, pure=False, priority=-rank[k])

    here = _here(game, store, p, limit) if cluster.cluster is not None else None
    ready = sorted((k for k, need in waits.items() if not need), key=rank.get)
    running = as_completed()
    total, in_flight = len(waits), 0
    t0 = time.perf_counter()
    found, busy = 0, 0.0
    for step in range(1, total + 1):
        if here is not None and len(ready) == 1 and not in_flight:
            out = here(ready.pop())  # a lone task: the idle cores are all the client's
        else:
            for k in ready:
                running.add(submit(k))
            in_flight += len(ready)
            ready = []
            fut = next(running)
            in_flight -= 1
            out = fut.result()
            fut.release()  # the scheduler may forget it: nothing takes it as an argument
        busy += out["seconds"]
        done = (out["phase"], out["task"])
        record.task(*done, out.get("tally"))  # the counts, so none are read back
        found += out["positions"]
        for u in users.get(done, ()):
            waits[u].discard(done)
            if not waits[u]:
                ready.append(u)
        ready.sort(key=rank.get)
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


def _here(game: Game, store: str, p, limit: int):
    """Running a task in the client, on all its threads: for a LocalCluster's client only,
    when one task is ready and none is running (the tiers near a game's start, one small
    task per level), so that the workers' cores are not left idle behind a task on one
    thread, nor a tiny task behind a scheduler round trip. No other task runs meanwhile,
    so its writes need no cluster lock."""
    from solver.storage.stores import open_group

    group = open_group(store, "r+")
    return lambda k: worker.run_task(k[0], game, group, p.tasks[k[1]], limit)


def _leave_interrupts_to_the_client(client) -> None:
    """A LocalCluster's workers ignore SIGINT: Ctrl-C reaches the whole process group, and
    each worker would print a traceback of its own while the client, which stops the
    solve (its finished tasks recorded, the cluster closed), prints one line."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class _IgnoreInterrupts(WorkerPlugin):
        def setup(self, worker):
            import signal

            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)
            except ValueError:  # not the worker's main thread: leave it
                pass

    client.register_plugin(_IgnoreInterrupts(), name="gsolve-ignore-interrupts")


# -- the cluster locks of a worker that died ----------------------------------------------
def _free_locks_of_dead_workers(client) -> None:
    """Name every MultiLock a worker takes after the worker (`_OwnedLocks`), and have the
    scheduler release a dead worker's (`_FreeLocks`). Without this a worker killed inside
    a push would hold its chunk locks for ever and its retried task would wait on them.
    A scheduler that cannot take the plugin (one without gsolve installed) goes without."""
    from distributed.diagnostics.plugin import SchedulerPlugin, WorkerPlugin

    class _OwnedLocks(WorkerPlugin):
        def setup(self, worker):
            from distributed import multi_lock

            cls = multi_lock.MultiLock
            if getattr(cls.__init__, "gsolve_owned", False):
                return
            init = cls.__init__

            def owned(lock, *args, **kw):
                init(lock, *args, **kw)
                lock.id = f"{worker.address}|{lock.id}"

            owned.gsolve_owned = True
            cls.__init__ = owned

    class _FreeLocks(SchedulerPlugin):
        def remove_worker(self, scheduler, worker, **kw):
            ext = scheduler.extensions.get("multi_locks")
            if ext is None:
                return
            # distributed 2026.7 renamed its misspelt `_refain_locks`: both are private
            free = getattr(ext, "_retain_locks", None) or ext._refain_locks
            for lock_id in [i for i in ext.requests if str(i).startswith(f"{worker}|")]:
                free(list(ext.requests[lock_id]), lock_id)  # held or queued

    try:
        client.register_plugin(_FreeLocks(), name="gsolve-free-locks")
    except Exception:
        return
    client.register_plugin(_OwnedLocks(), name="gsolve-owned-locks")


def _peak() -> int:
    return worker.peak_rss()
