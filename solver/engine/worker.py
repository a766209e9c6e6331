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
"""

from __future__ import annotations

import contextlib
import resource
import time

import numpy as np

from games.base import Game, GsolveError
from solver.engine import lean, loopy, paged, paged_reach
from solver.engine.task import FAN, Task, needs, outside, runs, side_by_side, window
from solver.engine.taskio import (  # noqa: F401 (the engine's names, kept here too)
    GAP,
    REACHED,
    TEMPLATE,
    WRITE,
    load_records,
    push_window,
    put,
    write_records,
)
from solver.kernels.records import (
    WIN,
    join_records,
    record_dtype,
)
from solver.runtime.parallel import _executor, call, run_apart, run_blocks, threads
from solver.storage.database import create_array

FAR_BUFFER = 1 << 22  # far-child slots of a reach block (32 MiB) before they are sorted
GIB = 1 << 30


def _bad(game: Game, task: Task) -> GsolveError:
    return GsolveError(f"{game.name}: a move from hashes {task.a}..{task.b - 1} leads to a tier "
                       "its tier does not list as a child")


def reach(game: Game, group, task: Task, lock=None, limit: int = 0) -> int:
    """Phase 1 of a task; returns the positions it found reachable in its own range.

    Children outside the task are pushed into the store and kept as the ranges the solve
    phase reads (`needs-<task>`), so the solve never holds a child tier it touches only in
    part. When a byte per slot of the task's whole child tiers fits in `limit` (or no
    limit is given) they are marked in that window; otherwise only the own range is held
    and the far children are collected as hashes and sorted (slower, little memory), or,
    where even that passes `limit`, the task's bytes and far children go through scratch
    files a part at a time (engine/paged_reach.py)."""
    from solver.kernels.codegen import kernels

    k = kernels(game.module, TEMPLATE)
    arr = group[REACHED]
    gstart, gstop, woff, obase, slots = window(task)
    if reach_paged(game, task.size, slots, limit):
        reached, starts, stops = paged_reach.reach(game, group, task, lock, limit,
                                                   _bad(game, task))
        _needs(group, task, starts, stops)
        return reached
    if not limit or 2 * slots <= limit:
        win = np.zeros(slots, np.uint8)
        own = win[task.a + obase:task.b + obase]
    else:
        win = None
        own = np.empty(task.size, np.uint8)
    own[:] = arr[task.a:task.b] != 0  # an earlier try starts over
    if task.a <= game.start < task.b:
        own[game.start - task.a] = 1
    ctx, mc, ss = game.ctx, game.max_children, game.scratch_size
    parts: list[np.ndarray] = []
    for lo, hi, in_tier, _ in reversed(runs(task)):  # parents first
        while True:
            if win is not None:
                new = run_blocks(k.forward, (ctx, win, gstart, gstop, woff), lo, hi, obase,
                                 lo, hi, mc, ss)
                if new < 0:
                    raise _bad(game, task)
            else:
                new = _expand(k, game, own, task, lo, hi, parts)
            if not in_tier or new == 0:
                break
        if len(parts) > 16:
            parts[:] = [_unique(np.concatenate(parts))]
    hold = lock or (lambda cs: contextlib.nullcontext())
    if win is not None:
        starts, stops = push_window(arr, win, task, hold)
        own = own.copy()
        del win
    else:
        far = _unique(np.concatenate(parts)) if parts else np.empty(0, np.int64)
        del parts
        _push_far(arr, far, task, hold, _bad(game, task))
        breaks = np.flatnonzero(np.diff(far) > GAP)
        starts = far[np.concatenate(([0], breaks + 1))] if far.size else far
        stops = far[np.concatenate((breaks, [far.size - 1]))] + 1 if far.size else far
    _needs(group, task, starts, stops)
    put([(arr, own)], task.a, task.b, lock)
    return int(np.count_nonzero(own))


def reach_paged(game: Game, own: int, slots: int, limit: int) -> bool:
    """Whether a task's reach runs paged: neither its window of `slots` bytes (twice, to
    be safe) nor its own range with its far children as hashes (planned at most task.FAN
    times the own positions) fits `limit`."""
    far = own + 8 * min(slots - own, FAN * own) + block_bytes(game) * threads()
    return bool(limit) and 2 * slots > limit and far > limit


def _needs(group, task: Task, starts: np.ndarray, stops: np.ndarray) -> None:
    """Record the child ranges the task's solve reads (`needs`)."""
    needs = np.empty(2 + 2 * starts.size, np.int64)
    needs[:2] = (starts.size, 0)
    needs[2::2], needs[3::2] = starts, stops
    create_array(group, f"needs-{task.index}", needs.shape, np.int64, overwrite=True)[:] = needs


