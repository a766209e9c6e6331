"""`gsolve verify` tier by tier, within a memory budget at any size (the design is in
solver/methods/verify.py)."""

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import time
from collections import OrderedDict
from pathlib import Path

import numpy as np

from games.base import Game, GsolveError
from solver.engine.scratch import remove_orphans
from solver.kernels.codegen import kernels
from solver.methods.verify_report import (
    TEMPLATE,
    Problem,
    Report,
    check_attrs,
    position,
    problem_text,
    round_trip,
    size,
)
from solver.runtime.parallel import call, run_blocks, run_each
from solver.runtime.progress import Progress
from solver.storage.database import (
    DamagedDatabase,
    Database,
    verify_path,
)

OWN_BYTES = 7  # a task's own position (tier by tier): value, mark, fold (int32), + remoteness

SLOT_BYTES = 2  # a position of a pool slot's chunk: value, reach mark, + remoteness

CHUNK_BYTES = 5  # a chunk's: its slot (int32) and whether the task needs it

LIST_SHARE = 8  # a task's moves are listed (8 bytes each) where that takes 1/LIST_SHARE

RESERVE = 16  # 1/RESERVE of the budget is left beside the arrays (decoding, the marks' store)

SAVE_EVERY = 10.0  # seconds between records of what a stopped check would resume from

RECORD_SHARE = 0.05  # at most this share of the time storing marks for the records


def warm_tiers(game: Game, rem_dtype) -> None:
    """Compile (or load) the kernels of the tier-by-tier mode for these array types."""
    k = kernels(game.module, TEMPLATE)
    v, r, m = np.zeros(1, np.uint8), np.zeros(1, rem_dtype), np.zeros(1, np.uint8)
    acc, i64, i32 = np.zeros(1, np.int32), np.zeros(1, np.int64), np.zeros(1, np.int32)
    pv, pr, pm = np.zeros((1, 1), np.uint8), np.zeros((1, 1), rem_dtype), np.zeros((1, 1),
                                                                                  np.uint8)
    mc, ss = game.max_children, game.scratch_size
    i16 = np.zeros(1, np.int16)
    k.reach(game.ctx, m, 0, 0, m, 1, i64, i16, 0, 0, 0, 0, mc, ss)
    for first in (True, False):
        k.expand(game.ctx, m, v, r, acc, 0, 0, i64, i64, i32, 1, pv, pr, pm, m, i64, i16, i64,
                 0, 0, 0, 0, first, game.puzzle, mc, ss)
    k.settle(m, v, r, acc, 0, 0, 0, game.puzzle)
    k.count_codes(m, v, r, 0, 0, 0)
    k.list_codes(m, v, r, acc, 0, 0, 0, i64, i64, i64)
    k.tally(v, r, np.zeros(256, np.int64), game.puzzle)


