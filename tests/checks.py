"""Assertions shared by the game tests."""

from __future__ import annotations

import numpy as np

from solver.database import Database


def assert_matches_reference(game, root, table: dict[str, tuple[int, int]]) -> None:
    """The database under `root` holds exactly the reference's reachable positions, each
    with the reference's value code and stored remoteness (0 for draws). Solved with
    symmetry, it holds their canonical forms, and each position answers at its own."""
    db = Database.open(game, root)
    values, rems = db.value_array[:], db.remoteness_array[:]
    positions = list(table)
    hashes = np.array([game.from_string(p) for p in positions], np.int64)
    if db.symmetric:
        hashes = np.array([game.canonical(int(h)) for h in hashes], np.int64)
    assert int((values != 0).sum()) == len(set(hashes.tolist()))
    want_v = np.array([table[p][0] for p in positions])
    want_r = np.array([table[p][1] for p in positions])
    bad = np.flatnonzero((values[hashes] != want_v) | (rems[hashes] != want_r))
    assert bad.size == 0, [(positions[i], table[positions[i]]) for i in bad[:5]]
