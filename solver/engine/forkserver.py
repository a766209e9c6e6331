"""Imported once by the forkserver that a LocalCluster's workers are forked from
(solver/engine/cluster.py), so that each worker starts with Dask, numba, zarr and gsolve
imported and the solve's game kernels loaded, instead of spawning a fresh interpreter that
imports and loads them all again (1.2 s of CPU per worker, on the cores the client is solving
on meanwhile). Nothing here starts a thread: a thread would not survive the fork."""

import os

import distributed  # noqa: F401  (what Dask's own forkserver preload imports)
import zarr  # noqa: F401

from solver.engine import worker
from solver.engine.cluster import FORKSERVER_GAME


def _warm(spec: str) -> None:
    name, variant, symmetric = spec.split("|")
    worker.warm_kernels(worker._game(name, variant, symmetric == "1"))


warmed = ""  # the game whose kernels the workers start with
if os.environ.get(FORKSERVER_GAME):
    try:
        _warm(os.environ[FORKSERVER_GAME])
        warmed = os.environ[FORKSERVER_GAME]
    except Exception:  # a worker then loads them itself (worker.warm)
        pass
