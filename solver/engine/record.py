"""The record of a tiered solve's finished tasks, in the store's attributes, so that an
interrupted solve resumes at the first unfinished task (solver/engine/manager.py)."""

from __future__ import annotations

import time

import numpy as np

from games.base import Tier
from solver.engine.plan import Plan
from solver.engine.worker import peak_rss
from solver.storage.chunkio import sync_written
from solver.storage.database import now
from solver.storage.writing import PartialStore

RECENT = 16  # tasks recorded last, whose chunks a resume reads back before trusting them


def _bits(done: set[int], n: int) -> str:
    b = np.zeros(n, bool)
    b[list(done)] = True
    return np.packbits(b).tobytes().hex()


def _unbits(text: str | None, n: int) -> set[int]:
    if not text:
        return set()
    b = np.unpackbits(np.frombuffer(bytes.fromhex(text), np.uint8))[:n]
    return set(np.flatnonzero(b).tolist())


class Record:
    """The finished tasks of each phase, in the store's attributes (only the manager
    writes them), flushed at most every second; beside them each run's wall and CPU time
    (of this process: a cluster's workers count theirs in `worker_task_seconds`), peak
    memory and tasks finished, so a solve resumed across sessions reports its whole cost."""

    def __init__(self, store: PartialStore, p: Plan, tiers: list[Tier]):
        self.store, self.n = store, len(p.tasks)
        attrs = store.attrs
        self.done = {ph: _unbits(attrs.get(f"{ph}_done"), self.n) for ph in ("reach", "solve")}
        # per solved task: positions by value code and the largest remoteness (a summary
        # without reading the store again)
        self.tally = {int(i): t for i, t in (attrs.get("task_tally") or {}).items()}
        self.recent = [list(x) for x in attrs.get("recent_tasks") or []]  # last recorded
        self.tiers_left = {}
        for task in p.tasks:
            for t, lo, hi, _ in task.pieces:
                self.tiers_left[t] = self.tiers_left.get(t, 0) + hi - lo
        self.tiers_done = [t for t in sorted(attrs.get("tiers_done", []))]
        self.small = len(tiers) <= 2000  # the tiers_done list is only kept when short
        self.last = 0.0
        # each run (this one last): a solve that spans sessions reports its whole time
        self.runs = [dict(r) for r in attrs.get("runs") or []]
        self.runs.append({"started": now(), "wall_seconds": 0.0, "cpu_seconds": 0.0,
                          "peak_bytes": 0, "tasks": 0})
        self.clock = (time.monotonic(), time.process_time())

    def piece(self, t: int, lo: int, hi: int) -> None:
        self.tiers_left[t] -= hi - lo
        if self.tiers_left[t] == 0 and self.small:
            self.tiers_done.append(t)
            self.flush(False)

    def borrowed(self, donor) -> None:
        """A task of this run took its records from the store `donor` (engine/borrowing.py):
        its cost was paid there."""
        run = self.runs[-1]
        run["borrowed_tasks"] = run.get("borrowed_tasks", 0) + 1
        run["borrowed_from"] = str(donor)

    def task(self, phase: str, i: int, tally: list[int] | None = None) -> None:
        """Task i's phase is finished: called once its writes are in the store, never
        before (a Writer job queued after them, or a cluster worker's result)."""
        sync_written()  # its chunk files on disk before any record of them
        self.done[phase].add(i)
        self.runs[-1]["tasks"] += 1
        self.recent = [*self.recent[-(RECENT - 1):], [phase, i]]
        if tally is not None:
            self.tally[i] = tally
        self.flush(False)

    def flush(self, now: bool = True) -> None:
        if not now and time.monotonic() - self.last < 1.0:
            return
        self.last = time.monotonic()
        self.runs[-1].update(wall_seconds=round(self.last - self.clock[0], 1),
                             cpu_seconds=round(time.process_time() - self.clock[1], 1),
                             peak_bytes=peak_rss())
        attrs = {f"{ph}_done": _bits(d, self.n) for ph, d in self.done.items()}
        attrs["runs"] = self.runs
        attrs["task_tally"] = {str(i): t for i, t in sorted(self.tally.items())}
        attrs["recent_tasks"] = self.recent
        if self.small:
            attrs["tiers_done"] = sorted(set(self.tiers_done))
        self.store.set_attrs(**attrs)
