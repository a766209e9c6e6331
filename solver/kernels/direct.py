"""A game's own numbering of its canonical positions, as a compact solve uses it.

Where a game's module defines `canonical_index` and `canonical_slot` (games/base.py's
table; Morris and Bagh-Chal number boards by their least first-type sets,
hashing/orbits.py), a compact solve (solver/kernels/compact.py) needs no index of
canonical slots: this class answers what CanonicalIndex answers, by the game's
arithmetic."""

from __future__ import annotations

import hashlib

import numpy as np
from numba import njit

from games.base import Game


def rules_module(game: Game) -> str:
    """The module of `game`'s own functions (the game itself: a Numbering of it binds the
    kernels elsewhere, solver/kernels/numbering.py)."""
    if not isinstance(game, Game):
        raise TypeError(f"{game!r} is not a game: pass the game a numbering numbers")
    return type(game).module


def numbers_itself(game: Game) -> bool:
    """Whether `game`'s module numbers its canonical positions (`canonical_index`) and
    this variant has a numbering (`canonical_size` not None)."""
    import importlib

    return (hasattr(importlib.import_module(rules_module(game)), "canonical_index")
            and getattr(game, "canonical_size", None) is not None)


class DirectNumbering:
    """A game's own numbering of its canonical positions (`canonical_index` and
    `canonical_slot` in its module, games/base.py; e.g. games/morris.py by least White
    sets, hashing/orbits.py): nothing to build or store, rank and select are arithmetic.
    Its indices may hold gaps (slots that are not canonical): a solve never reaches them."""

    kind = "direct"

    def __init__(self, game: Game):
        import importlib

        mod = importlib.import_module(rules_module(game))
        self._index, self._slot = mod.canonical_index, mod.canonical_slot
        self.game, self.ctx = game, game.ctx
        self.slots, self.count = game.hash_size, int(game.canonical_size)

    def arrays(self) -> tuple:
        return ()

    def digest(self) -> str:
        """What the numbering is: its size and the slots of 257 indices spread over it (a
        changed numbering reads another database wrong, so readers compare this)."""
        at = np.linspace(0, self.count - 1, 257).astype(np.int64)
        slots = np.array([self._slot(self.ctx, int(i)) for i in at], np.int64)
        text = f"{self.slots}/{self.count}/".encode() + slots.tobytes()
        return hashlib.sha256(text).hexdigest()[:32]

    def has(self, h: int) -> bool:
        """Whether canonical slot h is numbered: every one is (nothing is stored that could
        lack one), so only the range is checked; the reader canonicalised h already."""
        return 0 <= h < self.slots

    def rank(self, h: int) -> int:
        """Index of canonical slot h (`count` for h = slots, as CanonicalIndex.rank)."""
        return self.count if h >= self.slots else int(self._index(self.ctx, h))

    def select(self, i: int) -> int:
        if not 0 <= i < self.count:
            raise IndexError(f"index {i} is outside 0..{self.count - 1}")
        return int(self._slot(self.ctx, i))

    def select_all(self, idx: np.ndarray, out: np.ndarray) -> None:
        _select_direct(self._slot, self.ctx, idx, out)

    def nbytes(self) -> int:
        return 0  # its tables are the game's


@njit(cache=False, nogil=True)
def _select_direct(slot, ctx, idx, out):
    for j in range(idx.shape[0]):
        out[j] = slot(ctx, idx[j])
