"""Imported once by the forkserver that a LocalCluster's workers are forked from
(solver/engine/cluster.py), so that each worker starts with Dask, numba, zarr and gsolve
imported and the solve's game kernels loaded, instead of spawning a fresh interpreter that
imports and loads them all again (1.2 s of CPU per worker, on the cores the client is solving
on meanwhile). Nothing here starts a thread: a thread would not survive the fork.

Ctrl-C reaches the whole process group: the forkserver and the workers it forks ignore
SIGINT from here on (the forkserver passes the handler it started with to its children),
so that a Ctrl-C while they start prints no traceback of theirs; the client stops the
solve and ends them (solver/engine/cluster.py, Cluster.kill)."""

import os
import signal

signal.signal(signal.SIGINT, signal.SIG_IGN)  # first: the imports below take seconds

from solver.runtime.allocator import map_large_blocks  # noqa: E402

map_large_blocks()  # the workers forked from here inherit it

# (imported after that: E402)
import distributed  # noqa: F401, E402  (what Dask's own forkserver preload imports)
import zarr  # noqa: F401, E402

from solver.engine import worker  # noqa: E402
from solver.engine.cluster import FORKSERVER_GAME  # noqa: E402


def _warm(spec: str) -> None:
    name, variant, symmetric = spec.split("|")
    worker.warm_kernels(worker.task_game(name, variant, symmetric == "1"))


warmed = ""  # the game whose kernels the workers start with
if os.environ.get(FORKSERVER_GAME):
    try:
        _warm(os.environ[FORKSERVER_GAME])
        warmed = os.environ[FORKSERVER_GAME]
    except Exception:  # a worker then loads them itself (worker.warm)
        pass
