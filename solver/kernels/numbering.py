"""How a solve, a store or a reader numbers a game's positions, beside the unchanged game.

    plain      every hash slot of the game, its module's ranking;
    canonical  the same slots, a solve reaching the canonical ones only: the kernels bind to
               the symmetry wrapper (solver/kernels/symmetry.py), whose children and parents
               are canonical forms; the other slots stay 0;
    compact    canonical positions only, at consecutive indices: by the index of canonical
               slots (kernels/compact.py CanonicalIndex, a bit a slot) or by the game's
               own arithmetic (kernels/direct.py DirectNumbering: Morris, Bagh-Chal).

A Numbering is what the kernels bind to (`module`), call with (`ctx`), size arrays by
(`hash_size`), start from (`start`) and walk (`tiers()`); and what readers ask to name a
numbered position (`to_string`, `number`, `moves`). It is frozen and never changes the
game it numbers: the game's own traits (name, variant, scratch_size, max_moves...) are read
through it from `game`, so a method takes either one.

A store records its numbering beside its arrays (the attributes `index_attrs` gives, and
the index of a compact one, below): numbered by the index of canonical slots, the bits are
stored (array `index`, checksummed like every array, and its digest in the attributes),
so a reader ranks a position without finding the canonical slots again; numbered by the
game's own numbering (attribute index = "direct"), nothing is stored but the numbering's
digest, which a reader compares with the game's."""

from __future__ import annotations

from functools import cached_property

import numpy as np

from games.base import Game, GsolveError, Tier, symmetric_tiers

PLAIN, CANONICAL = "plain", "canonical"


def game_of(game) -> Game:
    """The game itself, of a game or of a Numbering of it."""
    return game.game if isinstance(game, Numbering) else game


