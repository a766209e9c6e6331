"""The retrograde solver: backward induction from the ends with child counters.

Memory per hash slot: the record (2 bytes) and a child counter (1 byte, 2 when a position
can have 256 or more moves); without the game's un-moves also a reverse edge list (8 bytes
per slot for its offsets, 8 per reachable edge), built once. Frontier queues hold one level.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from games.base import Game, GsolveError
from solver.kernels.codegen import kernels
from solver.kernels.records import (
    DRAW,
    LOSE,
    max_record_remoteness,
    record_dtype,
)
from solver.methods import bottomup, whole
from solver.runtime.parallel import call, run_blocks
from solver.runtime.progress import Progress

TEMPLATE = "solver.kernels.retrograde"


def applies(game) -> bool:
    return True


def why_not(game) -> str:
    return ""


def _counter_dtype(game):
    return np.uint8 if game.max_children < 256 else np.uint16


def _max_parents(game) -> int:
    return int(getattr(game, "max_parents", game.max_children))


def warm_up(game: Game) -> None:
    bottomup.warm_up(game)
    k = kernels(game.module, TEMPLATE)
    rec = np.zeros(1, record_dtype(game.max_remoteness))
    counts = np.zeros(1, _counter_dtype(game))
    offsets = np.zeros(2, np.int64)
    edges = np.zeros(0, np.int64)
    mc, ss = game.max_children, game.scratch_size
    k.count_children(game.ctx, rec, counts, 0, 0, mc, ss)
    k.reverse_edges(game.ctx, rec, offsets, edges, mc, ss)
    k.propagate(game.ctx, rec, counts, game.has_parents, offsets, edges, _max_parents(game),
                ss, game.puzzle, 1)


def solve(game: Game, progress: Progress | None = None) -> np.ndarray:
    progress = progress or Progress()
    k = kernels(game.module, TEMPLATE)
    b = bottomup.load(game)
    ctx, mc, ss = game.ctx, game.max_children, game.scratch_size
    dtype = record_dtype(game.max_remoteness)
    rec = bottomup.visit_all(game, dtype, progress)
    lo, hi = call(b.visited_bounds, rec)
    counts = np.zeros(game.hash_size, _counter_dtype(game))
    nedges = run_blocks(k.count_children, (ctx, rec, counts), lo, hi, mc, ss)
    progress.update("count", 1, f"{nedges:,} moves between undecided positions")
    if game.has_parents:
        offsets = np.zeros(1, np.int64)
        edges = np.zeros(0, np.int64)
        max_parents = _max_parents(game)
    else:
        offsets = np.zeros(game.hash_size + 1, np.int64)
        edges = np.empty(nedges, np.int64)
        call(k.reverse_edges, ctx, rec, offsets, edges, mc, ss)
        max_parents = int(np.diff(offsets).max()) if game.hash_size else 1
        progress.update("reverse edges", 1, f"{nedges:,} edges")
    limit = max_record_remoteness(dtype)
    top = call(k.propagate, ctx, rec, counts, game.has_parents, offsets, edges,
               max(1, max_parents), ss, game.puzzle, limit)
    if top < 0:
        raise GsolveError(f"remoteness passed {limit}: raise the game's max_remoteness")
    run_blocks(b.fill_undecided, (rec,), lo, hi, LOSE if game.puzzle else DRAW)
    return rec


WRITES_AS_IT_GOES = False  # the whole hash in memory: its database written at the end
solve_into = partial(whole.solve_into, solve)  # the database of `solve` (methods/whole.py)