class _Marks:
    """Reach marks pushed to tasks not yet checked: a byte a slot in a compressed store (a
    chunk file each, each put in place by a rename), in `folder` (`<key>.verify`, kept
    when the check stops, so that it resumes) or else in a scratch folder of
    $GSOLVE_SCRATCH or the system's temporary folder (removed at the end)."""

    def __init__(self, n: int, chunk: int, folder: Path | None = None):
        from solver.storage import stores
        from solver.storage.chunks import chunk_array
        from solver.storage.database import create_array

        if folder is None:
            root = os.environ.get("GSOLVE_SCRATCH") or tempfile.gettempdir()
            os.makedirs(root, exist_ok=True)
            remove_orphans(root, "gsolve-verify-")
            folder = Path(tempfile.mkdtemp(prefix=f"gsolve-verify-{os.getpid()}-", dir=root))
        self.path = folder
        marks = folder / "reached"
        if (marks / "zarr.json").exists():
            arr = stores.open_group(folder, "r+")["reached"]
        else:
            group = stores.open_group(folder, "a")
            arr = create_array(group, "reached", (n,), np.uint8, chunk=chunk, scratch=True,
                               overwrite=True)
        self.arr = chunk_array(arr)

    def read_chunk(self, c: int, out: np.ndarray) -> None:
        self.arr.read_chunk(c, out)

    def write(self, c: int, marks: np.ndarray) -> None:
        """Chunk c's marks (a superset of those stored: the pool read them in)."""
        self.arr.write_chunk(c, marks)

    def drop(self, c: int) -> None:
        """Chunk c's marks removed: its tasks are checked, and recorded."""
        self.arr.drop_chunk(c)

    def close(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


class _Pool:
    """Decoded chunks of the database in `slots` slots, each with the reach marks pushed to
    it; the least recently used is given up for another, its marks stored (`_Marks`) when
    they changed, and every slot's before a record (`flush`). A task's moves reach the same
    chunks as its neighbours' (Connect-4 6x6: 5,071 distinct chunks in 60 tasks that read
    57,240), so a chunk is read about once where pages of whole child tiers read each
    chunk 150 times. A chunk that fails (checksum, digest, missing) reads as zeros and is
    named once in `bad`, (chunk, what), as the whole mode names it."""

    def __init__(self, db: Database, marks: _Marks, n: int, slots: int, bad: list):
        chunk = db._chunk
        self.db, self.marks, self.n, self.chunk, self.bad = db, marks, n, chunk, bad
        self.slots = slots
        self.v = np.empty((slots, chunk), np.uint8)
        self.r = np.empty((slots, chunk), db.remoteness_array.dtype)
        self.m = np.empty((slots, chunk), np.uint8)
        self.dirty = np.zeros(slots, np.uint8)
        self.where = np.full(-(-n // chunk), -1, np.int32)
        self.held: OrderedDict[int, int] = OrderedDict()  # chunk: slot, least recent first
        self.free = list(range(slots))

    def size(self, c: int) -> int:
        return min(self.n, (c + 1) * self.chunk) - c * self.chunk

    def hold(self, cs: list[int]) -> None:
        """Every chunk of `cs` (at most `slots`) held, read side by side on the pool."""
        wanted = set(cs)
        for c in cs:
            if c in self.held:
                self.held.move_to_end(c)
        jobs = []
        for c in cs:
            if self.where[c] >= 0:
                continue
            old = -1
            if self.free:
                s = self.free.pop()
            else:
                old = next(x for x in self.held if x not in wanted)
                s = self.held.pop(old)
                self.where[old] = -1
            jobs.append((old, c, s))
        for (_, c, s), what in zip(jobs, run_each(self._swap, jobs), strict=True):
            self.where[c], self.held[c] = s, s
            if what is not None and (c, what) not in self.bad:
                self.bad.append((c, what))

    def _swap(self, old: int, c: int, s: int) -> str | None:
        """Slot s: the marks of chunk `old` (-1: none) stored where they changed, then chunk
        c and its marks read in; what is wrong with the chunk, or None."""
        if old >= 0 and self.dirty[s]:
            self.marks.write(old, self.m[s, :self.size(old)])
        self.dirty[s] = 0
        size = self.size(c)
        self.marks.read_chunk(c, self.m[s, :size])
        try:
            self.db.read_chunk(c, (self.v[s, :size], self.r[s, :size]))
        except DamagedDatabase as e:
            self.v[s, :size] = 0
            self.r[s, :size] = 0
            return e.what
        return None

    def flush(self) -> None:
        """The marks of every slot where they changed, stored."""
        run_each(self._store, [(c, s) for c, s in self.held.items() if self.dirty[s]])

    def forget(self, cs: list[int]) -> None:
        """Chunks of checked and recorded tasks: no task after reads them or marks them
        (their tiers' parents come before), so their slots are free and their stored marks
        removed (Connect-4 6x6's marks take 0.2 MB a chunk: 59 GB kept to the end)."""
        for c in cs:
            s = self.held.pop(c, None)
            if s is not None:
                self.where[c], self.dirty[s] = -1, 0
                self.free.append(s)
            self.marks.drop(c)

    def _store(self, c: int, s: int) -> None:
        self.marks.write(c, self.m[s, :self.size(c)])
        self.dirty[s] = 0

    def copy(self, lo: int, hi: int, ov: np.ndarray, orr: np.ndarray, om: np.ndarray) -> None:
        """Value, remoteness and reach marks of [lo, hi) into ov, orr, om."""
        ch = self.chunk
        cs = list(range(lo // ch, -(-hi // ch)))
        for i in range(0, len(cs), self.slots):
            part = cs[i:i + self.slots]
            self.hold(part)
            for c in part:
                s, first = self.where[c], c * ch
                x, y = max(lo, first), min(hi, first + ch)
                ov[x - lo:y - lo] = self.v[s, x - first:y - first]
                orr[x - lo:y - lo] = self.r[s, x - first:y - first]
                om[x - lo:y - lo] = self.m[s, x - first:y - first]


class _Resume:
    """What a stopped tier-by-tier check resumes from, in `<key>.verify` beside a local
    database: its reach marks (`_Marks`) and record.json, what the tasks before `done`
    found, written by a rename at most every SAVE_EVERY seconds (and RECORD_SHARE of the
    time) once the marks of the pool are stored. A task after the record is checked again:
    it marks what it marked before (marks are only ever added), so the marks of the tasks
    after it are as an unbroken check's, and so is its report (the random picks'
    generator is recorded too). A record of another database (solved again), plan
    (--memory) or option starts the check afresh. The database's lock is held meanwhile:
    no solve replaces it under the check."""

    def __init__(self, db: Database, identity: dict):
        self.folder = verify_path(db.path) if isinstance(db.path, Path) else None
        self.identity, self.saved, self.cost = identity, None, 0.0
        self.record: dict | None = None
        if self.folder is None:
            return
        try:
            self.record = json.loads((self.folder / "record.json").read_text())
        except (OSError, ValueError):
            self.record = None
        if not isinstance(self.record, dict) or self.record.get("identity") != identity:
            self.record = None
            shutil.rmtree(self.folder, ignore_errors=True)
        try:
            self.folder.mkdir(exist_ok=True)
        except OSError:  # a database this user may read, not write: checked in scratch
            self.folder = None

    def save(self, state, flush) -> bool:
        """A record of `state()` once `flush()` has stored the marks it counts on: at most
        every SAVE_EVERY seconds, and RECORD_SHARE of the time (Connect-4 6x6 stores a
        few thousand chunks of marks a record). Whether it was written."""
        now = time.monotonic()
        if self.folder is None or (self.saved is not None and now - self.saved < max(
                SAVE_EVERY, self.cost / RECORD_SHARE)):
            return False
        flush()
        tmp = self.folder / f"record.json.{os.getpid()}"
        tmp.write_text(json.dumps({"identity": self.identity, **state()}))
        os.replace(tmp, self.folder / "record.json")
        self.saved = time.monotonic()
        self.cost = self.saved - now
        return True


def identity(db: Database, p, n: int, seed: int, sample: int, show: int) -> dict:
    """What a resumed check must share with the one it resumes."""
    cuts = np.array([(t.a, t.b) for t in p.tasks] + [(i, 0) for i in p.run_order], np.int64)
    attrs = db.attrs
    return {"version": 1, "finished": attrs.get("finished"), "stored": attrs.get("stored"),
            "digest": db.sealed_digest, "slots": int(n), "chunk": int(db.chunk_size),
            "plan": hashlib.sha256(cuts.tobytes()).hexdigest(), "seed": seed,
            "sample": sample, "show": show}


def tier_plan(game: Game, budget: int, rem_itemsize: int, chunk: int):
    """The tasks of a tier-by-tier check within `budget` bytes: (plan, own slots of the
    largest task, chunks the pool holds, whether a task's moves are listed). A third of
    the budget bounds a task's own range (a loopy tier is held whole, whatever its size);
    the moves of its positions are listed where that takes at most 1/LIST_SHARE of it; the
    pool takes what is left but 1/RESERVE. GsolveError when even the least does not fit:
    the largest task and a pool of two chunks."""
    from solver.engine.plan import plan, task_cap

    own_bytes = OWN_BYTES - 1 + rem_itemsize
    slot_bytes = chunk * (SLOT_BYTES + rem_itemsize)
    nchunks = -(-game.hash_size // chunk)
    most = max(1, min(task_cap(game.hash_size), budget // 3 // own_bytes))
    p = plan(game, None, chunk=chunk, max_task=most)
    own = max(t.size for t in p.tasks)
    least = own * own_bytes + 2 * slot_bytes + nchunks * CHUNK_BYTES
    if least > budget:
        big = max(p.tasks, key=lambda t: t.size)
        what = (f"tier {p.tiers[big.pieces[0][0]].label}, held whole"
                if len(big.pieces) == 1 and big.pieces[0][3] else f"{len(big.pieces):,} "
                "tier pieces")
        raise GsolveError(
            f"verifying {game.describe()} a task at a time needs at least {size(least)}, "
            f"more than the {size(budget)} of --memory (its largest task, {what}, holds "
            f"{own:,} positions, {own_bytes} bytes each): raise --memory, or check a sample "
            "with --sample N")
    listing = own * (8 * game.max_children + 2)  # the moves, and how many
    listed = least + listing <= budget and listing <= budget // LIST_SHARE
    slots = (budget - budget // RESERVE - least + 2 * slot_bytes - listed * listing
             ) // slot_bytes
    return p, own, int(min(nchunks, max(2, slots))), listed


def by_tiers(game: Game, db: Database, report: Report, bad_chunks: list, budget: int,
           show: int, sample: int, seed: int, progress: Progress) -> None:
    """The check a task at a time; where it stopped before (`_Resume`), it goes on."""
    from solver.storage.stores import writer_lock

    n, chunk = game.hash_size, db._chunk
    dtype = db.remoteness_array.dtype
    p, own, slots, listed = tier_plan(game, budget, dtype.itemsize, chunk)
    local = isinstance(db.path, Path)
    with writer_lock(db.path, game.describe()) if local else contextlib.nullcontext():
        resume = _Resume(db, identity(db, p, n, seed, sample, show))
        marks = _Marks(n, chunk, resume.folder)
        kept = False  # a stopped check's marks, kept to resume from
        try:
            _check(game, db, report, bad_chunks, budget, show, sample, seed, progress, p,
                   own, listed, _Pool(db, marks, n, slots, bad_chunks), resume)
        except GsolveError:  # a wrong tier list: checked again, it fails again
            raise
        except BaseException:
            kept = resume.folder is not None
            raise
        finally:
            if not kept:
                marks.close()


def _check(game: Game, db: Database, report: Report, bad_chunks: list, budget: int,
           show: int, sample: int, seed: int, progress: Progress, p, own: int, listed: bool,
           pool: _Pool, resume: _Resume) -> None:
    from solver.engine.task import runs
    from solver.kernels.verify import LISTED, NO_CHILD

    report.mode = "tiers"
    n, puzzle, chunk = game.hash_size, game.puzzle, db._chunk
    dtype = db.remoteness_array.dtype
    report.tasks, report.memory = len(p.tasks), budget
    k = kernels(game.module, TEMPLATE)
    warm_tiers(game, dtype)
    OV, OR = np.empty(own, np.uint8), np.empty(own, dtype)
    OM, ACC = np.empty(own, np.uint8), np.empty(own, np.int32)
    need = np.zeros(pool.where.size, np.uint8)
    ctx, mc, ss = game.ctx, game.max_children, game.scratch_size
    KIDS = np.empty(own * mc if listed else 0, np.int64)
    NKID = np.empty(own if listed else 0, np.int16)
    err = np.zeros(1, np.int64)
    counts = np.zeros(256, np.int64)
    longest, start, reachable, problems, done, earlier = 0, (0, 0), 0, 0, 0, 0.0
    rng = np.random.default_rng(seed)
    picks: list[np.ndarray] = []
    example: dict[int, int] = {}  # a damaged chunk: the first reached position it held
    details: list[Problem] = []
    if resume.record is not None:
        r = resume.record
        done, longest, start = r["done"], r["longest"], tuple(r["start"])
        reachable, problems, earlier = r["reachable"], r["problems"], r["seconds"]
        counts[:] = r["counts"]
        rng.bit_generator.state = r["rng"]
        picks.append(np.array(r["picks"], np.int64))
        example = {int(c): h for c, h in r["example"].items()}
        details = [Problem(*d) for d in r["details"]]
        bad_chunks[:] = [tuple(b) for b in r["bad_chunks"]]
        report.resumed = done
        progress.note(f"resuming the check stopped after {done:,} of {len(p.tasks):,} tasks")
    t0 = time.perf_counter()

    order = p.run_order[::-1]  # parents first
    part: dict[int, int] = {}  # a chunk partly in the tasks so far: how much of it

    def covered(a: int, b: int) -> list[int]:
        """The chunks [a, b) completes, with the tasks before it."""
        whole = []
        for c in range(a // chunk, -(-b // chunk)):
            part[c] = part.get(c, 0) + min(b, (c + 1) * chunk) - max(a, c * chunk)
            if part[c] == pool.size(c):
                whole.append(c)
                del part[c]
        return whole

    checked: list[int] = []  # chunks of checked tasks, forgotten once recorded
    for step in range(done):
        checked.extend(covered(p.tasks[order[step]].a, p.tasks[order[step]].b))
    pool.forget(checked)
    checked.clear()

    def state(step: int) -> dict:
        return {"done": step, "tasks": len(order), "longest": longest, "start": list(start),
                "reachable": reachable, "problems": problems,
                "seconds": earlier + time.perf_counter() - t0,
                "counts": counts.tolist(), "rng": rng.bit_generator.state,
                "picks": np.concatenate(picks).tolist() if picks else [],
                "example": {str(c): h for c, h in example.items()},
                "details": [[d.text, d.position, d.hash] for d in details],
                "bad_chunks": [list(b) for b in bad_chunks]}

    for step in range(done, len(order)):
        task = p.tasks[order[step]]
        a, b = task.a, task.b
        size = b - a
        ov, orr, om, acc = OV[:size], OR[:size], OM[:size], ACC[:size]
        kids, nkid = KIDS[:size * mc if listed else 0], NKID[:size if listed else 0]
        pool.copy(a, b, ov, orr, om)
        if a <= game.start < b:
            om[game.start - a] = max(1, om[game.start - a])
        acc[:] = NO_CHILD
        gstart = np.array([s for s, _ in task.segments], np.int64)
        gstop = np.array([e for _, e in task.segments], np.int64)
        # reach: parents first, to a fixed point inside a loopy tier, listing the chunks
        # of the children outside the task; then every reached position re-derived from
        # its children, those chunks a pool at a time
        need[:] = 0
        for lo, hi, in_tier, _ in reversed(runs(task)):
            while (run_blocks(k.reach, (ctx, om, a, b, need, chunk, kids, nkid), lo, hi, lo,
                              hi, mc, ss) > 0 and in_tier):
                pass
        om[om == LISTED] = 1
        needed = np.flatnonzero(need).tolist()
        args = (ctx, om, ov, orr, acc, a, b, gstart, gstop, pool.where, chunk, pool.v,
                pool.r, pool.m, pool.dirty, kids, nkid, err)
        for j in range(0, max(1, len(needed)), pool.slots):
            pool.hold(needed[j:j + pool.slots])
            run_blocks(k.expand, args, a, b, a, b, j == 0, puzzle, mc, ss)
            if err[0]:
                raise _wrong_tiers(game, int(err[0]) - 1, task, p)
        run_blocks(k.settle, (om, ov, orr, acc, a), a, b, puzzle)

        # what it holds: counts, problems, a damaged chunk's reached position, picks
        longest = max(longest, int(call(k.tally, ov, orr, counts, puzzle)))
        if a <= game.start < b:
            start = (int(ov[game.start - a]), int(orr[game.start - a]))
        reachable += int(np.count_nonzero(om))
        bad = run_blocks(k.count_codes, (om, ov, orr, a), a, b)
        if bad:
            problems += bad
            want = show - len(details)
            if want > 0:
                found, codes, wanted = (np.zeros(want, np.int64) for _ in range(3))
                got = call(k.list_codes, om, ov, orr, acc, a, a, b, found, codes, wanted)
                for h, c, w in zip(found[:got].tolist(), codes[:got].tolist(),
                                   wanted[:got].tolist(), strict=True):
                    pos = position(game, h)
                    text = problem_text(c, int(ov[h - a]), int(orr[h - a]), w, puzzle)
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
        checked.extend(covered(a, b))
        if resume.save(lambda step=step: state(step + 1), pool.flush) or resume.folder is None:
            pool.forget(checked)  # after the record: a resumed check starts after them
            checked.clear()
        progress.update("reach and re-derive", step + 1, f"{step + 1}/{len(order)} tasks")
        progress.fraction((step + 1) / len(order))
    report.seconds_before = earlier
    report.reachable += reachable
    if problems:
        report.problems += problems
        report.sound = False
    report.chunks = db.nchunks
    report.stored = int(counts[1:].sum())
    for c, text in bad_chunks:  # damaged chunks first, as the whole mode
        if c in example:
            pos = position(game, example[c])
            report.add(f"{text}, e.g. {pos}", pos, example[c])
        else:
            report.add(text)
    report.details.extend(details)
    if not bad_chunks:
        check_attrs(report, db.attrs, game, counts, longest, *start, dtype)
    every = np.concatenate(picks) if picks else np.empty(0, np.int64)
    round_trip(game, report, rng.permutation(every), sample)


def _wrong_tiers(game: Game, h: int, task, p) -> GsolveError:
    tiers = sorted({p.tiers[t].label for t, lo, hi, _ in task.pieces if lo <= h < hi})
    return GsolveError(
        f"{game.name}: a move from {position(game, h)} (tier {', '.join(tiers)}) leads to a "
        "tier its tier does not list as a child: the game's tier list is wrong, so it cannot "
        "be checked a tier at a time")
