"""The tier worker: one task of a tiered solve, from the store to the store.

A task is a hash range [a, b) that holds whole loopy tiers and whole or partial loop-free
tiers (solver/engine/plan.py plans them). It writes the chunks inside its range alone; a
chunk it shares with a neighbour task at either end is rewritten under a lock per chunk
(read, merge, write: each chunk write replaces the file whole, so a reader never sees half
of one). It runs in two phases, each reading only
what the manager says it needs: the task's own range and its child tiers (its window).

* reach (parents first): the task's reach bytes come from the store, where its parent
  tasks pushed them; it expands them (to a fixed point inside a loopy tier), pushes the
  marks of its children in other tasks back into the store (OR-ed under a lock per chunk,
  so parents running side by side never lose each other's marks, and a retried task only
  repeats marks), and stores its own expanded bytes.
* solve (children first): child tiers' values come from the store; each tier piece of
  the task is decided from them (one pass when its moves all leave the tier; in-tier
  sweeps to a fixed point when they can stay) and written to the store.

A task always starts again from what its parents (reach) or children (solve) left in the
store, never from its own earlier output, so running it twice writes the same bytes.

How each phase runs within the task's memory is the memory model's choice
(engine/memory.py `strategy`, which the planner asks too); this module only dispatches,
as GamesmanOne's tier worker dispatches over its solvers, to one file per mode:
engine/window.py (reach into a window; solve fast and lean), far.py (reach with far
children), paged.py (reach and solve a part at a time). A strategy handed in (tests,
benchmarks) forces the modes.
"""

from __future__ import annotations

import contextlib
import resource
import time

import numpy as np

from games.base import Game, GsolveError
from solver.engine import far, loopy, memory, paged
from solver.engine import window as windowed
from solver.engine.memory import FAR, PAGED, Strategy
from solver.engine.task import REACHED, TEMPLATE, Task, needs, window, write_records
from solver.kernels.numbering import Numbering
from solver.kernels.records import WIN, join_records, record_dtype
from solver.storage.database import create_array


def _bad(game: Game, task: Task) -> GsolveError:
    return GsolveError(f"{game.name}: a move from hashes {task.a}..{task.b - 1} leads to a tier "
                       "its tier does not list as a child")


def choose(game: Game, task: Task, limit: int, segments=None,
           forced: Strategy | None = None) -> Strategy:
    """How `task` runs within `limit` bytes (memory.strategy): its solve reading the
    window over `segments` (its needs, known after its reach; default: the plan's guess)."""
    kids = window(task)[4] - task.size
    read = None if segments is None else window(task, segments)[4] - task.size
    return memory.strategy(game, task.size, kids, limit, read, forced)


def reach(game: Game, group, task: Task, lock=None, limit: int = 0,
          strategy: Strategy | None = None, spare: windowed.Spare | None = None) -> int:
    """Phase 1 of a task; returns the positions it found reachable in its own range.

    Children outside the task are pushed into the store and kept as the ranges the solve
    phase reads (`needs-<task>`), so the solve never holds a child tier it touches only in
    part. Its mode (memory.strategy within `limit`, or as `strategy` forces): a window of
    its whole child tiers, far children as sorted hashes, or paged. A window is `spare`'s
    buffer where one is given (a run of tasks in one process)."""
    mode = choose(game, task, limit, forced=strategy)
    bad = _bad(game, task)
    if spare is not None and mode.reach != memory.WINDOW:
        spare.drop()  # the other modes' bytes are planned without it
    if mode.reach == PAGED:
        reached, starts, stops = paged.reach(game, group, task, lock, limit, bad, mode.parts)
    elif mode.reach == FAR:
        reached, starts, stops = far.reach(game, group, task, lock, bad)
    else:
        reached, starts, stops = windowed.reach(game, group, task, lock, bad, spare)
    _needs(group, task, starts, stops)
    return reached


def _needs(group, task: Task, starts: np.ndarray, stops: np.ndarray) -> None:
    """Record the child ranges the task's solve reads (`needs`)."""
    needs = np.empty(2 + 2 * starts.size, np.int64)
    needs[:2] = (starts.size, 0)
    needs[2::2], needs[3::2] = starts, stops
    create_array(group, f"needs-{task.index}", needs.shape, np.int64, overwrite=True)[:] = needs


def solve(game: Game, group, task: Task, on_piece=None, lock=None, limit: int = 0,
          tally: np.ndarray | None = None, strategy: Strategy | None = None,
          spare: windowed.Spare | None = None) -> int:
    """Phase 2 of a task; returns the positions it decided. `on_piece(tier, lo, hi)` hears
    of each piece written; `tally` (int64[9], when given) gains the count of each value
    code written and, in its last slot, the largest remoteness. Its mode (memory.strategy within
    `limit`, or as `strategy` forces): its window of records at full speed, lean, or
    paged. A window is `spare`'s buffer where one is given (a run of tasks in one
    process)."""
    segments = needs(group, task)
    mode = choose(game, task, limit, segments, strategy)
    bad = _bad(game, task)
    if mode.solve != PAGED:
        return windowed.solve(game, group, task, segments, mode.solve == memory.LEAN, bad,
                              on_piece, lock, tally, spare)
    if spare is not None:
        spare.drop()  # the paged mode's bytes are planned without it
    value_arr, rem_arr = group["value"], group["remoteness"]
    decided = paged.solve(game, group, task, segments, limit, lambda rec, base, lo, hi:
                          write_records(rec, -base, lo, hi, value_arr, rem_arr, lock, tally),
                          mode.parts)
    windowed.tell(on_piece, task.pieces)
    return decided


