"""The tier solver: "no state: enumerate a stage, spread it out" (GamesCrafters notes).

A game with tiers splits its hash numbering into contiguous ranges (e.g. by pieces
placed). The manager (solver/engine/manager.py) cuts the hash into tasks on the store's
chunk boundaries and runs them, locally or on a Dask cluster (solver/engine/cluster.py); the
worker (solver/engine/worker.py) runs one task: reachability parents first (reach bytes
pushed to child tiers through the store), then values children first, reading only the
task's own range and its child tiers. Every finished task is recorded in the store, so
an interrupted solve resumes at the first unfinished one.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from games.base import Game
from solver.kernels.records import record_dtype
from solver.runtime.progress import Progress


def applies(game) -> bool:
    if isinstance(game, type):  # a game class (gsolve list): does it define tiers at all?
        return game.tiers is not Game.tiers
    return game.tiers() is not None


WRITES_AS_IT_GOES = True  # task by task: resumable, with the tier manager's options


def why_not(game) -> str:
    return (f"{game.name} does not define tiers, so the tiers method does not apply: use "
            "--method bottomup" + ("" if game.loopy else " or --method dfs"))


def solve_into(game: Game, path: Path, progress: Progress | None = None, *,
               method: str | None = None, started: str | None = None, **options) -> dict:
    """Solve into the store at `path` (solver/engine/manager.py), resuming a stopped solve
    there; `method` and `started` go unused: the store records its method and each run's
    start itself. The manager and the worker are imported here, not with this module,
    which every solve imports to ask `applies`: they cost a small dfs solve 20-30 ms of
    imports."""
    from solver.engine.manager import solve_into

    return solve_into(game, path, progress, **options)


def warm_up(game: Game) -> None:
    from solver.engine.worker import warm_kernels

    warm_kernels(game)


def solve(game: Game, progress: Progress | None = None) -> np.ndarray:
    """In-memory records (for benchmarks and comparisons): solve into a temporary store."""
    import tempfile

    from solver.engine.worker import records
    from solver.storage.database import Database

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / game.name / game.variant_key
        solve_into(game, path, progress, fresh=True)
        db = Database(path, game)
        rec = np.zeros(game.hash_size, record_dtype(game.max_remoteness))
        for a, v, r in db.chunks():
            rec[a:a + len(v)] = records(v, r, rec.dtype)
        return rec
