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
  with one-byte remoteness); the chunks of its child tiers are held in a pool of decoded
  chunks, each with the reach marks pushed to it, the least recently used given up for
  another (its marks stored, compressed, in `<key>.verify` beside the database, with a
  record of what the tasks so far found, so that a stopped check resumes:
  solver/methods/verify_tiers.py `_Resume`; removed at the end; in $GSOLVE_SCRATCH or the
  system's temporary folder where the database's folder cannot be written). A task marks
  what its reached positions reach inside it (to a fixed point inside a loopy tier),
  listing the chunks of their children outside it; then holds those chunks, a pool at a
  time, and compares every reached position with what its children give, marking them
  reached. Reachability is exact: a move leads only into a tier's own tier or a child
  tier, whose tasks come after it, so when a task is taken every parent of its positions
  has marked it; a move into a tier the game does not list as a child is reported as a
  wrong tier list, never passed over. So it checks what the whole mode checks, slot for
  slot. The least it needs is the largest task's own range (a loopy tier is never cut:
  Nine Men's Morris with symmetry needs 9 GiB for its `move W8 B8`) and a pool of two
  chunks; with less `memory` it refuses with that figure.

`sample` (`gsolve verify --sample N`, and a solve's check of itself): N random stored
positions (from random chunks), the start and the start's children, each re-derived from
the stored records of its children, which must be stored; and the round-trip of their
position strings. Reachability is not checked, nor the counts (a solve's check counts
every value chunk against its tally).
"""

import time
from pathlib import Path

import numpy as np

from games.base import Game, GsolveError
from solver.kernels.codegen import kernels
from solver.methods.verify_report import (
    GIB,
    TEMPLATE,
    Problem,
    Report,
    check_attrs,
    position,
    problem_text,
    round_trip,
    size,
    warm_up,
)
from solver.methods.verify_sample import by_sample
from solver.methods.verify_tiers import by_tiers
from solver.runtime.parallel import run_blocks
from solver.runtime.progress import Progress
from solver.storage.database import (
    DamagedDatabase,
    Database,
    group_path,
)


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
    game = db.numbered_game()  # canonical positions only, compact: walk as they are stored
    report.symmetry = game.symmetry
    budget = memory or default_memory()
    whole = game.hash_size * (2 + db.remoteness_array.dtype.itemsize)
    if positions is not None:
        by_sample(game, db, report, bad_chunks, positions, seed, show, sample, progress)
    elif whole <= budget:
        _whole(game, db, report, bad_chunks, show, sample, seed, progress)
    elif game.tiers():
        by_tiers(game, db, report, bad_chunks, budget, show, sample, seed, progress)
    else:
        raise GsolveError(
            f"verifying {game.describe()} needs about {size(whole)} (value, remoteness and "
            f"a byte per hash slot), more than the {size(budget)} of --memory, and the game "
            "has no tiers to check one at a time: raise --memory, or check a sample with "
            "--sample N")
    report.seconds = report.seconds_before + time.perf_counter() - t0
    return report


def default_memory() -> int:
    """Most of the memory available now (as a tiered solve's budget)."""
    from solver.runtime.env import available_memory

    have = available_memory()
    return int(0.85 * have) if have else 8 * GIB


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
            pos = position(game, a + int(there[0]))
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
            pos = position(game, h)
            text = problem_text(code, int(value[h]), int(rem[h]), want, puzzle)
            report.details.append(Problem(f"{pos}: {text}", pos, h))
        report.sound = False
        report.problems += int(bad)

    # 4. the attributes say what the arrays hold (not worth repeating for lost chunks)
    if not bad_chunks:
        has = (value == 4) | (value == 3) | ((value == 1) & (not game.puzzle))
        longest = int(rem[has].max()) if has.any() else 0
        del has
        check_attrs(report, db.attrs, game, counts, longest, int(value[game.start]),
                     int(rem[game.start]), rem.dtype)

    # 5. position strings round-trip on a sample of reachable positions
    rng = np.random.default_rng(seed)
    if n <= 1 << 22:  # small: choose among the reachable positions themselves
        reach = np.flatnonzero(mark)
        picks = rng.choice(reach, size=min(sample, reach.size), replace=False)
    else:  # large: random slots, keeping the reachable ones
        picks = np.unique(rng.integers(0, n, size=min(64 * sample, 1 << 24)))
        picks = rng.permutation(picks[mark[picks] != 0])
    round_trip(game, report, picks, sample)