def solve_held(game: Game, task: Task, segments, mode: Strategy,
               spare: windowed.Spare) -> int:
    """The bytes of `spare` held beyond the task's own window while its solve (in `mode`,
    over `segments`) runs."""
    if mode.solve == PAGED:
        return 0
    size = memory.records_bytes(game, window(task, segments)[4])
    return spare.held(size) - size


def warm_kernels(game: Game) -> None:
    """Load the kernels of a task for `game` (so that loading does not count as solving)."""
    from solver.kernels.codegen import kernels

    k = kernels(game.module, TEMPLATE)
    ctx, mc, ss = game.ctx, game.max_children, game.scratch_size
    dt = record_dtype(game.max_remoteness)
    reached = np.zeros(1, np.uint8)
    win = np.zeros(1, dt)
    seg = (np.zeros(1, np.int64), np.ones(1, np.int64), np.zeros(1, np.int64))
    k.forward(ctx, reached, reached, *seg, 0, 0, 0, 0, 0, mc, ss)
    k.mark_primitives(win, reached, 0, 0, 0, 0)
    k.combine_tier(ctx, win, *seg, 0, 0, 0, mc, ss, game.puzzle)
    k.winlose_tier(ctx, win, *seg, 0, 0, 0, 1, mc, ss)
    k.reach_tier(ctx, win, *seg, 0, 0, 0, 1, WIN, mc, ss)
    if game.loopy:
        loopy.warm(game, dt)


def records(value: np.ndarray, rem: np.ndarray, dtype) -> np.ndarray:
    """Solve-time records of stored (value, remoteness)."""
    rec = np.empty(value.shape[0], dtype)
    join_records(value, rem, rec)
    return rec


def peak_rss() -> int:
    """Peak resident memory of this process, in bytes (getrusage)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


# -- running a task in a cluster worker ---------------------------------------------------
_games: dict[tuple[str, str, bool], Numbering] = {}


def task_game(name: str, variant: str, symmetric: bool) -> Numbering:
    """The game a task names, by slot (on canonical slots when `symmetric`), built once
    per worker process."""
    key = (name, variant, symmetric)
    if key not in _games:
        from games import get_game

        _games[key] = Numbering(get_game(name, variant), symmetric)
    return _games[key]


def warm(name: str, variant: str, symmetric: bool = False) -> None:
    """Build the game, load its kernels and set up zarr (its codecs are found and loaded
    on first use: 0.2 s) in a worker before its first task."""
    import zarr
    from zarr.storage import MemoryStore

    from solver.storage.chunks import chunk_array
    warm_kernels(task_game(name, variant, symmetric))
    group = zarr.open_group(MemoryStore(), mode="w")
    for scratch in (False, True):
        arr = chunk_array(create_array(group, f"a{scratch:d}", (2,), np.uint8, scratch=scratch))
        arr[0:2] = 1
        arr[0:2]


def run(phase: str, name: str, variant: str, store: str, task: Task, limit: int,
        *deps, symmetric: bool = False) -> dict:
    """A task as a cluster runs it: the game from the registry (on canonical positions
    when `symmetric`), the store by its address, pushes under a cluster-wide lock per
    chunk. `deps` are the tasks it waits for."""
    from distributed import MultiLock

    prefix = f"gsolve-{phase}-{store}-"

    def lock(chunks):
        """All the chunk locks at once (one scheduler round trip, no lock-order deadlock)."""
        if not chunks:
            return contextlib.nullcontext()
        return MultiLock([prefix + str(c) for c in chunks])

    game = task_game(name, variant, symmetric)
    if symmetric:
        game = _numbered(game, store)
    return run_task(phase, game, store, task, limit, lock)


_numbering: dict[tuple[str, str, str], Numbering] = {}


def _numbered(game: Numbering, store: str) -> Numbering:
    """A symmetric game as the store numbers it: compact when the client wrote an index
    there (read once per worker process and store), else by hash slot."""
    key = (game.name, game.variant_key, store)
    if key not in _numbering:
        from solver.kernels.numbering import stored_index
        from solver.storage.stores import open_group

        index = stored_index(open_group(store, "r"), game.game)
        _numbering[key] = game if index is None else game.compact(index)
    return _numbering[key]


def run_task(phase: str, game: Game, store, task: Task, limit: int, lock=None) -> dict:
    """One phase of a task on the store (an address, or an open group), as a result the
    manager records."""
    from solver.storage.chunks import ChunkGroup, sync_written
    from solver.storage.stores import open_group

    group = ChunkGroup(open_group(store, "r+") if isinstance(store, str) else store,
                       (REACHED, "value", "remoteness"))
    t0 = time.perf_counter()
    tally = None
    if phase == "reach":
        n = reach(game, group, task, lock, limit)
    else:
        tally = np.zeros(9, np.int64)
        n = solve(game, group, task, lock=lock, limit=limit, tally=tally)
        tally = tally.tolist()
    sync_written()  # the manager records the task on this result: its bytes are on disk
    return {"task": task.index, "phase": phase, "positions": n, "tally": tally,
            "seconds": time.perf_counter() - t0}
