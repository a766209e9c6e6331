"""Whole-database analysis: positions by value and by remoteness, the start, paths."""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from games.base import VALUE_WORDS, Game, GsolveError, shown_remoteness
from solver.kernels.codegen import kernels
from solver.runtime.parallel import call, run_each, threads
from solver.runtime.progress import Progress
from solver.storage.database import Database

ORDER = (4, 1, 3, 2)  # win, lose, tie, draw


def analyze(db: Database, progress: Progress | None = None) -> dict:
    """Counts by value and remoteness. A database solved with symmetry (canonical positions
    only) counts every position, each canonical one weighted by its orbit (its distinct
    images), so the report equals the unreduced one; `canonical` holds the stored counts.
    Chunks are read and counted on the thread pool (zarr's decoding and the kernels let go
    of the GIL): a 38 G-position database is minutes, not hours."""
    game = db.game
    orbits = _orbit_sizes(db.numbered_game()) if db.symmetric else None

    def count(c: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        value, rem = db.read_chunk(c)
        weight = np.ones(value.shape[0], np.int64)
        if orbits is not None:
            orbits(c * db.chunk_size, value, weight)
        counts, canon = np.zeros(8, np.int64), np.zeros(8, np.int64)
        hist = np.zeros((int(rem.max(initial=0)) + 1, 8), np.int64)
        _tally(value, rem, weight, game.puzzle, counts, canon, hist)
        return counts, canon, hist

    counts, canon = np.zeros(8, np.int64), np.zeros(8, np.int64)
    hist = np.zeros((1, 8), np.int64)
    window = 2 * threads()  # chunks in flight: memory stays a few chunks
    progress = progress or Progress()
    t0 = time.monotonic()
    for lo in range(0, db.nchunks, window):
        progress.update("chunk", lo, f"of {db.nchunks:,}")
        if lo:
            done = lo / db.nchunks
            progress.remaining((time.monotonic() - t0) * (1 - done) / done, done)
        for got_counts, got_canon, got_hist in run_each(
                count, [(c,) for c in range(lo, min(lo + window, db.nchunks))]):
            counts += got_counts
            canon += got_canon
            if got_hist.shape[0] > hist.shape[0]:
                hist = np.vstack([hist, np.zeros((got_hist.shape[0] - hist.shape[0], 8),
                                                 np.int64)])
            hist[:got_hist.shape[0]] += got_hist
    by_rem = {int(r): hist[r] for r in np.nonzero(hist.sum(axis=1))[0]}
    sv, sr = db.lookup(game.start)
    remoteness = {}
    for rr in sorted(by_rem):
        row = {VALUE_WORDS[v]: int(by_rem[rr][v]) for v in ORDER if by_rem[rr][v]}
        if row:
            remoteness[rr] = row
    report = {
        "game": game.name,
        "variant": game.variant_key,
        "positions": int(counts[1:5].sum()),
        "values": {VALUE_WORDS[v]: int(counts[v]) for v in ORDER if counts[v]},
        "remoteness": remoteness,
        "start": {"position": game.to_string(game.start), "value": VALUE_WORDS[sv],
                  "remoteness": shown_remoteness(sv, sr, game.puzzle)},
        "max_remoteness": max(remoteness, default=0),
    }
    if db.symmetric:
        report["canonical"] = {
            "positions": int(canon[1:5].sum()),
            "values": {VALUE_WORDS[v]: int(canon[v]) for v in ORDER if canon[v]}}
    return report


@njit(cache=True, nogil=True)
def _tally(value, rem, weight, puzzle, counts, canon, hist):
    """One pass over a chunk: positions by value (weighted and stored), and by remoteness
    and value where a remoteness is kept (draws and puzzle losses have none)."""
    for i in range(value.shape[0]):
        v = value[i]
        canon[v] += 1
        counts[v] += weight[i]
        if v == 4 or v == 3 or (v == 1 and not puzzle):
            hist[rem[i], v] += weight[i]


def _orbit_sizes(game: Game):
    """f(first, value, out): the orbit size of each reached position of a chunk (`game`
    numbered as the database: solver/kernels/symmetry.py or compact.py's wrapper)."""
    import importlib

    k = importlib.import_module(game.module)
    return lambda first, value, out: k.orbit_sizes(  # a scratch each: called on threads
        game.ctx, first, value, out, np.empty(game.scratch_size, np.int8))


def count_paths(game: Game) -> dict[str, int]:
    """Distinct move sequences from the start to an end, by the end's value."""
    k = kernels(game.module, "solver.kernels.paths")
    counts, status = call(k.count_paths, game.ctx, game.hash_size, game.start,
                          game.max_children, game.scratch_size)
    if status == 1:
        raise GsolveError(f"{game.name} is loopy: its move sequences are endless, so --paths "
                          "does not apply")
    if status == 2:
        raise GsolveError(f"{game.name}: a path count passed 2^62")
    return {VALUE_WORDS[v]: int(counts[v]) for v in ORDER if counts[v]}
