"""The index of a compact database: which hash slots it stores, in what order.

A database solved on canonical positions only (solver/kernels/compact.py) stores them at
consecutive indices. Numbered by the index of canonical slots, the bits are stored beside
the arrays (array `index`, checksummed like every array, and its digest in the
attributes), so a reader ranks a position without finding the canonical slots again;
numbered by the game's own numbering (attribute index = "direct"), nothing is stored but
the numbering's digest, which a reader compares with the game's."""

from __future__ import annotations

import numpy as np

from games.base import Game
from solver.kernels.numbering import Numbering

INDEX = "index"  # the canonical slots of a compact database (solver/kernels/compact.py)
KINDS = ("canonical", "direct")  # attribute `index`: stored bits, or the game's numbering


def numbering(game: Numbering) -> dict:
    """The attributes that say how a database's arrays are indexed: by hash slot, or
    (a compact numbering, solver/kernels/compact.py) by canonical index, with the slot
    count and a digest of the index."""
    index = game.index if isinstance(game, Numbering) else None
    if index is None:
        return {"hash_size": int(game.hash_size)}
    return {"hash_size": int(index.slots), "index": index.kind, "stored": int(index.count),
            "index_digest": index.digest()}


def write_index(group, game: Numbering, create_array) -> None:
    """Store the canonical slots of a compact numbering beside its arrays (readers rank
    with them instead of finding the canonical slots again); `create_array` as
    database.py's."""
    index = game.index if isinstance(game, Numbering) else None
    if index is not None and index.kind == "canonical":
        create_array(group, INDEX, index.words.shape, np.uint64, chunk=1 << 17,
                     overwrite=True)[:] = index.words


def read_index(group, attrs: dict, game: Game):
    """The numbering of a compact store `group` (attributes `attrs`) of `game`: its stored
    CanonicalIndex, or the game's DirectNumbering; ValueError when it is missing or is not
    the one recorded."""
    from solver.kernels.compact import CanonicalIndex
    from solver.kernels.direct import DirectNumbering, numbers_itself

    if attrs.get("index") == "direct":
        if not numbers_itself(game):
            raise ValueError(f"{game.name} no longer numbers its canonical positions")
        index = DirectNumbering(game)
        what = "its numbering of canonical positions is not the game's"
    else:
        index = CanonicalIndex(group[INDEX][:], int(attrs["hash_size"]))
        what = "its index of canonical positions is not the one recorded"
    if index.digest() != attrs.get("index_digest") or index.count != attrs.get("stored"):
        raise ValueError(what)
    return index


def stored_index(group, game: Game):
    """The numbering a store holds for `game`, None when it holds none (a per-slot store);
    ValueError when it is damaged."""
    attrs = dict(group.attrs)
    if attrs.get("index") not in KINDS or attrs.get("hash_size") != game.hash_size:
        return None
    return read_index(group, attrs, game)


def numbered_game(game: Game, symmetric: bool, index) -> Numbering:
    """`game` as a database's arrays number it: by slot, on canonical slots when it was
    solved so, and compact when it has an index."""
    num = Numbering(game, symmetric)
    return num if index is None else num.compact(index)