def _push_far(arr, far: np.ndarray, task: Task, hold, bad) -> None:
    """Push far children (sorted distinct hashes) into the store as reached."""
    gstart = np.array([s for s, _ in task.segments], np.int64)
    gstop = np.array([e for _, e in task.segments], np.int64)
    seg = np.searchsorted(gstart, far, side="right") - 1
    if far.size and ((seg < 0).any() or (far >= gstop[np.maximum(seg, 0)]).any()):
        raise bad
    del seg
    chunk = arr.chunks[0]
    cid = far // chunk
    cuts = np.flatnonzero(np.diff(cid)) + 1
    parts = np.split(far, cuts) if far.size else []
    with hold(sorted({int(p[0] // chunk) for p in parts})):  # one round trip for all
        for part in parts:
            c = int(part[0] // chunk)
            lo, hi = c * chunk, min(arr.shape[0], (c + 1) * chunk)
            cur = arr[lo:hi]
            cur[part - lo] = np.maximum(cur[part - lo], 1)
            arr[lo:hi] = cur


def _unique(x: np.ndarray) -> np.ndarray:
    """Sorted distinct values (by sorting: numpy's hashing unique is slower on these)."""
    x = np.sort(x)
    if x.size < 2:
        return x
    keep = np.empty(x.size, bool)
    keep[0] = True
    np.not_equal(x[1:], x[:-1], out=keep[1:])
    return x[keep]


def _expand(k, game: Game, own, task: Task, lo: int, hi: int, parts: list) -> int:
    """One forward pass over [lo, hi) in blocks on the thread pool; the children outside
    the task go to `parts` (sorted, unique per block). Returns the new in-tier marks."""
    ctx, mc, ss = game.ctx, game.max_children, game.scratch_size

    def one(xy):
        x, y = xy
        far = np.empty((y - x) * mc, np.int64)
        new, m = k.forward_far(ctx, own, x, y, task.a, task.b, lo, hi, far, mc, ss)
        return new, (_unique(far[:m]) if m else None)

    step = max(1, FAR_BUFFER // mc)
    blocks = [(x, min(hi, x + step)) for x in range(lo, hi, step)]
    if len(blocks) > 1 and threads() > 1:
        results = list(_executor().map(one, blocks))
    else:
        results = [call(one, b) for b in blocks]
    new = 0
    for n, far in results:
        new += n
        if far is not None:
            parts.append(far)
    return new


def block_bytes(game: Game) -> int:
    """Memory of one reach block's far-child buffer."""
    return 8 * max(1, FAR_BUFFER // game.max_children) * game.max_children


def solve(game: Game, group, task: Task, on_piece=None, eager: bool = False,
          lock=None, limit: int = 0, tally: np.ndarray | None = None) -> int:
    """Phase 2 of a task; returns the positions it decided. `on_piece(tier, lo, hi)` hears
    of each piece written; `tally` (int64[9], when given) gains the count of each value
    code written and, in its last slot, the largest remoteness. The task's range is
    written at the end, once per chunk (a write re-encodes whole chunks) and WRITE
    positions at a time, or piece by piece when `eager` (tests interrupt a solve between
    them).
    A window of more than `limit` bytes (when given) at `slot_bytes` a slot runs its loopy
    tiers in the lean worker (`lean_bytes`); one that passes that too runs a part at a
    time (engine/paged.py)."""
    from solver.kernels.codegen import kernels

    k = kernels(game.module, TEMPLATE)
    ctx, mc, ss = game.ctx, game.max_children, game.scratch_size
    dtype = record_dtype(game.max_remoteness)
    segments = needs(group, task)
    gstart, gstop, woff, obase, slots = window(task, segments)
    use_lean = bool(limit) and slots * slot_bytes(game) > limit  # engine/lean.py
    need = lean_bytes(game, task.size, slots - task.size) if use_lean else 0
    value_arr, rem_arr = group["value"], group["remoteness"]
    if need > limit:  # engine/paged.py: a part and a page at a time
        decided = paged.solve(game, group, task, segments, limit, lambda rec, base, lo, hi:
                              write_records(rec, -base, lo, hi, value_arr, rem_arr, lock,
                                            tally))
        for tier, lo, hi, _ in task.pieces:
            if on_piece is not None:
                on_piece(tier, lo, hi)
        return decided
    win = np.empty(slots, dtype)
    load_records(win, outside(task, segments), value_arr, rem_arr, dtype)
    reached = group[REACHED][task.a:task.b]
    run_blocks(k.mark_primitives, (win, reached), task.a, task.b, obase, task.a)
    del reached
    seg = (gstart, gstop, woff)
    bad = _bad(game, task)
    decided = 0
    rs = runs(task)
    if threads() > 1 and game.has_parents and not use_lean and not eager:
        # loopy tiers of a level, each up to a thread's share of the largest, a thread
        # each: no more memory than the largest tier alone (Quixo 4x4: a tier of 100K
        # canonical positions, spread over 2 threads, kept them 65-80% busy)
        most = max((hi - lo for lo, hi, loopy, _ in rs if loopy), default=0)
        groups = side_by_side(task, rs, most // threads(), threads())
    else:
        groups = [[r] for r in rs]
    for group in groups:
        if len(group) > 1:
            run_apart(loopy.retrograde, [(game, win, seg, lo, hi, obase, bad)
                                         for lo, hi, _, _ in group])
            continue
        lo, hi, in_tier, pieces = group[0]
        if not in_tier:
            if run_blocks(k.combine_tier, (ctx, win, *seg), lo, hi, obase, mc, ss,
                          game.puzzle) < 0:
                raise bad
        elif game.has_parents:
            loopy.retrograde(game, win, seg, lo, hi, obase, bad, use_lean)
        else:
            loopy.sweeps(k, game, win, seg, lo, hi, obase, bad)
        if eager:
            decided += write_records(win, obase, lo, hi, value_arr, rem_arr, lock, tally)
            for tier, x, y, _ in pieces:
                if on_piece is not None:
                    on_piece(tier, x, y)
    if not eager:
        decided = write_records(win, obase, task.a, task.b, value_arr, rem_arr, lock, tally)
        for tier, lo, hi, _ in task.pieces:
            if on_piece is not None:
                on_piece(tier, lo, hi)
    return decided


def warm_kernels(game: Game) -> None:
    """Load the kernels of a task for `game` (so that loading does not count as solving)."""
    from solver.kernels.codegen import kernels

    k = kernels(game.module, TEMPLATE)
    ctx, mc, ss = game.ctx, game.max_children, game.scratch_size
    dt = record_dtype(game.max_remoteness)
    reached = np.zeros(1, np.uint8)
    win = np.zeros(1, dt)
    seg = (np.zeros(1, np.int64), np.ones(1, np.int64), np.zeros(1, np.int64))
    k.forward(ctx, reached, *seg, 0, 0, 0, 0, 0, mc, ss)
    k.mark_primitives(win, reached, 0, 0, 0, 0)
    k.combine_tier(ctx, win, *seg, 0, 0, 0, mc, ss, game.puzzle)
    k.winlose_tier(ctx, win, *seg, 0, 0, 0, 1, mc, ss)
    k.reach_tier(ctx, win, *seg, 0, 0, 0, 1, WIN, mc, ss)
    if game.loopy:
        loopy.warm(game, dt)


def slot_bytes(game: Game) -> int:
    """Memory of a window slot while a task runs: its record, the reach byte, and the
    stored value and remoteness read or written beside it (and, bounding them by the
    window, the retrograde arrays of its loopy tiers)."""
    from solver.storage.database import remoteness_dtype

    rec = np.dtype(record_dtype(game.max_remoteness)).itemsize
    return (2 * rec + 2 + np.dtype(remoteness_dtype(game.max_remoteness)).itemsize
            + loopy.retro_bytes(game))


def lean_bytes(game: Game, own: int, kids: int) -> int:
    """Memory of a task's solve phase when `slot_bytes` a window slot passes its limit: a
    record a slot, and for each own position the larger of its reach byte (read before
    the tier is solved) and the lean retrograde's arrays (engine/lean.py); besides them
    the buffers of one piece of the write and of the frontier batches."""
    from solver.storage.database import remoteness_dtype

    rec = np.dtype(record_dtype(game.max_remoteness)).itemsize
    piece = min(WRITE, own) * (1 + np.dtype(remoteness_dtype(game.max_remoteness)).itemsize)
    return (rec * (own + kids) + own * max(1, loopy.retro_bytes(game, lean=True))
            + piece + lean.batch_bytes(game, own))


def records(value: np.ndarray, rem: np.ndarray, dtype) -> np.ndarray:
    """Solve-time records of stored (value, remoteness)."""
    rec = np.empty(value.shape[0], dtype)
    join_records(value, rem, rec)
    return rec


def peak_rss() -> int:
    """Peak resident memory of this process, in bytes (getrusage)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


# -- running a task in a cluster worker ---------------------------------------------------
_games: dict[tuple[str, str, bool], Game] = {}


def _game(name: str, variant: str, symmetric: bool) -> Game:
    """The game a task names, built once per worker process."""
    key = (name, variant, symmetric)
    if key not in _games:
        from games import get_game

        game = get_game(name, variant)
        if symmetric:
            from solver.kernels.symmetry import apply

            apply(game, True)
        _games[key] = game
    return _games[key]


def warm(name: str, variant: str, symmetric: bool = False) -> None:
    """Build the game, load its kernels and set up zarr (its codecs are found and loaded
    on first use: 0.2 s) in a worker before its first task."""
    import zarr
    from zarr.storage import MemoryStore

    from solver.storage.chunkio import chunk_array
    warm_kernels(_game(name, variant, symmetric))
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

    game = _game(name, variant, symmetric)
    if symmetric:
        game = _numbered(game, store)
    return run_task(phase, game, store, task, limit, lock)


_numbering: dict[tuple[str, str, str], Game] = {}


def _numbered(game: Game, store: str) -> Game:
    """A symmetric game as the store numbers it: compact when the client wrote an index
    there (read once per worker process and store), else by hash slot."""
    key = (game.name, game.variant_key, store)
    if key not in _numbering:
        from solver.kernels.compact import view
        from solver.storage.index import stored_index
        from solver.storage.stores import open_group

        index = stored_index(open_group(store, "r"), game)
        _numbering[key] = game if index is None else view(game, index)
    return _numbering[key]


def run_task(phase: str, game: Game, store, task: Task, limit: int, lock=None) -> dict:
    """One phase of a task on the store (an address, or an open group), as a result the
    manager records."""
    from solver.storage.chunkio import ChunkGroup, sync_written
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