class Numbering:
    """`game`'s positions: every slot (symmetry False), canonical slots (symmetry True,
    no index), or the canonical positions by `index` (a CanonicalIndex or a
    DirectNumbering: compact)."""

    __slots__ = ("game", "symmetry", "index", "module", "ctx", "hash_size", "start",
                 "__dict__")  # __dict__: cached_property's cache (the tier list) only

    def __init__(self, game: Game, symmetry: bool = False, index=None):
        if isinstance(game, Numbering):
            raise TypeError("a Numbering numbers a game, not another numbering")
        if symmetry and not game.has_symmetry:
            raise GsolveError(f"{game.name} declares no symmetries: --symmetry does not apply")
        if index is not None and not symmetry:
            raise ValueError("a compact numbering is of canonical positions: symmetry on")
        sets = {"game": game, "symmetry": bool(symmetry), "index": index}
        rules = type(game).module
        if not symmetry:
            sets.update(module=rules, ctx=game.ctx, hash_size=game.hash_size,
                        start=game.start)
        else:
            from solver.kernels.symmetry import wrapper

            canonical = wrapper(rules).__name__
            start = game.canonical(game.start)
            if index is None:
                sets.update(module=canonical, ctx=game.ctx, hash_size=game.hash_size,
                            start=start)
            else:
                from solver.kernels.compact import wrapper as compact_wrapper

                direct = rules if index.kind == "direct" else None
                sets.update(module=compact_wrapper(canonical, direct).__name__,
                            ctx=(game.ctx, *index.arrays()), hash_size=index.count,
                            start=index.rank(start))
        for name, value in sets.items():
            object.__setattr__(self, name, value)

    @classmethod
    def of(cls, game: Game | Numbering, symmetry: bool = False) -> Numbering:
        """`game` numbered by slot, on canonical slots where `symmetry`; a Numbering given
        keeps its own setting unless `symmetry` asks for canonical slots."""
        if isinstance(game, Numbering):
            return game if game.symmetry or not symmetry else cls(game.game, True)
        return cls(game, symmetry)

    def compact(self, index=None) -> Numbering:
        """The canonical positions of this (symmetric) numbering at their own indices:
        by `index`, else the game's own numbering where it has one, else an index found
        (kernels/compact.py `numbering`)."""
        if not self.symmetry:
            raise ValueError("a compact numbering needs symmetry on")
        if index is None:
            from solver.kernels.compact import numbering

            index = numbering(self.game)
        return Numbering(self.game, True, index)

    def __setattr__(self, name, value):
        raise AttributeError(f"a numbering is frozen (setting {name})")

    def __getattr__(self, name: str):
        """The game's own traits, read from the game (never written through)."""
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.game, name)

    def __getstate__(self):
        return {"game": self.game, "symmetry": self.symmetry, "index": self.index}

    def __setstate__(self, state):
        Numbering.__init__(self, state["game"], state["symmetry"], state["index"])

    def __repr__(self) -> str:
        return f"Numbering({self.game.describe()}, {self.kind})"

    @property
    def kind(self) -> str:
        """plain, canonical, or the compact index's kind (canonical bits, direct)."""
        if self.index is not None:
            return f"compact-{self.index.kind}"
        return CANONICAL if self.symmetry else PLAIN

    @property
    def is_compact(self) -> bool:
        return self.index is not None

    # -- tiers ------------------------------------------------------------------------
    def tiers(self) -> list[Tier] | None:
        """The game's tiers in this numbering: a symmetric solve's child tiers bring their
        images (games/base.py symmetric_tiers), a compact one's ranges are ranked."""
        return None if self._tier_list is None else list(self._tier_list)

    def known_tiers(self) -> list[Tier] | None:
        """The tier list where it is built already (a huge one takes minutes), else None."""
        if "_tier_list" in self.__dict__ or self.game.known_tiers() is not None:
            return self.tiers()
        return None

    @cached_property
    def _tier_list(self):
        tiers = self.game.tiers()
        if tiers is None or not self.symmetry:
            return tiers
        tiers = symmetric_tiers(self.game)
        if self.index is None:
            return tiers
        rank = self.index.rank
        return [Tier(t.label, rank(t.start), rank(t.stop), t.children) for t in tiers]

    # -- positions, as readers name them ----------------------------------------------
    def slot(self, i: int) -> int:
        """The game's hash of numbered position i."""
        return self.index.select(i) if self.index is not None else i

    def number(self, h: int) -> int:
        """The number of the game's hash h: its canonical form's, under symmetry."""
        if not self.symmetry:
            return h
        c = self.game.canonical(h)
        return self.index.rank(c) if self.index is not None else c

    def slots(self, idx: np.ndarray, out: np.ndarray) -> None:
        """out[j]: the game's hash of numbered position idx[j]."""
        if self.index is None:
            out[:] = idx
        else:
            self.index.select_all(idx, out)

    def canonical(self, i: int) -> int:
        return i if self.index is not None else self.game.canonical(i)

    def to_string(self, i: int) -> str:
        return self.game.to_string(self.slot(i))

    def from_string(self, s: str) -> int:
        return self.number(self.game.from_string(s))

    def move_name(self, i: int, code: int) -> str:
        return self.game.move_name(self.slot(i), code)

    def primitive_value(self, i: int) -> int:
        return self.game.primitive_value(self.slot(i))

    def moves(self, i: int) -> list[tuple[int, int]]:
        return [(m, self.number(c)) for m, c in self.game.moves(self.slot(i))]


def solve_module(game: Game | Numbering) -> str:
    """The module a solve of `game` binds its kernels to, found without building an
    index: a symmetric solve runs compact (solver/methods/solve.py `numbered`)."""
    if not isinstance(game, Numbering) or not game.symmetry or game.index is not None:
        return game.module
    from solver.kernels.compact import wrapper
    from solver.kernels.direct import numbers_itself

    rules = game.game.module
    return wrapper(game.module, rules if numbers_itself(game.game) else None).__name__


# -- what a store records of a numbering -------------------------------------------------
INDEX = "index"  # the canonical slots of a compact database (solver/kernels/compact.py)
KINDS = ("canonical", "direct")  # attribute `index`: stored bits, or the game's numbering


def index_attrs(game: Numbering) -> dict:
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
