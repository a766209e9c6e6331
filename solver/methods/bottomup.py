"""The zero-memory bottom-up solver: sweeps over the whole hash range, no queue.

1. visit: sweep until no new position is reached from the start;
2. primitives got their value while being visited;
3. resolve: sweep i decides exactly the positions of remoteness i (WIN/LOSE, then TIE,
   or for puzzles WIN = a goal in i moves) until a sweep decides nothing;
4. whatever is still undecided is DRAW (puzzles: LOSE).

Its only per-position state is the record array (2 bytes a position for most games).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from games.base import Game, GsolveError
from solver.kernels.codegen import kernels
from solver.kernels.records import (
    DRAW,
    LOSE,
    PENDING,
    TIE,
    VISITED,
    WIN,
    max_record_remoteness,
    record_dtype,
)
from solver.methods import whole
from solver.runtime.parallel import call, run_blocks
from solver.runtime.progress import Progress

TEMPLATE = "solver.kernels.bottomup"


def load(game: Game):
    return kernels(game.module, TEMPLATE)


def warm_up(game: Game) -> None:
    """Compile (or load from cache) every kernel, on empty ranges."""
    k = load(game)
    rec = np.zeros(1, record_dtype(game.max_remoteness))
    mc, ss = game.max_children, game.scratch_size
    k.visit(game.ctx, rec, 0, 0, mc, ss)
    k.resolve_winlose(game.ctx, rec, 0, 0, 1, True, 0, mc, ss)
    k.resolve_reach(game.ctx, rec, 0, 0, 1, WIN, game.puzzle, True, 0, mc, ss)
    k.fill_undecided(rec, 0, 0, DRAW)
    k.next_sweep(rec, 0, 0, LOSE, 1)
    k.visited_bounds(rec)


def visit_all(game: Game, dtype, progress: Progress) -> np.ndarray:
    """Records with every position reachable from the start marked, primitives valued."""
    k = load(game)
    rec = np.zeros(game.hash_size, dtype)
    rec[game.start] = VISITED | PENDING
    reached, sweep = 1, 0
    while True:
        sweep += 1
        new = run_blocks(k.visit, (game.ctx, rec), 0, game.hash_size, game.max_children,
                         game.scratch_size, progress=progress)
        reached += new
        progress.update("visit", sweep, f"{reached:,} positions reached")
        if new == 0:
            return rec


def solve(game: Game, progress: Progress | None = None) -> np.ndarray:
    """Records of every position (see solver.kernels.records)."""
    progress = progress or Progress()
    k = load(game)
    ctx, mc, ss = game.ctx, game.max_children, game.scratch_size
    dtype = record_dtype(game.max_remoteness)
    limit = max_record_remoteness(dtype)
    rec = visit_all(game, dtype, progress)
    lo, hi = call(k.visited_bounds, rec)
    cap = np.iinfo(dtype).max  # a larger record holds a remoteness past `limit`

    def sweeps(kernel, phase, want, *args):
        """Sweeps i = 1, 2, ... to the fixed point, alternately down and up the hash (so
        that decisions cascade within a sweep whichever way the game's moves run); after
        one that decided nothing, on at the next that can (`next_sweep`), if any."""
        i, down = 1, True
        while True:
            n = run_blocks(kernel, (ctx, rec), lo, hi, i, *args, down, cap, mc, ss,
                           progress=progress, descending=down)
            if n < 0:
                raise GsolveError(
                    f"remoteness passed {limit}: raise the game's max_remoteness")
            progress.update(phase, i, f"{n:,} decided in sweep {i}")
            down = not down
            if n > 0:
                i += 1
                continue
            i = call(k.next_sweep, rec, lo, hi, want, i)
            if i == 0:
                return

    if game.puzzle:
        sweeps(k.resolve_reach, "resolve", WIN, WIN, True)
        run_blocks(k.fill_undecided, (rec,), lo, hi, LOSE)
    else:
        sweeps(k.resolve_winlose, "win/lose", LOSE)
        sweeps(k.resolve_reach, "tie", TIE, TIE, False)
        run_blocks(k.fill_undecided, (rec,), lo, hi, DRAW)
    return rec


def applies(game) -> bool:
    return True


def why_not(game) -> str:
    return ""


WRITES_AS_IT_GOES = False  # the whole hash in memory: its database written at the end
solve_into = partial(whole.solve_into, solve)  # the database of `solve` (methods/whole.py)
