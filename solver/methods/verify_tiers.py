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
from solver.runtime.parallel import call, run_blocks
from solver.runtime.progress import Progress
from solver.storage.database import (
    DamagedDatabase,
    Database,
    verify_path,
)

OWN_BYTES = 7  # a task's own position (tier by tier): value, mark, fold (int32), + remoteness


PAGE_BYTES = 2  # a page slot: value, mark, + remoteness

SAVE_EVERY = 10.0  # seconds between records of what a stopped check would resume from


def warm_tiers(game: Game, rem_dtype) -> None:
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


class _Resume:
    """What a stopped tier-by-tier check resumes from, in `<key>.verify` beside a local
    database: its reach marks (`_Marks`) and record.json, what the tasks before `done`
    found, written by a rename at most every SAVE_EVERY seconds after their pushes are
    stored. A task after the record is checked again: its pushes again are the same bytes
    (the larger wins), so the marks of the tasks after it are as an unbroken check's, and
    so is its report (the random picks' generator is recorded too). A record of another
    database (solved again), plan (--memory) or option starts the check afresh. The
    database's lock is held meanwhile: no solve replaces it under the check."""

    def __init__(self, db: Database, identity: dict):
        self.folder = verify_path(db.path) if isinstance(db.path, Path) else None
        self.identity, self.saved = identity, None
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

    def save(self, state: dict) -> None:
        now = time.monotonic()
        if self.folder is None or (self.saved is not None and now - self.saved < SAVE_EVERY):
            return
        tmp = self.folder / f"record.json.{os.getpid()}"
        tmp.write_text(json.dumps({"identity": self.identity, **state}))
        os.replace(tmp, self.folder / "record.json")
        self.saved = now


def identity(db: Database, p, n: int, seed: int, sample: int, show: int) -> dict:
    """What a resumed check must share with the one it resumes."""
    cuts = np.array([(t.a, t.b) for t in p.tasks] + [(i, 0) for i in p.run_order], np.int64)
    attrs = db.attrs
    return {"version": 1, "finished": attrs.get("finished"), "stored": attrs.get("stored"),
            "digest": db.sealed_digest, "slots": int(n), "chunk": int(db.chunk_size),
            "plan": hashlib.sha256(cuts.tobytes()).hexdigest(), "seed": seed,
            "sample": sample, "show": show}


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
            f"verifying {game.describe()} a task at a time needs at least {size(least)}, "
            f"more than the {size(budget)} of --memory (its largest task, {what}, holds "
            f"{own:,} positions, {own_bytes} bytes each): raise --memory, or check a sample "
            "with --sample N")
    page = max(1, min(outside, (budget - own * own_bytes - cache) // page_bytes))
    return p, own, page


def by_tiers(game: Game, db: Database, report: Report, bad_chunks: list, budget: int,
           show: int, sample: int, seed: int, progress: Progress) -> None:
    """The check a task at a time; where it stopped before (`_Resume`), it goes on."""
    from solver.storage.stores import writer_lock

    n, chunk = game.hash_size, db._chunk
    dtype = db.remoteness_array.dtype
    p, own, page = tier_plan(game, budget, dtype.itemsize, chunk)
    local = isinstance(db.path, Path)
    with writer_lock(db.path, game.describe()) if local else contextlib.nullcontext():
        resume = _Resume(db, identity(db, p, n, seed, sample, show))
        marks = _Marks(n, chunk, resume.folder)
        kept = False  # a stopped check's marks, kept to resume from
        try:
            _check(game, db, report, bad_chunks, budget, show, sample, seed, progress, p,
                   own, page, marks, resume)
        except GsolveError:  # a wrong tier list: checked again, it fails again
            raise
        except BaseException:
            kept = resume.folder is not None
            raise
        finally:
            if not kept:
                marks.close()


def _check(game: Game, db: Database, report: Report, bad_chunks: list, budget: int,
           show: int, sample: int, seed: int, progress: Progress, p, own: int, page: int,
           marks: _Marks, resume: _Resume) -> None:
    from solver.engine.task import outside, runs
    from solver.kernels.verify import NO_CHILD

    report.mode = "tiers"
    n, puzzle, chunk = game.hash_size, game.puzzle, db._chunk
    dtype = db.remoteness_array.dtype
    report.tasks, report.memory = len(p.tasks), budget
    k = kernels(game.module, TEMPLATE)
    warm_tiers(game, dtype)
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
    longest, start, reachable, problems, done, earlier = 0, (0, 0), 0, 0, 0, 0.0
    ctx, mc, ss = game.ctx, game.max_children, game.scratch_size
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
        resume.save(state(step + 1))
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
