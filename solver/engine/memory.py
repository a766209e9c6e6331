"""The memory model of a tier task: every byte formula of the tier engine, and the one
choice made from them, `strategy`: how a task runs within its memory (its reach mode, its
solve mode) and what each holds. The planner (engine/plan.py), the budget check
(methods/estimate.py), `gsolve plan` (command/plan.py) and the worker (engine/worker.py)
all ask it, so what is planned is what runs.

Reach modes (parents first, engine/reach_*.py):
* window: a byte per slot of the task's own range and whole child tiers;
* far: the own range, and its children in other tasks collected as sorted hashes;
* paged: the own bytes and the far children in scratch files, a part at a time.
Solve modes (children first, engine/solve_*.py):
* fast: the window's records, and a loopy tier's retrograde with sorted events and a queue;
* lean: the same records, the retrograde's levels found by scanning the tier instead;
* paged: records, counters and event levels in scratch files, a part and a page at a time.

A task's child slots its solve reads are known only after its reach (`needs`); the plan
guesses them as at most FAN times its own positions. The model imports no other module
of the engine: everything else asks it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from games.base import Game
from solver.kernels.records import record_dtype
from solver.runtime.parallel import threads
from solver.storage import database

GIB = 1 << 30
BASE = 400 << 20  # bytes a solving process holds besides its task (interpreter, numba, zarr)
FAR_BUFFER = 1 << 22  # far-child slots of a reach block (32 MiB) before they are sorted
LEAN_BATCH = 1 << 14  # frontier entries a lean scan part collects before their parents
NOTES = 1 << 20  # parent notices a paged task gathers at a time
REACH_BUFFER = 1 << 18  # children a paged reach block collects for other parts and pages
WRITE = 1 << 24  # positions a task stores at a time (their value and remoteness buffers)
FAN = 4  # planning guess: a task's solve reads at most this many times its own size of
# child positions (the exact ranges are known after its reach phase, and checked then)

WINDOW, FAR, FAST, LEAN, PAGED = "window", "far", "fast", "lean", "paged"
REACH_MODES, SOLVE_MODES = (WINDOW, FAR, PAGED), (FAST, LEAN, PAGED)


@dataclass(frozen=True)
class Strategy:
    """How a task runs: its reach and solve modes and the bytes each holds (planned). A
    strategy given to the worker (tests, benchmarks) forces the modes it names (None: as
    the model chooses) and, where `parts` is given, the paged modes' sizes: (part, page)
    of the reach and (fold part, page, level part) of the solve, from (part, page, level)."""

    reach: str | None = None
    solve: str | None = None
    reach_bytes: int = 0
    solve_bytes: int = 0
    slowdown: float = 1.0  # the solve's time over its time at full speed
    parts: tuple[int, int, int] | None = None

    def __post_init__(self):
        if self.reach not in (None, *REACH_MODES) or self.solve not in (None, *SOLVE_MODES):
            raise ValueError(f"no such reach or solve mode: {self.reach!r}, {self.solve!r}")

    @property
    def bytes(self) -> int:
        """The task's planned memory: the larger phase."""
        return max(self.reach_bytes, self.solve_bytes)


def strategy(game: Game, own: int, kids: int, limit: int = 0, read: int | None = None,
             forced: Strategy | None = None, terms: Terms | None = None) -> Strategy:
    """How a task of `own` positions whose child tiers hold `kids` slots runs within
    `limit` bytes (0: any), its solve reading `read` child slots (default: the plan's
    guess, at most FAN times `own`). `terms`: the game's (`Terms.of(game)`), where a caller
    asks of many tasks.

    Reach: in a window where twice its bytes fit `limit`, else with far children as
    hashes where they fit, else paged. Solve: fast where its window of records fits,
    else lean where that fits, else paged. Where the whole task fits at full speed its
    reach is planned as collecting far children (the bound the plan cuts tasks by), and
    else its solve as the lesser of fast and lean; a paged phase is planned at `limit`
    (its parts grow to fill it), at least its least."""
    g = terms or Terms.of(game)
    far = min(kids, FAN * own) if read is None else read
    collect = own + 8 * min(kids, FAN * own) + g.block * g.threads
    fast = g.slot * (own + far)
    at_full = not limit or max(collect, fast) <= limit
    if at_full and forced is None:
        reach = WINDOW if not limit or 2 * (own + kids) <= limit else FAR
        return Strategy(reach, FAST, collect, fast)
    lean = g.lean(own, far)
    reach = (WINDOW if not limit or 2 * (own + kids) <= limit else
             PAGED if collect > limit else FAR)
    solve = FAST if not limit or fast <= limit else LEAN if lean <= limit else PAGED
    if forced is not None:
        reach, solve = forced.reach or reach, forced.solve or solve
    reach_bytes = {WINDOW: collect if at_full else min(collect, own + kids), FAR: collect,
                   PAGED: max(g.reach_least, limit)}[reach]
    solve_bytes = {FAST: fast if at_full else min(fast, lean), LEAN: lean,
                   PAGED: max(g.paged_least, limit) if g.pages else min(fast, lean)}[solve]
    slow = 1.0
    if solve == PAGED and g.pages and limit and limit >= g.paged_least:
        slow = paged_slowdown(min(fast, lean) / limit)
    return Strategy(reach, solve, int(reach_bytes), int(solve_bytes), slow,
                    forced.parts if forced is not None else None)


