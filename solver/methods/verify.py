"""`gsolve verify`: check a stored database against the game's rules, not against itself.

Every chunk is read (so every checksum is checked) into memory; then one parallel pass
per sweep, from the start, marks what is reachable and re-derives each reachable position
from the stored records of its children with the solvers' DESIGN.md rules
(solver/kernels/verify.py). Local consistency at every reachable position is enough: a
stored win, loss or tie has a remoteness, and each is justified by a child with a smaller
one, down to primitives checked against the game, so no wrong value can justify itself
around a cycle. Then: every reachable slot is stored and every other slot is empty; the
counts in the attributes are those of the arrays; the position strings of a random sample
of reachable positions parse back to the same hash.

Memory: the value and remoteness arrays of the whole variant and a byte per slot.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from games.base import VALUE_WORDS, Game, GsolveError, shown_remoteness
from solver.kernels.codegen import kernels
from solver.runtime.parallel import run_blocks
from solver.runtime.progress import Progress
from solver.storage.database import (
    DamagedDatabase,
    Database,
    group_path,
    remoteness_dtype,
)
from solver.storage.index import numbering

TEMPLATE = "solver.kernels.verify"
SHIFT = 4  # solver.kernels.records: remoteness above the value code in a record


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


def verify(game: Game, root: str | Path | None = None, progress: Progress | None = None,
           show: int = 10, sample: int = 1000, seed: int = 0) -> Report:
    """Check the database of `game` under `root`; at most `show` problems are detailed.

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
    n, puzzle = game.hash_size, game.puzzle
    _check_memory(game, n * (2 + db.remoteness_array.dtype.itemsize))

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
            stored = _word(int(value[h]), int(rem[h]), puzzle)
            text = {
                1: "reachable from the start but not stored",
                2: f"stored ({stored}) but not reachable from the start",
                3: f"stored value code {int(value[h])} is no value",
                4: f"stored {stored}, but the game is over there: "
                   f"{_word(want & 7, 0, puzzle)} in 0",
                5: f"stored {stored}, but its children give "
                   f"{_word(want & 7, want >> SHIFT, puzzle)}",
                6: f"unreachable, yet stores remoteness {int(rem[h])}",
            }[code]
            pos = _position(game, h)
            report.details.append(Problem(f"{pos}: {text}", pos, h))
        report.sound = False
        report.problems += int(bad)

    # 4. the attributes say what the arrays hold (not worth repeating for lost chunks)
    if not bad_chunks:
        _check_attrs(report, db.attrs, game, value, rem, counts)

    # 5. position strings round-trip on a sample of reachable positions
    rng = np.random.default_rng(seed)
    if n <= 1 << 22:  # small: choose among the reachable positions themselves
        reach = np.flatnonzero(mark)
        picks = rng.choice(reach, size=min(sample, reach.size), replace=False)
    else:  # large: random slots, keeping the reachable ones
        picks = np.unique(rng.integers(0, n, size=min(64 * sample, 1 << 24)))
        picks = rng.permutation(picks[mark[picks] != 0])
    picks = np.concatenate(([game.start], picks[picks != game.start][:sample - 1]))
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
    report.seconds = time.perf_counter() - t0
    return report


def _check_memory(game: Game, need: int) -> None:
    from solver.runtime.env import available_memory

    def size(b: int) -> str:
        return f"{b / (1 << 30):,.1f} GiB" if b >= 1 << 30 else f"{b / (1 << 20):,.0f} MiB"

    have = available_memory()
    if have is not None and need > 0.9 * have:
        raise GsolveError(
            f"verifying {game.describe()} needs about {size(need)} (value, remoteness and "
            f"a byte per hash slot), more than the {size(have)} available")


def _check_attrs(report: Report, attrs: dict, game: Game, value, rem, counts) -> None:
    words = {VALUE_WORDS[v]: int(counts[v]) for v in (4, 1, 3, 2) if counts[v]}
    has = (value == 4) | (value == 3) | ((value == 1) & (not game.puzzle))
    longest = int(rem[has].max()) if has.any() else 0
    sv, sr = int(value[game.start]), int(rem[game.start])
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
    if rem.dtype != remoteness_dtype(longest):
        report.add(f"remoteness is stored as {rem.dtype}, not the smallest type "
                   f"({remoteness_dtype(longest)}) for {longest}")
