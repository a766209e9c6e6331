"""Whole-database analysis: positions by value and by remoteness, the start, paths."""

from __future__ import annotations

import numpy as np

from games.base import VALUE_WORDS, Game, GsolveError, shown_remoteness
from solver.kernels.codegen import kernels
from solver.runtime.parallel import call
from solver.storage.database import Database

ORDER = (4, 1, 3, 2)  # win, lose, tie, draw


def analyze(db: Database) -> dict:
    """Counts by value and remoteness. A database solved with symmetry (canonical positions
    only) counts every position, each canonical one weighted by its orbit (its distinct
    images), so the report equals the unreduced one; `canonical` holds the stored counts."""
    game = db.game
    counts = np.zeros(8, np.int64)
    canon = np.zeros(8, np.int64)
    by_rem: dict[int, np.ndarray] = {}
    orbits = _orbit_sizes(db.numbered_game()) if db.symmetric else None
    for a, value, rem in db.chunks():
        canon += np.bincount(value, minlength=8)[:8]
        weight = np.ones(value.shape[0], np.int64)
        if orbits is not None:
            orbits(a, value, weight)
        counts += np.bincount(value, weights=weight, minlength=8)[:8].astype(np.int64)
        # draws (and puzzle losses) have no remoteness: counted by value only
        reached = (value == 4) | (value == 3) | ((value == 1) & (not game.puzzle))
        if not reached.any():
            continue
        v, r = value[reached], rem[reached].astype(np.int64)
        hist = np.zeros((int(r.max()) + 1, 8), np.int64)
        np.add.at(hist, (r, v), weight[reached])
        for rr in np.nonzero(hist.sum(axis=1))[0]:
            by_rem.setdefault(int(rr), np.zeros(8, np.int64))
            by_rem[int(rr)] += hist[rr]
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


def _orbit_sizes(game: Game):
    """f(first, value, out): the orbit size of each reached position of a chunk (`game`
    numbered as the database: solver/kernels/symmetry.py or compact.py's wrapper)."""
    import importlib

    k = importlib.import_module(game.module)
    scratch = np.empty(game.scratch_size, np.int8)
    return lambda first, value, out: k.orbit_sizes(game.ctx, first, value, out, scratch)


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