def least_bytes(game: Game, own: int, kids: int, terms: Terms | None = None) -> int:
    """The least memory a worker runs such a task in: its reach in a window where that
    is less than collecting far children, or paged; its solve at full speed, lean, or
    paged (where the game can be), whichever holds least."""
    g = terms or Terms.of(game)
    far = min(kids, FAN * own)
    reach = min(own + 8 * far + g.block * g.threads, 2 * (own + kids), g.reach_least)
    solve = min(g.slot * (own + far), g.lean(own, far))
    return max(reach, min(solve, g.paged_least) if g.pages else solve)


@dataclass(frozen=True)
class Terms:
    """A game's terms of the model, per slot or per task, taken once where many tasks are
    asked about (the planner)."""

    record: int  # a solve-time record (value and remoteness in one word)
    stored: int  # a stored remoteness
    retro: int  # the fast retrograde's arrays per position of a loopy tier (0: none runs)
    retro_lean: int  # ... the lean one's
    parents: int  # the most parents a position has
    block: int  # one reach block's far-child buffer
    threads: int
    pages: bool  # whether a task can solve paged
    paged_least: int
    reach_least: int

    @staticmethod
    def of(game: Game) -> Terms:
        return Terms(record_bytes(game), stored_bytes(game), retro_bytes(game),
                     retro_bytes(game, lean=True), max_parents(game), block_bytes(game),
                     threads(), can_page(game), paged_least_bytes(game),
                     reach_least_bytes(game))

    @property
    def slot(self) -> int:
        """A window slot while a task runs: its record, the reach byte, and the stored
        value and remoteness read or written beside it (and, bounding them by the window,
        the retrograde arrays of its loopy tiers)."""
        return 2 * self.record + 2 + self.stored + self.retro

    def lean(self, own: int, kids: int) -> int:
        """A task's solve in the lean mode: a record a slot, and for each own position the
        larger of its reach byte (read before the tier is solved) and the lean
        retrograde's arrays; besides them the buffers of one piece of the write and of
        the lean levels' frontier batches (each part's, their concatenation and the
        parents gathered of it)."""
        n = min(LEAN_BATCH, own) * self.threads
        return (self.record * (own + kids) + own * max(1, self.retro_lean)
                + min(WRITE, own) * (1 + self.stored) + 4 * n * 2 + 4 * n * self.parents)


# -- a window slot, and the lean mode ------------------------------------------------------
def record_bytes(game: Game) -> int:
    """A solve-time record (value and remoteness in one word)."""
    return np.dtype(record_dtype(game.max_remoteness)).itemsize


def records_bytes(game: Game, slots: int) -> int:
    """A window of `slots` solve-time records."""
    return slots * record_bytes(game)


def stored_bytes(game: Game) -> int:
    """A stored remoteness."""
    return np.dtype(database.remoteness_dtype(game.max_remoteness)).itemsize


def slot_bytes(game: Game) -> int:
    """Memory of a window slot while a task runs (Terms.slot)."""
    return Terms.of(game).slot


def lean_bytes(game: Game, own: int, kids: int) -> int:
    """Memory of a task's solve phase in the lean mode (Terms.lean)."""
    return Terms.of(game).lean(own, kids)


def counter_dtype(game: Game):
    """Child counters of the retrograde, with room for one more count and a `never` value."""
    return np.uint8 if game.max_children + 1 < 255 else np.uint16


def max_parents(game: Game) -> int:
    """The most parents a position has (its children's bound where the game says none)."""
    return max(1, int(getattr(game, "max_parents", game.max_children)))


