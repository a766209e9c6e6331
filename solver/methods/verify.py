"""`gsolve verify`: check a stored database against the game's rules, not against itself.

Every chunk is read (so every checksum and chunk digest is checked); from the start, what
is reachable is marked and each reachable position is re-derived from the stored records
of its children with the solvers' DESIGN.md rules (solver/kernels/verify.py). Local
consistency at every reachable position is enough: a stored win, loss or tie has a
remoteness, and each is justified by a child with a smaller one, down to primitives
checked against the game, so no wrong value can justify itself around a cycle. Then:
every reachable slot is stored and every other slot is empty; the counts in the
attributes are those of the arrays; the position strings of a random sample of reachable
positions parse back to the same hash.

Two ways to hold it, with the same checks and the same guarantee:

* whole (when 2 bytes and the remoteness a slot fit `memory`): the value and remoteness
  arrays and a mark byte per slot, one parallel sweep after another over the hash (tiers
  parents first). The fast path.
* tier by tier (a game with tiers, any size): the hash cut into tasks as the tiered solver
  cuts it (solver/engine/plan.py: whole tiers grouped up to a size, a loop-free tier in
  pieces of whole chunks, a loopy tier whole), taken parents first. A task holds its own
  range (value, remoteness, a mark and a fold of its children's keys: 7 bytes a position
  with one-byte remoteness) and reads the slots of its child tiers a page at a time. Its
  reach marks come from the tasks above it, through a store of a byte a slot in scratch
  (compressed, in $GSOLVE_SCRATCH or the system's temporary folder, removed at the end):
  it expands its reached positions (to a fixed point inside a loopy tier), marking and
  folding the children in its own range and in the first page, then folds every further
  page, pushes each page's marks into the scratch store, and compares every reached
  position with what its children give. Reachability is exact: a move leads only into a
  tier's own tier or a child tier, whose tasks come after it, so when a task is taken
  every parent of its positions has pushed its marks; a move into a tier the game does not
  list as a child is reported as a wrong tier list, never passed over. So it checks what
  the whole mode checks, slot for slot. The least it needs is the largest task's own range
  (a loopy tier is never cut: Nine Men's Morris with symmetry needs 9 GiB for its `move W8
  B8`), a quarter chunk's page and two cached chunks; with less `memory` it refuses with
  that figure.

`sample` (`gsolve verify --sample N`, and a solve's check of itself): N random stored
positions (from random chunks), the start and the start's children, each re-derived from
the stored records of its children, which must be stored; and the round-trip of their
position strings. Reachability is not checked, nor the counts (a solve's check counts
every value chunk against its tally).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from games.base import VALUE_WORDS, Game, GsolveError, shown_remoteness
from solver.kernels.codegen import kernels
from solver.runtime.parallel import _executor, call, run_blocks
from solver.runtime.parallel import threads as _pool_threads
from solver.runtime.progress import Progress
from solver.storage.database import (
    DamagedDatabase,
    Database,
    command,
    group_path,
    partial_path,
    remoteness_dtype,
)
from solver.storage.index import numbering

TEMPLATE = "solver.kernels.verify"
SHIFT = 4  # solver.kernels.records: remoteness above the value code in a record
GIB = 1 << 30
OWN_BYTES = 7  # a task's own position (tier by tier): value, mark, fold (int32), + remoteness
PAGE_BYTES = 2  # a page slot: value, mark, + remoteness
PER_CHUNK = 1000  # --sample: positions taken from each chunk read for them
SELF_CHUNKS = 4  # a solve's check: chunks its 10,000 positions come from (besides the start)


@dataclass
class Problem:
    text: str
    position: str | None = None
    hash: int | None = None


@dataclass
class Report:
    game: str
    variant: str
    database: str
    sound: bool = True
    reachable: int = 0
    stored: int = 0
    slots: int = 0
    chunks: int = 0
    sampled: int = 0
    problems: int = 0
    details: list[Problem] = field(default_factory=list)
    seconds: float = 0.0
    symmetry: bool = False  # solved on canonical positions only: those are checked
    mode: str = "whole"  # "whole", "tiers" (a task at a time) or "sample" (--sample)
    derived: int = 0  # positions re-derived from their children (--sample: the sample)
    tasks: int = 0  # (tiers) tasks the hash was cut into
    memory: int = 0  # (tiers) bytes the tasks were planned to hold

    def add(self, text: str, position: str | None = None, h: int | None = None,
            count: int = 1) -> None:
        self.sound = False
        self.problems += count
        self.details.append(Problem(text, position, h))

    def to_dict(self) -> dict:
        return asdict(self)


def _word(v: int, r: int, puzzle: bool) -> str:
    word = VALUE_WORDS.get(v, f"code {v}")
    shown = shown_remoteness(v, r, puzzle) if v in VALUE_WORDS else None
    return word if shown is None else f"{word} in {shown}"


def _position(game: Game, h: int) -> str:
    try:
        return game.to_string(int(h))
    except Exception:
        return f"hash {h}"


def _text(code: int, v: int, r: int, want: int, puzzle: bool) -> str:
    """What is wrong with a slot, by its problem code (solver/kernels/verify.py)."""
    stored = _word(v, r, puzzle)
    return {
        1: "reachable from the start but not stored",
        2: f"stored ({stored}) but not reachable from the start",
        3: f"stored value code {v} is no value",
        4: f"stored {stored}, but the game is over there: {_word(want & 7, 0, puzzle)} in 0",
        5: f"stored {stored}, but its children give {_word(want & 7, want >> SHIFT, puzzle)}",
        6: f"unreachable, yet stores remoteness {r}",
        7: "reached, but never expanded: a move leads into it from a tier the game does "
           "not list as its parent",
    }[code]


def warm_up(game: Game, rem_dtype) -> None:
    k = kernels(game.module, TEMPLATE)
    v = np.zeros(1, np.uint8)
    r = np.zeros(1, rem_dtype)
    m = np.zeros(1, np.uint8)
    mc, ss = game.max_children, game.scratch_size
    k.sweep(game.ctx, v, r, m, 0, 0, 0, 0, game.puzzle, mc, ss)
    k.count_problems(v, r, m, 0, 0)
    found = np.zeros(1, np.int64)
    k.first_problems(game.ctx, v, r, m, 0, 0, game.puzzle, mc, ss, found, found.copy(),
                     found.copy())


def _warm_tiers(game: Game, rem_dtype) -> None:
    """Compile (or load) the kernels of the tier-by-tier mode for these array types."""
    k = kernels(game.module, TEMPLATE)
    v, r, m = np.zeros(1, np.uint8), np.zeros(1, rem_dtype), np.zeros(1, np.uint8)
    acc, i64 = np.zeros(1, np.int32), np.zeros(1, np.int64)
    mc, ss = game.max_children, game.scratch_size
    for first in (True, False):
        k.expand(game.ctx, m, v, r, acc, 0, 0, i64, i64, i64, i64, i64, v, r, m, i64, 0, 0, 0,
                 0, first, game.puzzle, mc, ss)
    k.settle(m, v, r, acc, 0, 0, 0, game.puzzle)
    k.count_codes(m, v, r, 0, 0, 0)
    k.list_codes(m, v, r, acc, 0, 0, 0, i64, i64, i64)
    k.tally(v, r, np.zeros(256, np.int64), game.puzzle)


def verify(game: Game, root: str | Path | None = None, progress: Progress | None = None,
           show: int = 10, sample: int = 1000, seed: int = 0, memory: int | None = None,
           positions: int | None = None) -> Report:
    """Check the database of `game` under `root`; at most `show` problems are detailed.

    `memory`: bytes the check may hold (default: most of what is available); the whole
    database when it fits, else a task of tiers at a time. `positions` (--sample): only
    that many random stored positions, the start and its children, re-derived.
    `sample`: the position strings checked to round-trip.

    A missing database (or another game's) is a DatabaseError, as for a query; anything
    wrong with the one that is there is in the report."""
    progress = progress or Progress()
    t0 = time.perf_counter()
    path = group_path(root, game)
    report = Report(game.name, game.variant_key, str(path), slots=game.hash_size)
    try:
        db = Database(path, game, check=False)
    except DamagedDatabase as e:
        report.add(e.what)
        report.seconds = time.perf_counter() - t0
        return report
    bad_chunks: list[tuple[int, str]] = []  # damaged or missing: named with a position
    for _kind, text, c in db.problems:
        if c >= 0:
            bad_chunks.append((c, text))
        else:
            report.add(text)
    if db.attrs.get("symmetry") and not getattr(game, "symmetry", False):
        from solver.kernels.symmetry import apply  # canonical positions only: walk those

        apply(game, True)
        report.symmetry = True
    if db.index is not None:  # compact: positions by canonical index
        game = db.numbered_game()
    budget = memory or default_memory()
    whole = game.hash_size * (2 + db.remoteness_array.dtype.itemsize)
    if positions is not None:
        _sample(game, db, report, bad_chunks, positions, seed, show, sample, progress)
    elif whole <= budget:
        _whole(game, db, report, bad_chunks, show, sample, seed, progress)
    elif game.tiers():
        _tiers(game, db, report, bad_chunks, budget, show, sample, seed, progress)
    else:
        raise GsolveError(
            f"verifying {game.describe()} needs about {_size(whole)} (value, remoteness and "
            f"a byte per hash slot), more than the {_size(budget)} of --memory, and the game "
            "has no tiers to check one at a time: raise --memory, or check a sample with "
            "--sample N")
    report.seconds = time.perf_counter() - t0
    return report


def default_memory() -> int:
    """Most of the memory available now (as a tiered solve's budget)."""
    from solver.runtime.env import available_memory

    have = available_memory()
    return int(0.85 * have) if have else 8 * GIB


def _size(b: int) -> str:
    return f"{b / GIB:,.2f} GiB" if b >= GIB else f"{b / (1 << 20):,.1f} MiB"


# -- the whole database in memory -----------------------------------------------------------
def _whole(game: Game, db: Database, report: Report, bad_chunks: list, show: int,
           sample: int, seed: int, progress: Progress) -> None:
    n, puzzle = game.hash_size, game.puzzle

    # 1. every chunk, checksums and all, into memory; counts as they come
    value = np.zeros(n, np.uint8)
    rem = np.zeros(n, db.remoteness_array.dtype)
    counts = np.zeros(256, np.int64)
    for c in range(db.nchunks):
        a = c * db._chunk
        try:
            v, r = db.read_chunk(c)
        except DamagedDatabase as e:
            if (c, e.what) not in bad_chunks:  # a missing chunk: the listing named it
                bad_chunks.append((c, e.what))
            continue
        value[a:a + len(v)] = v
        rem[a:a + len(r)] = r
        counts += np.bincount(v, minlength=256)
        progress.fraction((c + 1) / db.nchunks)
    report.chunks = db.nchunks
    progress.update("read", db.nchunks, f"{db.nchunks:,} chunks")

    # 2. reach from the start, re-deriving each reached position (tiers parents first)
    k = kernels(game.module, TEMPLATE)
    warm_up(game, rem.dtype)
    mark = np.zeros(n, np.uint8)
    mark[game.start] = 1
    mc, ss = game.max_children, game.scratch_size
    args = (game.ctx, value, rem, mark)
    tiers = game.tiers()
    if tiers:
        from solver.engine.plan import check_tiers

        for step, t in enumerate(reversed(check_tiers(game, tiers))):
            tier = tiers[t]
            # one sweep, or to a fixed point when moves can stay in the tier
            while (run_blocks(k.sweep, args, tier.start, tier.stop, tier.start, tier.stop,
                              puzzle, mc, ss, progress=progress) > 0 and t in tier.children):
                pass
            progress.update("reach and re-derive", step + 1, f"tier {tier.label}")
    sweep = 0
    while run_blocks(k.sweep, args, 0, n, 0, n, puzzle, mc, ss, progress=progress) > 0:
        sweep += 1
        progress.update("reach and re-derive", sweep, "")

    # 3. what is wrong: damaged chunks first, each with a reachable position it held
    for c, text in bad_chunks:
        a = c * db._chunk
        there = np.flatnonzero(mark[a:a + db._chunk])
        if there.size:
            pos = _position(game, a + int(there[0]))
            report.add(f"{text}, e.g. {pos}", pos, a + int(there[0]))
        else:
            report.add(text)
    bad = run_blocks(k.count_problems, (value, rem, mark), 0, n)
    report.reachable = int(np.count_nonzero(mark))
    report.stored = int(counts[1:].sum())
    if bad:
        found = np.zeros(show, np.int64)
        codes = np.zeros(show, np.int64)
        wanted = np.zeros(show, np.int64)
        got = k.first_problems(game.ctx, value, rem, mark, 0, n, puzzle, mc, ss, found, codes,
                               wanted)
        for i in range(got):
            h, code, want = int(found[i]), int(codes[i]), int(wanted[i])
            pos = _position(game, h)
            text = _text(code, int(value[h]), int(rem[h]), want, puzzle)
            report.details.append(Problem(f"{pos}: {text}", pos, h))
        report.sound = False
        report.problems += int(bad)

    # 4. the attributes say what the arrays hold (not worth repeating for lost chunks)
    if not bad_chunks:
        has = (value == 4) | (value == 3) | ((value == 1) & (not game.puzzle))
        longest = int(rem[has].max()) if has.any() else 0
        del has
        _check_attrs(report, db.attrs, game, counts, longest, int(value[game.start]),
                     int(rem[game.start]), rem.dtype)

    # 5. position strings round-trip on a sample of reachable positions
    rng = np.random.default_rng(seed)
    if n <= 1 << 22:  # small: choose among the reachable positions themselves
        reach = np.flatnonzero(mark)
        picks = rng.choice(reach, size=min(sample, reach.size), replace=False)
    else:  # large: random slots, keeping the reachable ones
        picks = np.unique(rng.integers(0, n, size=min(64 * sample, 1 << 24)))
        picks = rng.permutation(picks[mark[picks] != 0])
    _round_trip(game, report, picks, sample)


def _round_trip(game: Game, report: Report, picks: np.ndarray, sample: int) -> None:
    """The position strings of the start and of `picks` (up to `sample` in all) parse back
    to their hash."""
    picks = np.asarray(picks, np.int64)
    picks = np.concatenate(([game.start], picks[picks != game.start][:max(0, sample - 1)]))
    for h in picks:
        h = int(h)
        try:
            text = game.to_string(h)
            back = game.from_string(text)
        except Exception as e:
            report.add(f"hash {h}: its position string does not round-trip "
                       f"({type(e).__name__}: {e})", None, h)
            continue
        if back != h:
            report.add(f"{text}: parses to hash {back}, not {h}", text, h)
    report.sampled = len(picks)


# -- a task of tiers at a time -------------------------------------------------------------
class _Chunks:
    """Decoded chunks (value, remoteness) of a database, the least recently used dropped
    past `limit` bytes. A chunk that fails (checksum, digest, missing) reads as zeros and
    is named once in `bad`, (chunk, what), as the whole mode names it."""

    def __init__(self, read, chunk: int, size: int, dtype, limit: int, bad: list):
        self.read, self.chunk, self.size, self.dtype = read, chunk, size, np.dtype(dtype)
        self.limit, self.bad = limit, bad
        self.held: OrderedDict[int, tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self.bytes = 0

    def get(self, c: int) -> tuple[np.ndarray, np.ndarray]:
        got = self.held.get(c)
        if got is not None:
            self.held.move_to_end(c)
            return got
        try:
            got = self.read(c)
        except DamagedDatabase as e:
            if all(b != c or t != e.what for b, t in self.bad):
                self.bad.append((c, e.what))
            m = min(self.size, (c + 1) * self.chunk) - c * self.chunk
            got = (np.zeros(m, np.uint8), np.zeros(m, self.dtype))
        self.held[c] = got
        self.bytes += got[0].nbytes + got[1].nbytes
        while self.bytes > self.limit and len(self.held) > 1:
            _, (v, r) = self.held.popitem(last=False)
            self.bytes -= v.nbytes + r.nbytes
        return got

    def copy(self, lo: int, hi: int, v_out: np.ndarray, r_out: np.ndarray) -> None:
        """value and remoteness of [lo, hi) into v_out, r_out."""
        ch = self.chunk
        for c in range(lo // ch, -(-hi // ch)):
            s = c * ch
            x, y = max(lo, s), min(hi, s + ch)
            v, r = self.get(c)
            v_out[x - lo:y - lo] = v[x - s:y - s]
            r_out[x - lo:y - lo] = r[x - s:y - s]


class _Marks:
    """Reach marks pushed to tasks not yet checked: a byte a slot in a compressed store
    (a chunk file each) in $GSOLVE_SCRATCH or the system's temporary folder."""

    def __init__(self, n: int, chunk: int):
        from solver.storage import stores
        from solver.storage.chunkio import chunk_array
        from solver.storage.database import create_array

        root = os.environ.get("GSOLVE_SCRATCH") or tempfile.gettempdir()
        os.makedirs(root, exist_ok=True)
        _remove_orphans(root)
        self.path = tempfile.mkdtemp(prefix=f"gsolve-verify-{os.getpid()}-", dir=root)
        group = stores.open_group(Path(self.path), "w")
        self.arr = chunk_array(create_array(group, "reached", (n,), np.uint8, chunk=chunk,
                                            scratch=True))
        self.chunk = chunk

    def read(self, lo: int, hi: int, out: np.ndarray) -> None:
        ch = self.chunk
        for c in range(lo // ch, -(-hi // ch)):
            s = c * ch
            x, y = max(lo, s), min(hi, s + ch)
            out[x - lo:y - lo] = self.arr.read_chunk(c)[x - s:y - s]

    def push(self, lo: int, marks: np.ndarray) -> None:
        """Marks of [lo, lo + len(marks)) into the store (the larger byte wins)."""
        ch, hi = self.chunk, lo + marks.size
        for c in range(lo // ch, -(-hi // ch)):
            s = c * ch
            x, y = max(lo, s), min(hi, s + ch)
            part = marks[x - lo:y - lo]
            if not part.any():
                continue
            cur = self.arr.read_chunk(c).copy()
            np.maximum(cur[x - s:y - s], part, out=cur[x - s:y - s])
            self.arr.write_chunk(c, cur)

    def close(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


def _remove_orphans(root: str) -> None:
    """Scratch folders of verifies whose process is gone (killed runs)."""
    for name in os.listdir(root):
        if not name.startswith("gsolve-verify-"):
            continue
        try:
            pid = int(name.split("-")[2])
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)
        except (ValueError, IndexError, PermissionError):
            pass


def _pages(parts: list[tuple[int, int]], size: int) -> list[list[tuple[int, int]]]:
    """Hash intervals `parts` (sorted) in pages of at most `size` slots."""
    pages: list[list[tuple[int, int]]] = []
    page: list[tuple[int, int]] = []
    held = 0
    for x, y in parts:
        while x < y:
            take = min(y - x, size - held)
            page.append((x, x + take))
            held += take
            x += take
            if held == size:
                pages.append(page)
                page, held = [], 0
    if page:
        pages.append(page)
    return pages


def tier_plan(game: Game, budget: int, rem_itemsize: int, chunk: int):
    """The tasks of a tier-by-tier check within `budget` bytes: (plan, own slots of the
    largest task, page slots). A third of the budget bounds a task's own range (a loopy
    tier is held whole, whatever its size); a page takes what is left beside two cached
    chunks. GsolveError when even the least does not fit: the largest task, a page of a
    quarter chunk and two chunks."""
    from solver.engine.plan import plan, task_cap

    own_bytes = OWN_BYTES - 1 + rem_itemsize
    page_bytes = PAGE_BYTES + rem_itemsize
    cache = 2 * chunk * (1 + rem_itemsize)
    most = max(1, min(task_cap(game.hash_size), budget // 3 // own_bytes))
    p = plan(game, None, chunk=chunk, max_task=most)
    own = max(t.size for t in p.tasks)
    outside = max(sum(e - s for s, e in t.segments) - t.size for t in p.tasks)
    least = own * own_bytes + min(outside, max(1, chunk // 4)) * page_bytes + cache
    if least > budget:
        big = max(p.tasks, key=lambda t: t.size)
        what = (f"tier {p.tiers[big.pieces[0][0]].label}, held whole"
                if len(big.pieces) == 1 and big.pieces[0][3] else f"{len(big.pieces):,} "
                "tier pieces")
        raise GsolveError(
            f"verifying {game.describe()} a task at a time needs at least {_size(least)}, "
            f"more than the {_size(budget)} of --memory (its largest task, {what}, holds "
            f"{own:,} positions, {own_bytes} bytes each): raise --memory, or check a sample "
            "with --sample N")
    page = max(1, min(outside, (budget - own * own_bytes - cache) // page_bytes))
    return p, own, page


def _tiers(game: Game, db: Database, report: Report, bad_chunks: list, budget: int,
           show: int, sample: int, seed: int, progress: Progress) -> None:
    from solver.engine.task import outside, runs
    from solver.kernels.verify import NO_CHILD

    report.mode = "tiers"
    n, puzzle, chunk = game.hash_size, game.puzzle, db._chunk
    dtype = db.remoteness_array.dtype
    p, own, page = tier_plan(game, budget, dtype.itemsize, chunk)
    report.tasks, report.memory = len(p.tasks), budget
    k = kernels(game.module, TEMPLATE)
    _warm_tiers(game, dtype)
    left = budget - own * (OWN_BYTES - 1 + dtype.itemsize) - page * (PAGE_BYTES + dtype.itemsize)
    # what is left beside the task's own arrays and its page: a cache of decoded chunks,
    # half of it at most (Connect-4 6x4 in 0.25 GiB reads 199 chunks instead of 153 but
    # peaks 90 MiB lower), two chunks at least
    chunks = _Chunks(db.read_chunk, chunk, n, dtype, max(left // 2, 2 * chunk * (
        1 + dtype.itemsize)), bad_chunks)
    OV, OR = np.empty(own, np.uint8), np.empty(own, dtype)
    OM, ACC = np.empty(own, np.uint8), np.empty(own, np.int32)
    PV, PR, PM = np.empty(page, np.uint8), np.empty(page, dtype), np.empty(page, np.uint8)
    err = np.zeros(1, np.int64)
    counts = np.zeros(256, np.int64)
    longest, start = 0, (0, 0)
    ctx, mc, ss = game.ctx, game.max_children, game.scratch_size
    rng = np.random.default_rng(seed)
    picks: list[np.ndarray] = []
    example: dict[int, int] = {}  # a damaged chunk: the first reached position it held
    details: list[Problem] = []
    marks = _Marks(n, chunk)
    try:
        order = p.run_order[::-1]  # parents first
        for step, i in enumerate(order):
            task = p.tasks[i]
            a, b = task.a, task.b
            size = b - a
            ov, orr, om, acc = OV[:size], OR[:size], OM[:size], ACC[:size]
            chunks.copy(a, b, ov, orr)
            marks.read(a, b, om)
            if a <= game.start < b:
                om[game.start - a] = max(1, om[game.start - a])
            acc[:] = NO_CHILD
            gstart = np.array([s for s, _ in task.segments], np.int64)
            gstop = np.array([e for _, e in task.segments], np.int64)
            parts = [(x, y) for _, x, y in outside(task)]
            pages = _pages(parts, page) or [[]]
            for j, pg in enumerate(pages):
                pstart = np.array([x for x, _ in pg], np.int64)
                pstop = np.array([y for _, y in pg], np.int64)
                sizes = pstop - pstart
                poff = np.zeros(len(pg), np.int64)
                poff[1:] = np.cumsum(sizes)[:-1]
                held = int(sizes.sum())
                pv, pr, pm = PV[:held], PR[:held], PM[:held]
                for (x, y), o in zip(pg, poff.tolist(), strict=True):
                    chunks.copy(x, y, pv[o:o + y - x], pr[o:o + y - x])
                pm[:] = 0
                args = (ctx, om, ov, orr, acc, a, b, gstart, gstop, pstart, pstop, poff, pv,
                        pr, pm, err)
                if j == 0:  # reach: parents first, to a fixed point inside a loopy tier
                    for lo, hi, in_tier, _ in reversed(runs(task)):
                        while (run_blocks(k.expand, args, lo, hi, lo, hi, True, puzzle, mc,
                                          ss) > 0 and in_tier):
                            pass
                    if err[0]:
                        raise _wrong_tiers(game, int(err[0]) - 1, task, p)
                else:
                    run_blocks(k.expand, args, a, b, a, b, False, puzzle, mc, ss)
                for (x, y), o in zip(pg, poff.tolist(), strict=True):
                    marks.push(x, pm[o:o + y - x])
            run_blocks(k.settle, (om, ov, orr, acc, a), a, b, puzzle)

            # what it holds: counts, problems, a damaged chunk's reached position, picks
            longest = max(longest, int(call(k.tally, ov, orr, counts, puzzle)))
            if a <= game.start < b:
                start = (int(ov[game.start - a]), int(orr[game.start - a]))
            report.reachable += int(np.count_nonzero(om))
            bad = run_blocks(k.count_codes, (om, ov, orr, a), a, b)
            if bad:
                report.problems += bad
                report.sound = False
                want = show - len(details)
                if want > 0:
                    found, codes, wanted = (np.zeros(want, np.int64) for _ in range(3))
                    got = call(k.list_codes, om, ov, orr, acc, a, a, b, found, codes, wanted)
                    for h, c, w in zip(found[:got].tolist(), codes[:got].tolist(),
                                       wanted[:got].tolist(), strict=True):
                        pos = _position(game, h)
                        text = _text(c, int(ov[h - a]), int(orr[h - a]), w, puzzle)
                        details.append(Problem(f"{pos}: {text}", pos, h))
            for c, _ in bad_chunks:  # its first reached position, as the whole mode's
                x, y = max(a, c * chunk), min(b, (c + 1) * chunk)
                if x >= y or (c in example and example[c] < x):
                    continue
                there = np.flatnonzero(om[x - a:y - a])
                if there.size:
                    example[c] = x + int(there[0])
            want = -(-sample * size // n) + 1
            slots = np.unique(rng.integers(a, b, size=min(64 * want, 1 << 20)))
            picks.append(slots[om[slots - a] != 0][:want])
            progress.update("reach and re-derive", step + 1, f"{step + 1}/{len(order)} tasks")
            progress.fraction((step + 1) / len(order))
    finally:
        marks.close()
    report.chunks = db.nchunks
    report.stored = int(counts[1:].sum())
    for c, text in bad_chunks:  # damaged chunks first, as the whole mode
        if c in example:
            pos = _position(game, example[c])
            report.add(f"{text}, e.g. {pos}", pos, example[c])
        else:
            report.add(text)
    report.details.extend(details)
    if not bad_chunks:
        _check_attrs(report, db.attrs, game, counts, longest, *start, dtype)
    every = np.concatenate(picks) if picks else np.empty(0, np.int64)
    _round_trip(game, report, rng.permutation(every), sample)


def _wrong_tiers(game: Game, h: int, task, p) -> GsolveError:
    tiers = sorted({p.tiers[t].label for t, lo, hi, _ in task.pieces if lo <= h < hi})
    return GsolveError(
        f"{game.name}: a move from {_position(game, h)} (tier {', '.join(tiers)}) leads to a "
        "tier its tier does not list as a child: the game's tier list is wrong, so it cannot "
        "be checked a tier at a time")


# -- listed positions: --sample, and a solve's check of itself -----------------------------
def _records(keys: np.ndarray, chunk: int, dtype, read_many) -> tuple[np.ndarray, np.ndarray]:
    """Value and remoteness of the sorted hashes `keys`, each chunk read once:
    read_many(chunk indices) yields (c, value, remoteness)."""
    kv = np.zeros(keys.size, np.uint8)
    kr = np.zeros(keys.size, dtype)
    cid = keys // chunk
    firsts = np.flatnonzero(np.diff(cid, prepend=-1))
    ends = np.append(firsts[1:], keys.size)
    where = {int(cid[f]): (int(f), int(e)) for f, e in zip(firsts, ends, strict=True)}
    for c, v, r in read_many(sorted(where)):
        f, e = where[c]
        at = keys[f:e] - c * chunk
        kv[f:e] = v[at]
        kr[f:e] = r[at]
    return kv, kr


def _listed(game: Game, hs: np.ndarray, chunk: int, dtype, read_many):
    """Each position of hs (sorted, distinct) re-derived from its children's stored records:
    (keys, kv, kr, codes, wanted, child); solver.kernels.verify.check_picks."""
    k = kernels(game.module, TEMPLATE)
    mc, ss = game.max_children, game.scratch_size
    out = np.empty(max(1, hs.size * mc), np.int64)
    m = call(k.children_of, game.ctx, hs, out, mc, ss)
    keys = np.unique(np.concatenate((hs, out[:m])))
    del out
    kv, kr = _records(keys, chunk, dtype, read_many)
    codes, wanted, child = (np.zeros(hs.size, np.int64) for _ in range(3))
    call(k.check_picks, game.ctx, hs, keys, kv, kr, game.puzzle, mc, ss, codes, wanted, child)
    return keys, kv, kr, codes, wanted, child


def _listed_problems(game: Game, hs, keys, kv, kr, codes, wanted, child):
    """(text, position, hash) of each listed position with a problem."""
    for i in np.flatnonzero(codes).tolist():
        h, c = int(hs[i]), int(codes[i])
        x = int(np.searchsorted(keys, h))
        pos = _position(game, h)
        if c == 8:
            cpos = _position(game, int(child[i]))
            yield (f"{cpos}: a move from the stored {pos} leads here, but it is not stored",
                   cpos, int(child[i]))
        else:
            text = _text(c, int(kv[x]), int(kr[x]), int(wanted[i]), game.puzzle)
            yield f"{pos}: {text}", pos, h


def _start_and_children(game: Game) -> np.ndarray:
    k = kernels(game.module, TEMPLATE)
    out = np.empty(game.max_children, np.int64)
    m = call(k.children_of, game.ctx, np.array([game.start], np.int64), out,
             game.max_children, game.scratch_size)
    return np.unique(np.concatenate(([game.start], out[:m])))


def _sample(game: Game, db: Database, report: Report, bad_chunks: list, count: int,
            seed: int, show: int, sample: int, progress: Progress) -> None:
    report.mode = "sample"
    chunk, dtype = db._chunk, db.remoteness_array.dtype
    seen: set[int] = set()

    def read(c):  # on the pool: a damaged chunk reads as zeros, named once
        seen.add(c)
        try:
            return db.read_chunk(c)
        except DamagedDatabase as e:
            if (c, e.what) not in bad_chunks:
                bad_chunks.append((c, e.what))
            m = min(db.size, (c + 1) * chunk) - c * chunk
            return np.zeros(m, np.uint8), np.zeros(m, dtype)

    def read_many(cs):  # (c, value, remoteness) in order, a few chunks decoded at a time
        cs = list(cs)
        step = 4 * _pool_threads()
        for i in range(0, len(cs), step):
            for c, (v, r) in zip(cs[i:i + step], _executor().map(read, cs[i:i + step]),
                                 strict=True):
                yield c, v, r

    rng = np.random.default_rng(seed)
    take = min(db.nchunks, max(1, -(-count // PER_CHUNK))) if count > 0 else 0
    chosen = np.sort(rng.choice(db.nchunks, size=take, replace=False)).tolist()
    each = -(-count // max(1, take))
    picks = []
    for c, v, _ in read_many(chosen):
        stored = np.flatnonzero(v)
        if stored.size:
            picks.append(c * chunk + rng.choice(stored, size=min(each, stored.size),
                                                 replace=False))
        progress.fraction(len(picks) / (take + 1))
    chosen_ones = np.concatenate(picks) if picks else np.empty(0, np.int64)
    chosen_ones = rng.permutation(chosen_ones)[:count]
    hs = np.unique(np.concatenate((_start_and_children(game), chosen_ones))).astype(np.int64)
    progress.update("re-derive", 1, f"{hs.size:,} positions")

    keys, kv, kr, codes, wanted, child = _listed(game, hs, chunk, dtype, read_many)
    report.derived = int(hs.size)
    report.chunks = len(seen)
    for _c, text in bad_chunks:
        report.add(text)
    for text, pos, h in _listed_problems(game, hs, keys, kv, kr, codes, wanted, child):
        report.sound = False
        report.problems += 1
        if len(report.details) < show + len(bad_chunks):
            report.details.append(Problem(text, pos, h))
    x = int(np.searchsorted(keys, game.start))
    sv, sr = int(kv[x]), int(kr[x])
    for key, v in {"start_value": VALUE_WORDS.get(sv, str(sv)),
                   "start_remoteness": shown_remoteness(sv, sr, game.puzzle),
                   **numbering(game)}.items():
        if db.attrs.get(key) != v:
            report.add(f"attribute {key} is {db.attrs.get(key)!r}, the arrays give {v!r}")
    longest = db.attrs.get("max_remoteness")
    if isinstance(longest, int) and dtype != remoteness_dtype(longest):
        report.add(f"remoteness is stored as {dtype}, not the smallest type "
                   f"({remoteness_dtype(longest)}) for the largest remoteness {longest}")
    stored = hs[kv[np.searchsorted(keys, hs)] != 0]
    _round_trip(game, report, rng.permutation(stored), sample)


# -- a solve checks itself before it says complete ----------------------------------------
def check_solved(game: Game, group, attrs: dict, sample: int = 10_000,
                 seed: int = 0) -> str | None:
    """What is wrong with the arrays of a solve's store `group` (value, remoteness, as
    `game` numbers them) against its tally `attrs` (positions, values, start_value,
    start_remoteness), or None: the counts of every value chunk, the start, and `sample`
    stored positions (from SELF_CHUNKS random chunks) with the start and its children
    re-derived from their children's stored records.

    Decoding is its cost (3 ms a chunk of 2^20 positions): the sample's chunks are read
    first, then every value chunk once, on the pool, counted and, where the sample's
    positions or their children lie, read with its remoteness."""
    from solver.storage.chunkio import chunk_array

    va, ra = chunk_array(group["value"]), chunk_array(group["remoteness"])
    n, chunk = int(va.shape[0]), int(va.chunks[0])
    dtype = ra.dtype
    nchunks = -(-n // chunk)
    k = kernels(game.module, TEMPLATE)
    mc, ss = game.max_children, game.scratch_size
    pool = _executor()

    def read(arr, c):
        if hasattr(arr, "read_chunk"):
            return arr.read_chunk(c)
        return arr[c * chunk:min(n, (c + 1) * chunk)]

    # the sample: stored positions of a few random chunks, the start and its children
    rng = np.random.default_rng(seed)
    chosen = rng.choice(nchunks, size=min(nchunks, SELF_CHUNKS), replace=False).tolist()
    held = dict(zip(chosen, pool.map(lambda c: (read(va, c), read(ra, c)), chosen),
                    strict=True))
    hs = [_start_and_children(game)]
    each = -(-sample // max(1, len(chosen)))
    for c in chosen:
        stored = np.flatnonzero(held[c][0])
        if stored.size:
            hs.append(c * chunk + rng.choice(stored, size=min(each, stored.size),
                                             replace=False))
    hs = np.unique(np.concatenate(hs)).astype(np.int64)
    out = np.empty(max(1, hs.size * mc), np.int64)
    m = call(k.children_of, game.ctx, hs, out, mc, ss)
    keys = np.unique(np.concatenate((hs, out[:m])))
    del out
    cid = keys // chunk
    firsts = np.flatnonzero(np.diff(cid, prepend=-1))
    where = dict(zip(cid[firsts].tolist(), zip(firsts.tolist(),
                                                np.append(firsts[1:], keys.size).tolist(),
                                                strict=True), strict=True))
    kv, kr = np.zeros(keys.size, np.uint8), np.zeros(keys.size, dtype)

    def counted(c):  # every value chunk once; with its remoteness where the sample is
        v, r = held[c] if c in held else (read(va, c), None)
        got = np.zeros(256, np.int64)
        k.count_values(v, got)
        if c in where:
            f, e = where[c]
            at = keys[f:e] - c * chunk
            kv[f:e] = v[at]
            kr[f:e] = (read(ra, c) if r is None else r)[at]
        return got

    counts = np.zeros(256, np.int64)
    for got in pool.map(counted, range(nchunks)):
        counts += got
    held.clear()
    have = {VALUE_WORDS[v]: int(counts[v]) for v in (4, 1, 3, 2) if counts[v]}
    if counts[5:].any():
        v = int(np.flatnonzero(counts[5:])[0]) + 5
        return f"value code {v} is stored ({int(counts[v]):,} times), which is no value"
    if have != attrs.get("values") or int(counts[1:5].sum()) != attrs.get("positions"):
        return (f"the stored values count {_counts(have)}, the solve counted "
                f"{_counts(attrs.get('values') or {})}")
    x = int(np.searchsorted(keys, game.start))
    sv, sr = int(kv[x]), int(kr[x])
    if not 1 <= sv <= 4:
        return f"the start is not stored (value code {sv})"
    said = (attrs.get("start_value"), attrs.get("start_remoteness"))
    if (VALUE_WORDS[sv], shown_remoteness(sv, sr, game.puzzle)) != said:
        return (f"the start is stored as {_word(sv, sr, game.puzzle)}, the solve said "
                f"{said[0]}" + ("" if said[1] is None else f" in {said[1]}"))
    codes, wanted, child = (np.zeros(hs.size, np.int64) for _ in range(3))
    call(k.check_picks, game.ctx, hs, keys, kv, kr, game.puzzle, mc, ss, codes, wanted, child)
    for text, _pos, _h in _listed_problems(game, hs, keys, kv, kr, codes, wanted, child):
        return f"{text} (one of {hs.size:,} positions sampled)"
    return None


def _counts(values: dict) -> str:
    return ", ".join(f"{w} {values[w]:,}" for w in ("win", "lose", "tie", "draw")
                     if w in values) or "nothing"


def store_check(game: Game, path, tiered: bool):
    """The check a solve's store passes before it is marked complete (`check` of
    solver.storage.database.write_arrays and solver.storage.partial.PartialStore.finish):
    check_solved, a GsolveError of one line when it fails. What was there stays: the
    unfinished tiered store, or the database a monolithic solve would have replaced."""

    def check(group, attrs: dict) -> None:
        what = check_solved(game, group, attrs)
        if what is None:
            return
        if tiered:
            kept = f"the unfinished solve is kept at {partial_path(path)}; "
        elif (path / "zarr.json").exists():
            kept = f"the database that was there is kept ({path}); "
        else:
            kept = "nothing was stored; "
        raise GsolveError(
            f"the solve of {game.describe()} failed its check before it was marked "
            f"complete: {what}; {kept}solve it again with "
            f"`gsolve {command(game, path)} --force`")

    return check


def _check_attrs(report: Report, attrs: dict, game: Game, counts, longest: int, sv: int,
                 sr: int, rem_dtype) -> None:
    words = {VALUE_WORDS[v]: int(counts[v]) for v in (4, 1, 3, 2) if counts[v]}
    want = {
        "positions": int(counts[1:5].sum()),
        "values": words,
        "start_value": VALUE_WORDS.get(sv, str(sv)),
        "start_remoteness": shown_remoteness(sv, sr, game.puzzle),
        "max_remoteness": longest,
        **numbering(game),
    }
    for key, v in want.items():
        if attrs.get(key) != v:
            report.add(f"attribute {key} is {attrs.get(key)!r}, the arrays give {v!r}")
    if rem_dtype != remoteness_dtype(longest):
        report.add(f"remoteness is stored as {rem_dtype}, not the smallest type "
                   f"({remoteness_dtype(longest)}) for {longest}")
