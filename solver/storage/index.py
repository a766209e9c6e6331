"""The index of a compact database: which hash slots it stores, in what order.

A database solved on canonical positions only (solver/kernels/compact.py) stores them at
consecutive indices; the bits of the canonical slots are stored beside the arrays (array
`index`, checksummed like every array, and its digest in the attributes), so a reader
ranks a position without finding the canonical slots again."""

from __future__ import annotations

import numpy as np

from games.base import Game

INDEX = "index"  # the canonical slots of a compact database (solver/kernels/compact.py)


def numbering(game: Game) -> dict:
    """The attributes that say how a database's arrays are indexed: by hash slot, or
    (a compact game, solver/kernels/compact.py) by canonical index, with the slot count
    and a digest of the index."""
    index = getattr(game, "compact_index", None)
    if index is None:
        return {"hash_size": int(game.hash_size)}
    return {"hash_size": int(index.slots), "index": "canonical", "stored": int(index.count),
            "index_digest": index.digest()}


def write_index(group, game: Game, create_array) -> None:
    """Store the canonical slots of a compact game beside its arrays (readers rank with
    them instead of finding the canonical slots again); `create_array` as database.py's."""
    index = getattr(game, "compact_index", None)
    if index is not None:
        create_array(group, INDEX, index.words.shape, np.uint64, chunk=1 << 17,
                     overwrite=True)[:] = index.words


def read_index(group, attrs: dict):
    """The CanonicalIndex stored in `group` (attributes `attrs`); ValueError when it is
    missing or is not the one recorded."""
    from solver.kernels.compact import CanonicalIndex

    index = CanonicalIndex(group[INDEX][:], int(attrs["hash_size"]))
    if index.digest() != attrs.get("index_digest") or index.count != attrs.get("stored"):
        raise ValueError("its index of canonical positions is not the one recorded")
    return index



def stored_index(group, hash_size: int):
    """The index a store holds for a game of `hash_size` slots, None when it holds none
    (a per-slot store); ValueError when it is damaged."""
    attrs = dict(group.attrs)
    if attrs.get("index") != "canonical" or attrs.get("hash_size") != hash_size:
        return None
    return read_index(group, attrs)


def numbered_game(game: Game, symmetric: bool, index) -> Game:
    """`game` as a database's arrays number it: set to symmetry when it was solved so
    (a copy), and compact when it has an index."""
    import copy

    if not symmetric:
        return game
    from solver.kernels.symmetry import apply

    game = game if game.symmetry else apply(copy.copy(game), True)
    if index is None:
        return game
    from solver.kernels.compact import view

    return view(game, index)