def retro_bytes(game: Game, lean: bool = False) -> int:
    """Memory of the retrograde per position of the loopy tier it runs on (0 when it does
    not run): counter and event level, and (not `lean`) sorted events and frontier queue."""
    if not game.has_parents or not game.loopy:
        return 0
    return np.dtype(counter_dtype(game)).itemsize + record_bytes(game) + (0 if lean else 8)


def block_bytes(game: Game) -> int:
    """Memory of one reach block's far-child buffer."""
    return 8 * block_slots(game) * game.max_children


def block_slots(game: Game) -> int:
    """Positions a reach block expands at a time (their far children fill FAR_BUFFER)."""
    return max(1, FAR_BUFFER // game.max_children)


# -- paged tasks ---------------------------------------------------------------------------
def can_page(game: Game) -> bool:
    """Whether a task of the game can solve paged: a loopy tier needs un-moves."""
    return game.has_parents or not game.loopy


def paged_slowdown(over: float) -> float:
    """A paged task's time over its full-speed time, where the lean mode would need
    `over` times the task's memory: measured on Nine's move W5 B5 (2.6, 3.2 and 6.3 times
    at 2.3, 4.5 and 9 times; benchmarks/results/2026-11-28-paged.md), a little over each."""
    return max(2.6, 0.75 * over)


def average_slowdown(tasks) -> float:
    """The slowdown of (size, slowdown) pairs, weighted by size (1.0 for none)."""
    total = weighted = 0.0
    for size, slow in tasks:
        total += size
        weighted += size * slow
    return weighted / total if total else 1.0


def paged_state_bytes(game: Game) -> int:
    """Bytes a paged part holds per position: its record, and a loopy tier's counter,
    event level and slowest WIN child (the loop-free fold's best child in the last)."""
    return 3 * record_bytes(game) + np.dtype(counter_dtype(game)).itemsize + 1  # + reach byte


def paged_level_bytes(game: Game) -> int:
    """Bytes a paged part of the levels holds per position: record, counter, event level."""
    return 2 * record_bytes(game) + np.dtype(counter_dtype(game)).itemsize


def paged_buffer_bytes(game: Game) -> int:
    """A paged part's frontier batch, its notices and a chunk read."""
    return (paged_batch(game) + NOTES) * 8 + 4 * database.CHUNK


def paged_batch(game: Game) -> int:
    """Frontier entries a paged part scans at a time: their parents fill the notices."""
    return max(1, NOTES // max_parents(game))


def paged_least_bytes(game: Game) -> int:
    """The least memory a paged solve runs in: a store chunk of part and of page."""
    return (database.CHUNK * (paged_state_bytes(game) + record_bytes(game))
            + paged_buffer_bytes(game))


def paged_sizes(game: Game, own: int, slots: int, limit: int,
                chunk: int) -> tuple[int, int, int]:
    """(fold part positions, page slots, level part positions) of a paged solve within
    `limit`. A fold generates every part's children once per page, so the page takes
    most of the memory and a fold part an eighth of it (whole chunks, at least one); the
    levels hold no page, so their parts take all of it."""
    rec, state = record_bytes(game), paged_state_bytes(game)
    room = limit - paged_buffer_bytes(game)
    part = min(own, max(chunk, room // 8 // state // chunk * chunk))
    page = min(slots, max(chunk, (room - part * state) // rec))
    level = min(own, max(part, room // paged_level_bytes(game)))
    return int(part), int(page), int(level)


def pool_bytes(shapes) -> int:
    """Bytes of arrays of (dtype, length) laid one after another, each 8-byte aligned."""
    return sum(-(-np.dtype(d).itemsize * n // 8) * 8 for d, n in shapes)


def reach_least_bytes(game: Game) -> int:
    """The least memory a paged reach runs in: a chunk of the task's bytes, a chunk-sized
    page of far marks, each thread's notice and far buffers, and a read of a notice file."""
    return 2 * database.CHUNK + 2 * REACH_BUFFER * 8 * threads() + NOTES * 8


def reach_sizes(own: int, slots: int, limit: int) -> tuple[int, int]:
    """(part positions, page slots) of a paged reach within `limit`, each at least a chunk."""
    room = max(0, limit - 2 * REACH_BUFFER * 8 * threads() - NOTES * 8)
    chunk = database.CHUNK
    part = min(own, max(chunk, room // 2 // chunk * chunk))
    page = min(max(1, slots), max(chunk, room - part))
    return int(part), int(page)


def default_budget() -> int:
    """The memory a solve is given by default: most of what is available now
    (MemAvailable, capped by $GSOLVE_MEMORY)."""
    from solver.runtime.env import available_memory

    have = available_memory()
    return int(0.85 * have) if have else 8 * GIB
