"""The loop-free DFS solver: touches only reachable positions, each once.

Memory: the record array (2 bytes per hash slot) and a stack of at most depth x branching
positions. Stops with a clear error on a loopy game.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from games.base import Game, GsolveError
from solver.kernels.codegen import kernels
from solver.kernels.records import record_dtype
from solver.methods import whole
from solver.runtime.parallel import call
from solver.runtime.progress import Progress

TEMPLATE = "solver.kernels.dfs"


def applies(game) -> bool:
    return not game.loopy


def why_not(game) -> str:
    return (f"{game.name} is loopy (positions can repeat), so the loop-free dfs method does "
            "not apply: use --method bottomup or --method retrograde")


def warm_up(game: Game) -> None:
    k = kernels(game.module, TEMPLATE)
    rec = np.zeros(1, record_dtype(game.max_remoteness))
    rec[0] = 8 | 1  # decided: returns at once
    k.dfs(game.ctx, rec, 0, game.max_children, game.scratch_size, game.puzzle)


def solve(game: Game, progress: Progress | None = None) -> np.ndarray:
    progress = progress or Progress()
    k = kernels(game.module, TEMPLATE)
    rec = np.zeros(game.hash_size, record_dtype(game.max_remoteness))
    progress.update("dfs", 1, "depth-first from the start")
    solved, cycle = call(k.dfs, game.ctx, rec, game.start, game.max_children,
                         game.scratch_size, game.puzzle)
    if cycle >= 0:
        raise GsolveError(
            f"{game.name} is loopy: position '{game.to_string(int(cycle))}' can repeat, so "
            "dfs cannot solve it; use --method bottomup or --method retrograde")
    progress.update("dfs", 1, f"{solved:,} positions solved")
    return rec


WRITES_AS_IT_GOES = False  # the whole hash in memory: its database written at the end
solve_into = partial(whole.solve_into, solve)  # the database of `solve` (methods/whole.py)
