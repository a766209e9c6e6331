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


def analyze(db: Database, progress: Progress | None = None, by_tier: bool = False) -> dict:
    """Counts by value and remoteness. A database solved with symmetry (canonical positions
    only) counts every position, each canonical one weighted by its orbit (its distinct
    images), so the report equals the unreduced one; `canonical` holds the stored counts.
    Chunks are read and counted on the thread pool (zarr's decoding and the kernels let go
    of the GIL): a 38 G-position database is minutes, not hours. `by_tier` adds the same
    counts for each tier of a tiered game (`tiers`, in index order), in the same pass."""
    game = db.game
    numbered = db.numbered_game()
    orbits = _orbit_sizes(numbered) if db.symmetric else None
    tiers = _tiers(numbered) if by_tier else None
    starts = (np.zeros(1, np.int64) if tiers is None  # one range: the whole database
              else np.array([t.start for t in tiers], np.int64))

    def count(c: int) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
        value, rem = db.read_chunk(c)
        first = c * db.chunk_size
        weight = np.ones(value.shape[0], np.int64)
        if orbits is not None:
            orbits(first, value, weight)
        lo = max(int(np.searchsorted(starts, first, "right")) - 1, 0)
        hi = int(np.searchsorted(starts, first + value.shape[0], "left"))
        bounds = starts[lo:max(hi, lo + 1)]  # the ranges this chunk meets
        counts = np.zeros((bounds.shape[0], 8), np.int64)
        canon = np.zeros_like(counts)
        hist = np.zeros((int(rem.max(initial=0)) + 1, 8), np.int64)
        _tally(value, rem, weight, game.puzzle, first, bounds, counts, canon, hist)
        return lo, counts, canon, hist

    counts = np.zeros((starts.shape[0], 8), np.int64)  # per range: the whole, or each tier
    canon = np.zeros_like(counts)
    hist = np.zeros((1, 8), np.int64)
    window = 2 * threads()  # chunks in flight: memory stays a few chunks
    progress = progress or Progress()
    t0 = time.monotonic()
    for lo in range(0, db.nchunks, window):
        progress.update("chunk", lo, f"of {db.nchunks:,}")
        if lo:
            done = lo / db.nchunks
            progress.remaining((time.monotonic() - t0) * (1 - done) / done, done)
        for tier, got_counts, got_canon, got_hist in run_each(
                count, [(c,) for c in range(lo, min(lo + window, db.nchunks))]):
            counts[tier:tier + got_counts.shape[0]] += got_counts
            canon[tier:tier + got_canon.shape[0]] += got_canon
            if got_hist.shape[0] > hist.shape[0]:
                hist = np.vstack([hist, np.zeros((got_hist.shape[0] - hist.shape[0], 8),
                                                 np.int64)])
            hist[:got_hist.shape[0]] += got_hist
    per_tier, canon_per_tier = counts, canon
    counts, canon = counts.sum(axis=0), canon.sum(axis=0)
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
        report["canonical"] = _by_value(canon)
    if tiers is not None:
        report["tiers"] = []
        for t, tier in enumerate(tiers):
            row = {"tier": tier.label, **_by_value(per_tier[t])}
            if db.symmetric:
                row["canonical"] = _by_value(canon_per_tier[t])
            report["tiers"].append(row)
    return report


def _by_value(counts: np.ndarray) -> dict:
    return {"positions": int(counts[1:5].sum()),
            "values": {VALUE_WORDS[v]: int(counts[v]) for v in ORDER if counts[v]}}


def _tiers(game: Game) -> list:
    """The tiers of `game` as its arrays number them, in index order (an empty tier before
    the one that starts where it does: _tally gives an index the last range that starts at
    or before it); GsolveError when the game has none."""
    tiers = game.tiers()
    if tiers is None:
        raise GsolveError(f"{game.name} has no tiers: --tiers does not apply")
    return sorted(tiers, key=lambda t: (t.start, t.stop))


@njit(cache=True, nogil=True)
def _tally(value, rem, weight, puzzle, first, bounds, counts, canon, hist):
    """One pass over a chunk (index `first` on): positions by value (weighted and stored)
    in each range of `bounds` (ascending starts, the first at or before `first`), and by
    remoteness and value where a remoteness is kept (draws and puzzle losses have none)."""
    t = 0
    for i in range(value.shape[0]):
        while t + 1 < bounds.shape[0] and first + i >= bounds[t + 1]:
            t += 1
        v = value[i]
        canon[t, v] += 1
        counts[t, v] += weight[i]
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
