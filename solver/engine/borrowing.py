"""Borrowed tiers: a task whose reached positions another store of the same game already
holds solved takes their records from it instead of solving them.

The other store holds a superset: a solve of the same game, variant and numbering from
other starts, such as benchmarks/morris_movement.py's box of every Nine Men's Morris
movement board (the movement half of Nine's 36.9 G indices, solved whole, once). A
position's value and remoteness depend only on the positions below it, so a record
there is the record a solve here writes: the database is the same, byte for byte. A task
with one reached position the other store lacks is solved as usual, whole (it rewrites
its range, so nothing half-borrowed stays); a primitive valued otherwise there is no
store of this game, and stops the solve.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from games.base import Game, GsolveError
from solver.engine.task import REACHED, TEMPLATE, WRITE, Task, write_records
from solver.kernels.numbering import index_attrs
from solver.kernels.records import adopt_records, record_dtype
from solver.runtime.parallel import call

SAME = ("game", "variant_key", "symmetry", "hash_size", "index", "stored", "index_digest")


class Donor:
    """The value and remoteness arrays of a store to borrow from (read only)."""

    def __init__(self, game: Game, path: str | Path):
        from solver.storage import stores
        from solver.storage.chunks import ChunkGroup

        where = Path(path)
        if not (where / "zarr.json").exists():
            raise GsolveError(f"--borrow {path}: no store there (a database folder, or an "
                              "unfinished solve's .partial folder)")
        try:
            group = ChunkGroup(stores.open_group(where, "r"), ("value", "remoteness"))
            attrs = dict(group.attrs)
            self.value, self.remoteness = group["value"], group["remoteness"]
        except Exception as e:
            raise GsolveError(f"--borrow {path}: not a gsolve store ({type(e).__name__})") from None
        ours = {"game": game.name, "variant_key": game.variant_key,
                "symmetry": bool(game.symmetry), **index_attrs(game)}
        differ = [k for k in SAME if attrs.get(k) != ours.get(k)]
        if differ:
            raise GsolveError(f"--borrow {path}: a store of {attrs.get('game')} "
                              f"{attrs.get('variant_key')} numbered otherwise ({differ[0]} "
                              f"{attrs.get(differ[0])!r}, here {ours.get(differ[0])!r}): "
                              "it must be this game and variant, with the same --symmetry")
        if self.value.shape[0] != game.hash_size:
            raise GsolveError(f"--borrow {path}: {self.value.shape[0]:,} positions, "
                              f"here {game.hash_size:,}")
        self.path = where
        self._held: set[int] | None = None

    def records(self, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
        """The store's value and remoteness of [a, b); a chunk of them that does not read
        back (its checksum fails) is a GsolveError naming it, not zarr's ValueError."""
        try:
            return self.value[a:b], self.remoteness[a:b]
        except Exception:
            for name, arr in (("value", self.value), ("remoteness", self.remoteness)):
                for c in range(a // arr.chunk, (b - 1) // arr.chunk + 1):
                    what = arr.damage(c)
                    if what not in (None, "missing"):
                        raise GsolveError(f"--borrow {self.path}: chunk {c} of {name} is "
                                          f"{what}: mend the store or leave out "
                                          "--borrow") from None
            raise

    def holds(self, a: int, b: int) -> bool:
        """Whether the store has written every value chunk of [a, b): the tasks a solve
        expects to borrow, before its reach says (its ETA leaves their work out)."""
        from solver.storage.chunks import present_chunks

        if self._held is None:
            try:
                self._held = set(present_chunks(self.path / "value"))
            except OSError:
                self._held = set()
        chunk = self.value.chunks[0]
        return b > a and all(c in self._held for c in range(a // chunk, (b - 1) // chunk + 1))


def borrow(game: Game, group, task: Task, donor: Donor, lock=None,
           tally: np.ndarray | None = None) -> int | None:
    """Write the task's range from `donor`; returns the positions decided, or None (nothing
    written) when the donor lacks one of its reached positions."""
    from solver.kernels.codegen import kernels

    k = kernels(game.module, TEMPLATE)
    own = np.empty(task.size, record_dtype(game.max_remoteness))
    reached = group[REACHED]
    for x in range(task.a, task.b, WRITE):  # a task the donor lacks ends at its first part
        y = min(task.b, x + WRITE)
        part = own[x - task.a:y - task.a]
        call(k.mark_primitives, part, reached[x:y], x, y, -x, x)
        got = call(adopt_records, part, *donor.records(x, y))
        if got == -1:
            continue
        if got >= 0:
            return None
        raise GsolveError(f"--borrow {donor.path}: its position {x - 2 - got:,} is "
                          "valued otherwise than this game's primitive there: not a "
                          "store of this game's rules")
    return write_records(own, -task.a, task.a, task.b, group["value"], group["remoteness"],
                         lock, tally)
